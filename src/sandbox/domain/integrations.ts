/**
 * Custom Integrations. Their token is checked through its sha256 hash; because the dashboard can
 * Reveal it later, it is also kept sealed (AES-256-GCM) under a key held in the database's meta
 * table (sandbox decision: a local stand-in, not a vault).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { hashSecret, newId, newSecret } from '../ids.js';
import { getBusiness } from './auth.js';
import type { Domain } from './context.js';
import { clearCaches, iso } from './context.js';
import { ServiceError } from './errors.js';

function sealKey(d: Domain): Buffer {
  const row = d.db.get<{ value: string }>("SELECT value FROM meta WHERE key = 'seal_key'");
  if (row) return Buffer.from(row.value, 'base64');
  const key = randomBytes(32);
  d.db.run("INSERT INTO meta (key, value) VALUES ('seal_key', ?)", key.toString('base64'));
  return key;
}

function seal(d: Domain, text: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', sealKey(d), iv);
  const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
}

function unseal(d: Domain, sealed: string): string {
  const raw = Buffer.from(sealed, 'base64');
  const c = createDecipheriv('aes-256-gcm', sealKey(d), raw.subarray(0, 12));
  c.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([c.update(raw.subarray(28)), c.final()]).toString('utf8');
}

interface IntegrationRow {
  id: string;
  business_id: string;
  name: string;
  active: number;
  token_sealed: string;
  created_at: number;
}

function view(row: IntegrationRow) {
  return { id: row.id, business_id: row.business_id, name: row.name, active: row.active === 1, created_at: iso(row.created_at) };
}

export function createIntegration(d: Domain, businessId: string, name: string) {
  getBusiness(d, businessId);
  const id = newId('int');
  const token = newSecret('it');
  const now = d.now();
  d.db.run(
    'INSERT INTO integrations (id, business_id, name, token_hash, token_sealed, active, created_at) VALUES (?, ?, ?, ?, ?, 1, ?)',
    id,
    businessId,
    name,
    hashSecret(token),
    seal(d, token),
    now,
  );
  clearCaches(d);
  return { id, token, business_id: businessId, name, active: true, created_at: iso(now) };
}

function find(d: Domain, id: string): IntegrationRow {
  const row = d.db.get<IntegrationRow>('SELECT * FROM integrations WHERE id = ?', id);
  if (!row) throw new ServiceError(404, 'not_found', `integration ${id} not found`);
  return row;
}

/** The dashboard's Reveal action. */
export function revealIntegrationToken(d: Domain, id: string) {
  return { token: unseal(d, find(d, id).token_sealed) };
}

export function setIntegrationActive(d: Domain, id: string, active: boolean) {
  find(d, id);
  d.db.run('UPDATE integrations SET active = ? WHERE id = ?', active ? 1 : 0, id);
  clearCaches(d);
  return view(find(d, id));
}

/**
 * Spec rule 7 of the order upsert: a header must name an active integration of the business
 * (else 403); without a header, the business's only integration, if active, is used.
 */
export function resolveIntegration(d: Domain, businessId: string, header: string | undefined): string | null {
  if (header !== undefined) {
    const row = d.db.get<{ id: string }>(
      'SELECT id FROM integrations WHERE token_hash = ? AND business_id = ? AND active = 1',
      hashSecret(header),
      businessId,
    );
    if (!row)
      throw new ServiceError(
        403,
        'invalid_integration_token',
        'X-Service-Integration-Token matches no active Custom Integration of this business; reveal the token in the dashboard or drop the header',
      );
    return row.id;
  }
  const cached = d.cache.defaultIntegration.get(businessId);
  if (cached !== undefined) return cached;
  const rows = d.db.all<{ id: string; active: number }>('SELECT id, active FROM integrations WHERE business_id = ? LIMIT 2', businessId);
  const only = rows.length === 1 ? rows[0] : undefined;
  const id = only && only.active === 1 ? only.id : null;
  d.cache.defaultIntegration.set(businessId, id);
  return id;
}
