/**
 * --sandbox: the embedded sandbox started in-process for one run, and the application whose
 * credentials the `embedded-sandbox` profile remembers (its database file persists, so do they).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../client/errors.js';
import { plainRequest } from '../client/plain.js';
import { SCOPES } from '../contract/scopes.js';
import type { Redactor } from '../store/redact.js';

/** The profile `svc sandbox start --seed` (and `svc sandbox reset --seed`) writes. */
export const SANDBOX_PROFILE = 'sandbox';

/** The profile that holds the credentials of the embedded sandbox. */
export const EMBEDDED_SANDBOX_PROFILE = 'embedded-sandbox';

type SandboxModule = typeof import('../sandbox/index.js');
export type EmbeddedSandbox = Awaited<ReturnType<SandboxModule['startSandbox']>>;

/** Starts the sandbox on a free loopback port with its database in the data folder. */
export async function startEmbeddedSandbox(dataDir: string): Promise<EmbeddedSandbox> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mod: SandboxModule = await import('../sandbox/index.js');
  return mod.startSandbox({ port: 0, db: join(dataDir, 'sandbox.db') });
}

/** Creates an application with every scope through the sandbox's admin API. */
export async function createSandboxApp(baseUrl: string, redactor: Redactor): Promise<{ client_id: string; client_secret: string }> {
  // The client's transport (no proxy: the sandbox runs in this process), once per new database.
  const res = await plainRequest({ method: 'POST', url: `${baseUrl}/_sandbox/apps`, json: { name: 'svc --sandbox', scopes: [...SCOPES] } });
  let body: { client_id?: string; client_secret?: string } = {};
  try {
    body = JSON.parse(res.text) as typeof body;
  } catch {
    // Not JSON: refused below.
  }
  if (res.status >= 300 || !body.client_id || !body.client_secret) {
    throw new ApiError({
      status: res.status,
      code: 'sandbox_setup_failed',
      message: 'the embedded sandbox did not create an application',
    });
  }
  redactor.add(body.client_secret);
  return { client_id: body.client_id, client_secret: body.client_secret };
}
