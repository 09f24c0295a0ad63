/**
 * The admin token of a sandbox started with `--admin-token`: made up at start (or taken from
 * SVC_SANDBOX_ADMIN_TOKEN), saved in the credential store by base URL, and sent by every
 * `svc sandbox …` command to that address.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export const ADMIN_TOKEN_ENV = 'SVC_SANDBOX_ADMIN_TOKEN';
/** The header the sandbox reads it from (src/sandbox/plugins/admin-guard.ts). */
export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';

/** The token a sandbox starts with: SVC_SANDBOX_ADMIN_TOKEN when set (checked), else 32 random bytes. */
export function newAdminToken(env: Record<string, string | undefined>): string {
  const given = env[ADMIN_TOKEN_ENV];
  if (given === undefined || given === '') return `sbx_admin_${randomBytes(32).toString('base64url')}`;
  // It travels in a header, a cookie and a URL: letters, digits and - _ . ~ only.
  if (!/^[A-Za-z0-9._~-]{16,256}$/.test(given))
    throw new UsageError(
      `${ADMIN_TOKEN_ENV} must be 16 to 256 letters, digits or - _ . ~`,
      `unset it to let \`svc sandbox start --admin-token\` make one up`,
    );
  return given;
}

/** The admin token to send to the sandbox at `baseUrl`: SVC_SANDBOX_ADMIN_TOKEN, else the one saved for that address. */
export async function adminTokenFor(ctx: Context, baseUrl: string): Promise<string | undefined> {
  const fromEnv = ctx.env[ADMIN_TOKEN_ENV];
  if (fromEnv) {
    ctx.redactor.add(fromEnv);
    return fromEnv;
  }
  return (await ctx.store()).sandboxAdminToken(baseUrl);
}

/** The headers carrying it, when there is one. */
export async function adminTokenHeaders(ctx: Context, baseUrl: string): Promise<Record<string, string>> {
  const token = await adminTokenFor(ctx, baseUrl);
  return token === undefined ? {} : { [ADMIN_TOKEN_HEADER]: token };
}
