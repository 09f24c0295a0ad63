/**
 * svc sandbox start: runs the emulated service until interrupted (SIGINT/SIGTERM), then closes it
 * cleanly (WAL checkpointed). --seed creates credentials once and saves them in a profile:
 * `sandbox`, unless that one still serves a running sandbox (then `sandbox-2`, …; seed-profile.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { SCOPES } from '../../contract/scopes.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../store/settings.js';
import type { CredentialStore } from '../../store/store.js';
import { adminCall } from './admin-client.js';
import { newAdminToken } from './admin-token.js';
import { chooseSeedProfile, type SeedProfileChoice, savedProfileMessage } from './seed-profile.js';
import { afterMove, preferredPort } from './start-port.js';
import { ADMIN_TOKEN_PARAM, allowedHosts, printDashboard } from './start-security.js';

export interface StartOptions {
  port?: string;
  host?: string;
  db?: string;
  memory?: boolean;
  tokenTtl?: string;
  seed?: boolean;
  logSize?: string;
  allowedHost?: string[];
  adminToken?: boolean;
}

export interface SeededCredentials {
  client_id: string;
  client_secret: string;
  scopes: string[];
  api_token: string;
  api_token_id: string;
  integration_id: string;
  integration_token: string;
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new UsageError(`--port must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  return Number(value);
}

function parseTtl(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new UsageError(`--token-ttl must be a whole number of seconds (1 or more), got ${JSON.stringify(value)}`);
  return Number(value);
}

const BYTE_UNITS: Record<string, number> = { b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3 };

/** --log-size: a number of entries (0 turns the log off) or a byte budget (16MiB). */
export function parseLogSize(value: string | undefined): { logEntries?: number; logBytes?: number } {
  if (value === undefined) return {};
  if (/^\d{1,7}$/.test(value)) return { logEntries: Number(value) };
  const m = /^(\d+(?:\.\d+)?) ?([kmg]i?b|b)$/i.exec(value);
  const bytes = m ? Math.floor(Number(m[1]) * (BYTE_UNITS[(m[2] as string).toLowerCase()] as number)) : Number.NaN;
  if (!(bytes >= 1024 && bytes <= 4 * 1024 ** 3))
    throw new UsageError(
      `--log-size must be a number of requests (0 to 9999999; 0 turns the log off) or a size from 1KiB to 4GiB such as 16MiB, got ${JSON.stringify(value)}`,
    );
  return { logBytes: bytes, logEntries: 1_000_000 };
}

/** Creates an OAuth app and an API token with every scope, and one Custom Integration, through the admin API. */
export async function seedSandbox(ctx: Context, baseUrl: string): Promise<SeededCredentials> {
  const scopes = [...SCOPES];
  const app = (await adminCall(ctx, baseUrl, 'POST', '/apps', { name: 'svc sandbox --seed', scopes })) as {
    client_id: string;
    client_secret: string;
  };
  const token = (await adminCall(ctx, baseUrl, 'POST', '/api-tokens', { name: 'svc sandbox --seed', scopes })) as {
    id: string;
    token: string;
  };
  const integration = (await adminCall(ctx, baseUrl, 'POST', '/integrations', { name: 'Seeded Custom Integration' })) as {
    id: string;
    token: string;
  };
  return {
    client_id: app.client_id,
    client_secret: app.client_secret,
    scopes,
    api_token: token.token,
    api_token_id: token.id,
    integration_id: integration.id,
    integration_token: integration.token,
  };
}

/**
 * Seeds the sandbox at `baseUrl` and saves a profile for it (start --seed, reset --seed): the one
 * `choose` picks, never replacing a profile that still serves something (seed-profile.ts).
 */
export async function seedAndSaveProfile(
  ctx: Context,
  baseUrl: string,
  choose: (ctx: Context, store: CredentialStore, baseUrl: string) => Promise<SeedProfileChoice> = chooseSeedProfile,
): Promise<{ seeded: SeededCredentials; profile: SeedProfileChoice }> {
  const store = await ctx.store();
  // Chosen and reserved (its address saved) as one step: concurrent seeds in one config folder
  // each see the others' reservations and pick distinct names.
  const profile = await store.exclusive(async () => {
    const choice = await choose(ctx, store, baseUrl);
    store.setProfile(choice.name, { seeded_sandbox: true, base_url: baseUrl });
    return choice;
  }, ctx.signal);
  const seeded = await seedSandbox(ctx, baseUrl);
  store.setProfile(profile.name, {
    seeded_sandbox: true,
    base_url: baseUrl,
    auth_method: 'client_credentials',
    client_id: seeded.client_id,
    client_secret: seeded.client_secret,
    requested_scopes: seeded.scopes,
    integration_token: seeded.integration_token,
  });
  return { seeded, profile };
}

/** The seeded credentials for a person: shown once on stdout, then where they were saved. */
export function printSeeded(ctx: Context, seeded: SeededCredentials, profile: SeedProfileChoice): void {
  ctx.out.stdout('\nSeeded credentials (shown once; the secrets are stored hashed):\n');
  ctx.out.record([
    ['client_id', seeded.client_id],
    ['client_secret', seeded.client_secret],
    ['scopes', seeded.scopes.join(' ')],
    ['api_token', seeded.api_token],
    ['integration_id', seeded.integration_id],
    ['integration_token', seeded.integration_token],
  ]);
  ctx.out.info(savedProfileMessage(profile));
}

