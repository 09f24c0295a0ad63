/**
 * svc auth login: stores an API token or OAuth client credentials in the profile after checking
 * them against the service. Interactive only when a terminal can prompt (never in CI, never
 * without a TTY); otherwise entirely driven by flags and stdin. Secrets never come from argv.
 */

import { missingScopes } from '../../client/auth.js';
import { ApiError, isWrongTokenEndpoint, statusKind } from '../../client/errors.js';
import { parseErrorBody } from '../../client/response.js';
import type { Context } from '../../context.js';
import { SCOPES } from '../../contract/scopes.js';
import { AuthError, CliError, EXIT, UsageError } from '../../errors.js';
import type { Prompter } from '../../io/prompter.js';
import { clearedCredentials } from '../../store/credentials.js';
import { checkCredentialText, envValue, resolveBaseUrl, validateBaseUrl } from '../../store/settings.js';
import type { ClientAuthStyle, Profile } from '../../store/store.js';
import { openClient, warnIfPlainHttp } from '../../wiring/client.js';
import { PendingTokenCache, profileTokenCache } from '../../wiring/token-cache.js';
import { checkScopes, scopeAdvice, scopesNotRequested } from './login-scopes.js';
import { readSecretFromStdin, secondsUntil } from './shared.js';

export interface LoginOptions {
  withToken?: boolean;
  clientId?: string;
  clientSecretStdin?: boolean;
  scopes?: string;
  requireScopes?: boolean;
  basicAuth?: boolean;
  defaultCountry?: string;
  keepIntegrationToken?: boolean;
}

type Method = 'api_token' | 'client_credentials';

/** The example the base URL prompt shows (the spec gives the service no single address). */
export const BASE_URL_EXAMPLE = 'https://api.example.com';

const NON_INTERACTIVE_HINT =
  'pipe an API token to `svc auth login --with-token`, or pass `--client-id ID --client-secret-stdin [--scopes "contacts_read orders_write"]` with the secret on stdin';

export async function run(_args: string[], opts: LoginOptions, ctx: Context): Promise<number> {
  const { requestedScopes, defaultCountry } = checkOptions(opts);
  const interactive = !opts.withToken && !opts.clientSecretStdin;
  if (interactive && !ctx.policy.canPrompt) {
    throw new UsageError(
      opts.clientId
        ? '--client-id needs --client-secret-stdin when no terminal can prompt for the secret'
        : 'nothing to log in with: no terminal to prompt on (stdin is not a TTY, CI is set, or --json)',
      NON_INTERACTIVE_HINT,
    );
  }

  const store = await ctx.store();
  const profileName = ctx.settings.profile;
  const existing = store.getProfile(profileName);
  const prompter = interactive ? await ctx.prompter() : undefined;
  const baseUrl = await askBaseUrl(ctx, existing, prompter);
  warnIfPlainHttp(ctx, baseUrl);

  const creds = await gatherCredentials(ctx, opts, prompter, requestedScopes);
  checkCredentials(ctx, opts, creds);

  // The token obtained while checking client credentials, written to the profile once they are saved.
  const pendingToken = new PendingTokenCache();
  const checked =
    creds.method === 'api_token'
      ? await checkApiToken(ctx, baseUrl, creds.token!)
      : await checkClientCredentials(ctx, opts, baseUrl, creds, pendingToken);

  // An integration token belongs to the account logged out of: a new login drops it (a later 403
  // on orders would name a header the user never passed), unless asked to keep it.
  const droppedIntegrationToken = !opts.keepIntegrationToken && existing?.integration_token !== undefined;
  store.updateProfile(profileName, {
    ...clearedCredentials(),
    ...(opts.keepIntegrationToken && existing?.integration_token ? { integration_token: existing.integration_token } : {}),
    ...checked.profile,
    base_url: baseUrl,
    ...(defaultCountry ? { default_country: defaultCountry } : {}),
  });
  if (creds.method === 'client_credentials') pendingToken.commitTo(profileTokenCache(store, profileName, creds.clientId!));

  printLogin(ctx, { profileName, baseUrl, creds, checked, droppedIntegrationToken, storePath: store.path, clientAuth: clientAuthOf(opts) });
  const envOverride = ['SVC_TOKEN', 'SVC_CLIENT_ID', 'SVC_CLIENT_SECRET'].filter((n) => envValue(ctx.env, n) !== undefined);
  if (envOverride.length) ctx.log.warn(`${envOverride.join(', ')} is set and takes precedence over the stored credentials`);
  return 0;
}

/** What the login will present to the service: one method and its secrets, as given or asked. */
interface Credentials {
  method: Method;
  token?: string;
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
}

