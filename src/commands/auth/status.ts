/**
 * svc auth status: which profile, base URL and method a run would use, where the credentials come
 * from (env or profile), the granted scopes and the seconds until the access token expires. For
 * client credentials it makes sure a valid token exists (renewing it if needed), which also proves
 * the credentials work. Never prints a secret. Exit 3 when not logged in.
 */
import type { ServiceClient } from '../../client/client.js';
import { ApiError, CredentialsError, NetworkError } from '../../client/errors.js';
import type { Context } from '../../context.js';
import { maskSecret } from '../../store/redact.js';
import { envCredential } from '../../store/settings.js';
import { loginCommand, openClient, proxyInUse, resolveRunAuth } from '../../wiring/client.js';
import { EMBEDDED_SANDBOX_PROFILE } from '../../wiring/sandbox.js';
import { secondsUntil } from './shared.js';

export interface StatusOptions {
  offline?: boolean;
}

export async function run(_args: string[], opts: StatusOptions, ctx: Context): Promise<number> {
  if (ctx.settings.sandbox) return sandboxStatus(ctx);
  const store = await ctx.store();
  const auth = resolveRunAuth(ctx, store);
  const creds = auth.credentials;
  const report = profileReport(ctx, auth, store.path);
  addProxy(ctx, report);

  const failure = creds && auth.baseUrl && !opts.offline ? await checkOnline(ctx, creds, report) : undefined;

  if (ctx.settings.json) ctx.out.json(report);
  else printHuman(ctx, report);
  // Then the error on stderr the contract's way (the JSON error with --json), with its exit code:
  // 3 when not logged in or the credentials are refused, 1 when the service cannot be reached.
  if (!creds) {
    throw new CredentialsError(
      `not logged in (profile ${auth.profileName})`,
      `run \`${loginCommand(auth.profileName)}\`, or set SVC_TOKEN or SVC_CLIENT_ID/SVC_CLIENT_SECRET`,
    );
  }
  if (failure !== undefined) throw failure;
  return 0;
}

type RunAuth = ReturnType<typeof resolveRunAuth>;

/** The report as far as the settings tell it, before any request: token state and error still null. */
function profileReport(ctx: Context, auth: RunAuth, storePath: string): Record<string, unknown> {
  const creds = auth.credentials;
  const client = creds?.method === 'client_credentials' ? creds : undefined;
  return {
    profile: auth.profileName,
    profile_source: ctx.settings.profileSource,
    logged_in: creds !== undefined,
    base_url: auth.baseUrl ?? null,
    base_url_source: auth.baseUrl ? auth.baseUrlSource : null,
    method: creds?.method ?? null,
    credentials_source: creds?.source ?? null,
    credentials_from: creds?.sourceName ?? null,
    client_id: client ? client.clientId : null,
    client_auth: client ? client.clientAuth : null,
    requested_scopes: client ? (client.scopes ?? null) : null,
    scopes: null,
    token_expires_in: null,
    token_expires_at: null,
    ...integrationTokenFields(ctx, auth.profile?.integration_token),
    store: storePath,
    error: null,
  };
}

/**
 * The token state and a first contact with the service. A refused credential or an unreachable
 * service goes into the report (still useful) and is returned, to be thrown once it is printed.
 */
async function checkOnline(ctx: Context, creds: NonNullable<RunAuth['credentials']>, report: Record<string, unknown>): Promise<unknown> {
  const { client, close } = await openClient(ctx);
  try {
    if (creds.method === 'client_credentials') await addTokenState(ctx, client, report);
    await checkCredentials(ctx, client);
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) report.error = `${err.code}: ${err.message} (HTTP ${err.status})`;
    else if (err instanceof NetworkError) report.error = err.message;
    else throw err;
    return err;
  } finally {
    await close();
  }
}

/**
 * One cheap authenticated call (the first contact), as `gh auth status` checks its token: a
 * refused credential fails here (exit 3). A 403 means the credential is valid but lacks the scope
 * to read contacts, which is not a problem of the credential itself.
 */
async function checkCredentials(ctx: Context, client: ServiceClient): Promise<void> {
  try {
    await client.listContacts({ limit: 1 }, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'forbidden') return;
    throw err;
  }
}

/**
 * The integration token order requests would send, masked (its first characters only): from
 * SVC_INTEGRATION_TOKEN, else the profile. A stale one stored by an old sandbox is seen here.
 */
function integrationTokenFields(ctx: Context, stored: string | undefined): Record<string, unknown> {
  const fromEnv = envCredential(ctx.env, 'SVC_INTEGRATION_TOKEN');
  const token = fromEnv ?? stored;
  return {
    integration_token: token ? maskSecret(token) : null,
    integration_token_source: token ? (fromEnv ? 'env' : 'profile') : null,
  };
}

/** Fills scopes and expiry from a valid token (renewed first if due). */
async function addTokenState(ctx: Context, client: ServiceClient, report: Record<string, unknown>): Promise<void> {
  await client.accessToken(ctx.signal);
  const expiresAt = client.tokens.expiresAt();
  report.scopes = client.tokens.grantedScopes() ?? null;
  if (expiresAt !== undefined) {
    report.token_expires_in = secondsUntil(expiresAt, ctx.now());
    report.token_expires_at = new Date(expiresAt).toISOString();
  }
}

