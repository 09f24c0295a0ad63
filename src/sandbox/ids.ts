/** Ids, secrets and their hashes. Secrets are high-entropy random strings, so sha256 is enough. */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** An opaque id such as `ct_3f2a…` (open-points: clients must not parse them). */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** A new secret: prefix + 32 random bytes, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