/** What the check against the service produced: the profile to save and the summary to print. */
interface Checked {
  profile: Profile;
  summary: Record<string, unknown>;
}

/** The flags that contradict each other or hold a bad value, refused before anything is asked. */
function checkOptions(opts: LoginOptions): { requestedScopes: string[] | undefined; defaultCountry: string | undefined } {
  if (opts.withToken && (opts.clientId || opts.clientSecretStdin)) {
    throw new UsageError('--with-token cannot be combined with --client-id / --client-secret-stdin', 'choose one login method');
  }
  if (opts.clientSecretStdin && !opts.clientId) {
    throw new UsageError('--client-secret-stdin needs --client-id', NON_INTERACTIVE_HINT);
  }
  if (opts.withToken && (opts.scopes || opts.requireScopes || opts.basicAuth)) {
    throw new UsageError('--scopes, --require-scopes and --basic-auth apply to client credentials (--client-id), not to --with-token');
  }
  const requestedScopes = opts.scopes !== undefined ? checkScopes(opts.scopes) : undefined;
  const defaultCountry = opts.defaultCountry?.toUpperCase();
  if (defaultCountry !== undefined && !/^[A-Z]{2}$/.test(defaultCountry)) {
    throw new UsageError(`--default-country must be a two-letter country code (ISO 3166), got ${JSON.stringify(opts.defaultCountry)}`);
  }
  return { requestedScopes, defaultCountry };
}

/** The service's address: from the flag, environment or profile, else asked at the terminal. */
async function askBaseUrl(ctx: Context, existing: Profile | undefined, prompter: Prompter | undefined): Promise<string> {
  let baseUrlRaw = resolveBaseUrl(ctx.flags, ctx.env, existing).value;
  if (!baseUrlRaw) {
    if (!prompter) throw new UsageError('no service address to log in to', 'pass --base-url URL or set SVC_BASE_URL');
    baseUrlRaw = await prompter.input({
      // The service has no one address (spec: {base_url}): an example shows the shape expected.
      message: `Service base URL (e.g. ${BASE_URL_EXAMPLE})`,
      validate: (v) => {
        try {
          validateBaseUrl(v, ctx.settings.insecure);
          return true;
        } catch (e) {
          return (e as Error).message;
        }
      },
    });
  }
  return validateBaseUrl(baseUrlRaw, ctx.settings.insecure);
}

/** The credentials: a token or client secret from stdin as the flags say, else asked at the terminal. */
async function gatherCredentials(
  ctx: Context,
  opts: LoginOptions,
  prompter: Prompter | undefined,
  scopes: string[] | undefined,
): Promise<Credentials> {
  if (opts.withToken) {
    const token = await readSecret(ctx, '--with-token', 'Paste your API token', '`svc auth login --with-token < token.txt`');
    if (!token) throw new UsageError('no API token on stdin', 'pipe it in: `svc auth login --with-token < token.txt`');
    return { method: 'api_token', token };
  }
  if (opts.clientSecretStdin) {
    const pipeIn = '`printf %s "$SECRET" | svc auth login --client-id ID --client-secret-stdin`';
    const clientSecret = await readSecret(ctx, '--client-secret-stdin', 'Client secret', pipeIn);
    if (!clientSecret) throw new UsageError('no client secret on stdin', `pipe it in: ${pipeIn}`);
    return { method: 'client_credentials', clientId: opts.clientId, clientSecret, scopes };
  }
  return promptCredentials(prompter!, opts.clientId, scopes);
}

/** The interactive login: the method (unless --client-id chose it), then its secrets and scopes. */
async function promptCredentials(p: Prompter, clientId: string | undefined, scopes: string[] | undefined): Promise<Credentials> {
  const method = clientId
    ? 'client_credentials'
    : await p.select<Method>({
        message: 'How do you want to authenticate?',
        choices: [
          { name: 'OAuth client credentials (client id and secret)', value: 'client_credentials' },
          { name: 'API token', value: 'api_token' },
        ],
      });
  if (method === 'api_token') {
    const token = await p.password({ message: 'Paste your API token', validate: (v) => (v.trim() ? true : 'the token cannot be empty') });
    return { method, token: token.trim() };
  }
  const id =
    clientId ?? (await p.input({ message: 'Client ID', validate: (v) => (v.trim() ? true : 'the client id cannot be empty') })).trim();
  const clientSecret = (
    await p.password({ message: 'Client secret', validate: (v) => (v.trim() ? true : 'the secret cannot be empty') })
  ).trim();
  const chosen =
    scopes ??
    (await p.checkbox({
      message: 'Scopes to request (space to toggle, enter to confirm; none = everything enabled on the application)',
      // Nothing pre-selected: Enter alone asks for everything the application has, as the prompt says.
      choices: SCOPES.map((s) => ({ name: s, value: s, checked: false })),
    }));
  return { method, clientId: id, clientSecret, scopes: chosen.length === 0 ? undefined : chosen };
}

