/**
 * Programmatic entry of the sandbox (also the esbuild entry dist/sandbox.js): starts the
 * emulated service on a loopback port with a SQLite store.
 */

import { mkdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { dirname, resolve } from 'node:path';
import { buildServer } from './app.js';
import { DEFAULT_BUSINESS_ID, SandboxDb } from './db.js';
import type { AnswerHook } from './deps.js';
import { ensureDefaultBusiness } from './domain/auth.js';
import { clearCaches, type Domain, newCache } from './domain/context.js';
import { Faults } from './faults.js';
import { DeprecationTally } from './request-log/deprecations.js';
import { DEFAULT_LOG_BYTES, DEFAULT_LOG_ENTRIES, RequestLog } from './request-log/ring.js';

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A file path, or ':memory:' (default). */
  db?: string;
  /** Lifetime of access tokens from client credentials (default 7200). */
  tokenTtlSeconds?: number;
  /** Clock (epoch ms), for tests of expiry. */
  now?: () => number;
  /** Randomness of fault injection, for tests. */
  random?: () => number;
  /** Request log ring: entries kept (default 10,000; 0 turns the log off) and bytes at most (default 64 MiB). */
  logEntries?: number;
  logBytes?: number;
  /** More Host names the admin API and the dashboard answer to (a tunnel's), besides loopback names and `host`. */
  allowedHosts?: string[];
  /** When set, the admin API and the dashboard require it, and answer other machines with it. */
  adminToken?: string;
  /** Sees every answer sent, for tests (e.g. a check against the OpenAPI document). */
  onAnswer?: AnswerHook;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:PORT, no trailing slash. */
  baseUrl: string;
  port: number;
  /** Stops listening, checkpoints the WAL and closes the database. */
  close(): Promise<void>;
}

const TABLES = ['apps', 'access_tokens', 'api_tokens', 'integrations', 'contacts', 'orders', 'events', 'flows', 'outbox'];

function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** The database: a file's folder is made first; `:memory:` and `file:` URIs are taken as they are. */
function openDb(file: string): SandboxDb {
  if (file !== ':memory:' && !file.startsWith('file:')) mkdirSync(dirname(resolve(file)), { recursive: true });
  return new SandboxDb(file);
}

/** POST /_sandbox/reset: every table emptied but the default business, in one transaction. */
function resetAll(db: SandboxDb, domain: Domain): void {
  db.transaction(() => {
    for (const t of TABLES) db.run(`DELETE FROM ${t}`);
    db.run('DELETE FROM businesses WHERE id <> ?', DEFAULT_BUSINESS_ID);
    ensureDefaultBusiness(domain);
    clearCaches(domain);
  });
}

/** The base URL a local client uses: a wildcard bind answers on loopback too. */
function reachableUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const db = openDb(opts.db ?? ':memory:');
  const now = opts.now ?? Date.now;
  const domain: Domain = { db, now, tokenTtlSeconds: opts.tokenTtlSeconds ?? 7200, cache: newCache() };
  ensureDefaultBusiness(domain);
  const host = opts.host ?? '127.0.0.1';
  let baseUrl = '';
  const logEntries = opts.logEntries ?? DEFAULT_LOG_ENTRIES;
  const app = await buildServer({
    domain,
    faults: new Faults(now, opts.random),
    requestLog: logEntries > 0 ? new RequestLog(logEntries, opts.logBytes ?? DEFAULT_LOG_BYTES) : undefined,
    deprecations: new DeprecationTally(),
    baseUrl: () => baseUrl,
    security: {
      bindHost: host,
      allowedHosts: opts.allowedHosts ?? [],
      adminToken: opts.adminToken,
      localAddresses: host === '0.0.0.0' || host === '::' ? machineAddresses() : undefined,
    },
    onAnswer: opts.onAnswer,
    reset: () => resetAll(db, domain),
  });
  try {
    await app.listen({ port: opts.port ?? 0, host });
  } catch (e) {
    db.close();
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
  baseUrl = reachableUrl(host, port);
  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    port,
    close() {
      closing ??= app.close().then(() => db.close());
      return closing;
    },
  };
}

export { buildOpenApi } from './openapi.js';
export { openApiText, writeOpenApiFile } from './openapi-write.js';