type SandboxSettings = Omit<NonNullable<Parameters<SandboxModule['startSandbox']>[0]>, 'port'>;
type SandboxModule = typeof import('../../sandbox/index.js');

/** Why the sandbox could not start, said for the errors a person can fix (else the error's own message). */
const START_FAILURES: Record<string, (settings: SandboxSettings, port: number) => string> = {
  EADDRINUSE: (settings, port) => `port ${port} on ${settings.host ?? '127.0.0.1'} is already in use`,
  EADDRNOTAVAIL: (settings) => `${settings.host ?? '127.0.0.1'} is not an address of this machine`,
  SQLITE_CANTOPEN: (settings) => `cannot open the database ${settings.db}`,
};

/** Starts the sandbox on `port`; when that port is not explicit and taken, on a free one instead. */
async function listen(settings: SandboxSettings, port: number, explicit: boolean) {
  const { startSandbox } = await import('../../sandbox/index.js');
  try {
    return await startSandbox({ ...settings, port });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE' && !explicit) return listen(settings, 0, true);
    const reason = START_FAILURES[code ?? '']?.(settings, port) ?? (e as Error).message;
    throw new CliError(`the sandbox could not start: ${reason}`, {
      exitCode: EXIT.failure,
      code: 'sandbox_start_failed',
      hint: code === 'EADDRINUSE' ? 'pick another --port, or --port 0 for a free one' : undefined,
      cause: e,
    });
  }
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

export async function run(_args: string[], opts: StartOptions, ctx: Context): Promise<number> {
  const port = parsePort(opts.port);
  const host = opts.host ?? '127.0.0.1';
  const ttl = parseTtl(opts.tokenTtl);
  const db = databaseOf(ctx, opts);
  const allowed = allowedHosts(opts.allowedHost ?? []);
  const adminToken = opts.adminToken ? newAdminToken(ctx.env) : undefined;
  if (adminToken) ctx.redactor.add(adminToken);
  if (!isLoopbackHost(host) && host !== '127.0.0.1' && !adminToken) {
    ctx.log.warn(
      `binding ${host}: the service answers other machines too; the admin API (/_sandbox) and the dashboard still answer loopback clients only (add --admin-token to reach them from another machine)`,
    );
  }

  const choice = await preferredPort(ctx, port);
  const settings = { host, db, tokenTtlSeconds: ttl, allowedHosts: allowed, adminToken, ...parseLogSize(opts.logSize) };
  const sandbox = await listen(settings, choice.port, choice.explicit);
  const moved = sandbox.port !== choice.port && choice.port !== 0;
  // The port its profile (or the default) names was taken: say where it went and move the profiles.
  if (moved) {
    const from = new URL(sandbox.baseUrl);
    from.port = String(choice.port);
    ctx.log.warn(await afterMove(ctx, from.origin, sandbox.baseUrl, choice.port, choice.profileUrl));
  }

  const store = adminToken ? await ctx.store() : undefined;
  try {
    // Saved first: --seed's own admin calls below need it, as `svc sandbox …` commands do later.
    store?.setSandboxAdminToken(sandbox.baseUrl, adminToken);
    const seed = opts.seed ? await seedAndSaveProfile(ctx, sandbox.baseUrl) : undefined;
    printStarted(ctx, { baseUrl: sandbox.baseUrl, port: sandbox.port, host, db, adminToken, seed });
    await waitForAbort(ctx.signal);
  } finally {
    await sandbox.close();
    store?.setSandboxAdminToken(sandbox.baseUrl, undefined);
  }
  if (!ctx.settings.json) ctx.out.info('sandbox stopped');
  return 0;
}

/** --db FILE, --memory, or sandbox.db in the data folder (created). */
function databaseOf(ctx: Context, opts: StartOptions): string {
  if (opts.db !== undefined && opts.memory)
    throw new UsageError('--db and --memory cannot be used together', 'pick a file with --db, or keep everything in memory with --memory');
  if (opts.memory) return ':memory:';
  if (opts.db !== undefined) return opts.db;
  mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
  return join(ctx.dataDir, 'sandbox.db');
}

interface Started {
  baseUrl: string;
  port: number;
  host: string;
  db: string;
  adminToken: string | undefined;
  seed: Awaited<ReturnType<typeof seedAndSaveProfile>> | undefined;
}

/** The address (and the dashboard, the seeded credentials, the data file): one JSON line, or lines for a person. */
function printStarted(ctx: Context, s: Started): void {
  if (ctx.settings.json) {
    // One line, even on a terminal: scripts read it with a line reader.
    const dashboard = s.adminToken ? `${s.baseUrl}/?${ADMIN_TOKEN_PARAM}=${s.adminToken}` : `${s.baseUrl}/`;
    ctx.out.stdout(
      `${JSON.stringify({ base_url: s.baseUrl, dashboard_url: dashboard, port: s.port, db: s.db, ...(s.adminToken ? { admin_token: s.adminToken } : {}), ...(s.seed ? { seed: s.seed.seeded, profile: s.seed.profile.name } : {}) })}\n`,
    );
    return;
  }
  ctx.out.stdout(`Sandbox listening on ${s.baseUrl}\n`);
  printDashboard(ctx, s.baseUrl, s.host, s.port, s.adminToken);
  if (s.seed) printSeeded(ctx, s.seed.seeded, s.seed.profile);
  ctx.out.info(`data: ${s.db === ':memory:' ? 'in memory (lost on exit)' : s.db}; press Ctrl-C to stop`);
}