/** Secrets are redacted from here on; a line break inside one can never be sent, so it is refused now. */
function checkCredentials(ctx: Context, opts: LoginOptions, { token, clientId, clientSecret }: Credentials): void {
  ctx.redactor.add(token);
  ctx.redactor.add(clientSecret);
  // Only the surrounding whitespace was trimmed.
  if (token !== undefined) checkCredentialText(token, opts.withToken ? '--with-token' : 'the API token');
  if (clientSecret !== undefined)
    checkCredentialText(clientSecret, opts.clientSecretStdin ? '--client-secret-stdin' : 'the client secret', false);
  if (clientId !== undefined) checkCredentialText(clientId, '--client-id', false);
}

function clientAuthOf(opts: LoginOptions): ClientAuthStyle {
  return opts.basicAuth ? 'basic' : 'post';
}

async function checkApiToken(ctx: Context, baseUrl: string, token: string): Promise<Checked> {
  await verifyApiToken(ctx, baseUrl, token);
  return { profile: { auth_method: 'api_token', api_token: token }, summary: { method: 'api_token' } };
}

/**
 * Client credentials are checked by obtaining a token (kept in `pendingToken`); a grant missing
 * scopes the login requires (--require-scopes) saves nothing.
 */
async function checkClientCredentials(
  ctx: Context,
  opts: LoginOptions,
  baseUrl: string,
  { clientId, clientSecret, scopes }: Credentials,
  pendingToken: PendingTokenCache,
): Promise<Checked> {
  const clientAuth = clientAuthOf(opts);
  const { client, close } = await openClient(ctx, {
    baseUrl,
    credentials: { kind: 'client_credentials', clientId: clientId!, clientSecret: clientSecret!, clientAuth, scopes, cache: pendingToken },
  });
  try {
    await client.accessToken(ctx.signal);
  } catch (err) {
    throw tokenRequestError(err, clientId!, baseUrl);
  } finally {
    await close();
  }
  const granted = client.tokens.grantedScopes();
  const expiresAt = client.tokens.expiresAt();
  const missing = scopes && granted ? missingScopes(scopes, granted) : [];
  if (missing.length > 0 && opts.requireScopes) {
    throw new AuthError(
      `the application was granted fewer scopes than required: missing ${missing.join(' ')}; nothing was saved`,
      `enable ${missing.join(' ')} on the application (or the business plan), then \`svc auth login\` again`,
    );
  }
  return {
    profile: {
      auth_method: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
      client_auth: clientAuth,
      requested_scopes: scopes,
    },
    summary: {
      method: 'client_credentials',
      client_id: clientId,
      client_auth: clientAuth,
      requested_scopes: scopes ?? null,
      scopes: granted ?? null,
      missing_scopes: missing,
      token_expires_in: expiresAt !== undefined ? secondsUntil(expiresAt, ctx.now()) : null,
    },
  };
}

/** A failed token request said in the login's words: rejected credentials, or no token endpoint there. */
function tokenRequestError(err: unknown, clientId: string, baseUrl: string): unknown {
  if (err instanceof ApiError && err.code === 'invalid_client') {
    // The service's code, as when the same credentials come from SVC_CLIENT_ID/SVC_CLIENT_SECRET.
    return new CliError(
      `the service rejected client id ${clientId} or its secret (invalid_client, HTTP ${err.status}); nothing was saved`,
      {
        exitCode: EXIT.auth,
        code: 'invalid_client',
        hint: 'check the client id and secret (regenerate the secret in the application settings if it was lost), then `svc auth login` again',
        status: err.status,
        requestId: err.requestId,
      },
    );
  }
  if (isWrongTokenEndpoint(err)) {
    // A base URL with a path the service does not have (…/v1, …/api) reaches no token endpoint:
    // its 404, 405 or 415 says nothing about the credentials.
    const path = new URL(baseUrl).pathname;
    return new CliError(`no token endpoint at ${baseUrl}/oauth/token (HTTP ${err.status}: ${err.message}); nothing was saved`, {
      exitCode: EXIT.failure,
      code: err.code,
      hint: `is the base URL right? It is the service's root${path.length > 1 ? `, perhaps without ${path}` : ''}: svc adds /oauth/token and /v1/… to it`,
      status: err.status,
      requestId: err.requestId,
    });
  }
  return err;
}