/** --sandbox: the embedded sandbox's remembered credentials (created now if this is the first use). */
async function sandboxStatus(ctx: Context): Promise<number> {
  const { client, close } = await openClient(ctx);
  try {
    const store = await ctx.store();
    const profile = store.getProfile(EMBEDDED_SANDBOX_PROFILE);
    const report: Record<string, unknown> = {
      profile: EMBEDDED_SANDBOX_PROFILE,
      profile_source: 'sandbox',
      logged_in: true,
      base_url: client.baseUrl,
      base_url_source: 'sandbox',
      method: 'client_credentials',
      credentials_source: 'profile',
      credentials_from: 'embedded sandbox',
      client_id: profile?.client_id ?? null,
      client_auth: 'post',
      requested_scopes: null,
      scopes: null,
      token_expires_in: null,
      token_expires_at: null,
      integration_token: null,
      integration_token_source: null,
      store: store.path,
      error: null,
    };
    addProxy(ctx, report);
    await addTokenState(ctx, client, report);
    if (ctx.settings.json) ctx.out.json(report);
    else printHuman(ctx, report);
    return 0;
  } finally {
    await close();
  }
}

/**
 * The proxy requests to the base URL go through (never its credentials): `proxy` (null when
 * direct) and `proxy_from` (the variable, or NO_PROXY when it lists the host). The embedded
 * sandbox is always reached directly.
 */
function addProxy(ctx: Context, report: Record<string, unknown>): void {
  const baseUrl = report.base_url;
  const use = typeof baseUrl === 'string' && report.base_url_source !== 'sandbox' ? proxyInUse(ctx, baseUrl) : undefined;
  report.proxy = use !== undefined && 'proxy' in use ? use.proxy : null;
  report.proxy_from = use === undefined ? null : 'proxy' in use ? use.variable : 'NO_PROXY';
}

function printHuman(ctx: Context, r: Record<string, unknown>): void {
  if (!r.logged_in) {
    ctx.out.record([
      ['profile', r.profile],
      ['logged in', 'no'],
      ['base URL', r.base_url ?? '(none)'],
    ]);
    return;
  }
  const fields: Array<[string, unknown]> = [
    ['profile', `${r.profile}${PROFILE_SOURCE_TEXT[r.profile_source as string] ?? ''}`],
    [
      'base URL',
      r.base_url ? `${r.base_url} (from ${sourceText(r.base_url_source as string)})` : '(none: pass --base-url or set SVC_BASE_URL)',
    ],
    ['method', methodText(r)],
    ['credentials', r.credentials_source === 'env' ? `environment (${r.credentials_from})` : `profile in ${r.store}`],
    ['scopes', scopesText(r)],
    ...optionalFields(r),
  ];
  ctx.out.record(fields);
}

function methodText(r: Record<string, unknown>): string {
  if (r.method === 'api_token') return 'API token';
  return `client credentials (client ${r.client_id}, ${r.client_auth === 'basic' ? 'HTTP Basic' : 'secret in form body'})`;
}

function scopesText(r: Record<string, unknown>): string {
  if (r.method === 'api_token') return 'unknown for API tokens (set when the token was created)';
  const scopes = r.scopes as string[] | null;
  return scopes?.length ? scopes.join(' ') : '(none stated)';
}

/** The lines shown only when they have something to say: proxy, requested scopes, expiry, integration token, problem. */
function optionalFields(r: Record<string, unknown>): Array<[string, unknown]> {
  const fields: Array<[string, unknown]> = [];
  if (r.proxy) fields.push(['proxy', `${r.proxy} (from ${r.proxy_from})`]);
  else if (r.proxy_from === 'NO_PROXY') fields.push(['proxy', 'none: NO_PROXY lists the host']);
  if (r.requested_scopes) fields.push(['requested', (r.requested_scopes as string[]).join(' ')]);
  if (r.token_expires_in !== null)
    fields.push(['token expires', `in ${humanDuration(r.token_expires_in as number)} (${r.token_expires_at})`]);
  if (r.integration_token) {
    const from = r.integration_token_source === 'env' ? 'SVC_INTEGRATION_TOKEN' : `profile ${r.profile}`;
    fields.push(['integration token', `${r.integration_token} (${from}; sent on order requests)`]);
  }
  if (r.error) fields.push(['problem', r.error]);
  return fields;
}

const PROFILE_SOURCE_TEXT: Record<string, string> = {
  flag: ' (from --profile)',
  env: ' (from SVC_PROFILE)',
  store: ' (the default profile, set with `svc auth switch`)',
  sandbox: ' (--sandbox: the embedded sandbox)',
};

function sourceText(source: string): string {
  if (source === 'sandbox') return 'the embedded sandbox, started for this command';
  return source === 'flag' ? '--base-url' : source === 'env' ? 'SVC_BASE_URL' : 'profile';
}

/** 7196 → "2 h", 300 → "5 min", 42 → "42 s". */
export function humanDuration(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