interface LoginReport {
  profileName: string;
  baseUrl: string;
  creds: Credentials;
  checked: Checked;
  droppedIntegrationToken: boolean;
  storePath: string;
  clientAuth: ClientAuthStyle;
}

/** The outcome as JSON or as lines, then the advice about scopes the token lacks. */
function printLogin(ctx: Context, r: LoginReport): void {
  const granted = r.checked.summary.scopes as string[] | null;
  const isClient = r.creds.method === 'client_credentials';
  if (ctx.settings.json) {
    ctx.out.json({
      profile: r.profileName,
      base_url: r.baseUrl,
      ...r.checked.summary,
      ...(isClient ? { unrequested_scopes: scopesNotRequested(r.creds.scopes, granted) } : {}),
      integration_token_dropped: r.droppedIntegrationToken,
      store: r.storePath,
    });
  } else {
    printLoginLines(ctx, r, granted);
  }
  if (isClient) for (const line of scopeAdvice(r.creds.scopes, granted)) ctx.log.warn(line);
}

function printLoginLines(ctx: Context, r: LoginReport, granted: string[] | null): void {
  const isClient = r.creds.method === 'client_credentials';
  const who = isClient
    ? `client credentials (client ${r.creds.clientId}${r.clientAuth === 'basic' ? ', HTTP Basic' : ''})`
    : 'an API token';
  ctx.out.success(`Logged in to ${r.baseUrl} with ${who}; saved in profile ${r.profileName}`);
  if (isClient) ctx.out.info(`  granted scopes: ${granted?.length ? granted.join(' ') : '(not stated by the service)'}`);
  if (r.droppedIntegrationToken) {
    ctx.out.info(`  the profile's integration token was dropped (keep it with --keep-integration-token)`);
  }
}

/**
 * The secret of --with-token / --client-secret-stdin. Piped in, it is read from stdin; typed at a
 * terminal it would be echoed as typed, so it is asked with a hidden prompt instead (and refused
 * where no prompt can be shown).
 */
async function readSecret(ctx: Context, flag: string, message: string, pipeExample: string): Promise<string> {
  if (!ctx.io.stdinIsTTY) return readSecretFromStdin(ctx.io.stdin, flag, ctx.signal);
  if (!ctx.policy.canPrompt) {
    throw new UsageError('stdin is a terminal: typing the secret there would show it', `pipe it in: ${pipeExample}`);
  }
  const p = await ctx.prompter();
  return (await p.password({ message, validate: (v) => (v.trim() ? true : 'it cannot be empty') })).trim();
}

/**
 * An API token's scopes cannot be read back, so the check is a cheap request: 401 means the token
 * is wrong; a 2xx, or a 403 for a token without contacts_read, means it authenticates. Anything
 * else (a 404 from a wrong base URL, a 5xx) proves nothing, so nothing is saved.
 */
async function verifyApiToken(ctx: Context, baseUrl: string, token: string): Promise<void> {
  const { client, close } = await openClient(ctx, { baseUrl, credentials: { kind: 'api_token', token } });
  try {
    const res = await client.request({ method: 'GET', path: '/v1/contacts', query: { limit: '1' }, signal: ctx.signal });
    const kind = statusKind(res.status);
    if (kind === 'unauthorized') {
      // The service's code (unauthorized), as when the same token comes from SVC_TOKEN.
      const init = parseErrorBody(res.status, res.body, typeof res.body === 'string' ? res.body : '', res.headers);
      throw new CliError('the service rejected the API token (HTTP 401); nothing was saved', {
        exitCode: EXIT.auth,
        code: /^\d+$/.test(init.code) ? 'unauthorized' : init.code,
        hint: 'check the token, or create a new one in the dashboard',
        status: 401,
        requestId: init.requestId,
      });
    }
    if (kind !== 'ok' && kind !== 'created' && kind !== 'forbidden') {
      const init = parseErrorBody(res.status, res.body, typeof res.body === 'string' ? res.body : '', res.headers);
      throw new ApiError({
        ...init,
        method: 'GET',
        path: '/v1/contacts',
        message: `could not check the API token at ${baseUrl}: ${init.message}; nothing was saved${kind === 'not_found' ? wrongBaseUrl(baseUrl) : ''}`,
      });
    }
  } finally {
    await close();
  }
}

/** After a 404 on the token check: the base URL's likeliest mistake named (…/v1), else the question. */
function wrongBaseUrl(baseUrl: string): string {
  return /\/v1\/?$/i.test(new URL(baseUrl).pathname)
    ? " (does the base URL end in /v1? It must not: it is the service's root; svc adds /v1/… itself)"
    : ' (is the base URL right?)';
}
