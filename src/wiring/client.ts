/**
 * The one way a run gets an API client: resolves credentials and the base URL (flag > env >
 * profile), wires the store as the token cache, the logger to --debug and warnings, every secret
 * the client learns to the run's redactor, and with --sandbox starts the embedded sandbox and
 * remembers credentials for it. Takes only what it uses of the run (RunWiring), not the Context.
 */
import type { Credentials } from '../client/auth.js';
import { ServiceClient } from '../client/client.js';
import { ApiError, CredentialsError, NetworkError } from '../client/errors.js';
import { checkProxyUrl, displayProxy, type ProxySettings, proxyFor, proxySecrets, proxySettings } from '../client/proxy.js';
import type { ClientLogger } from '../client/types.js';
import { type ResolvedAuth, type ResolvedCredentials, resolveAuth } from '../store/credentials.js';
import { SettingsError } from '../store/errors.js';
import type { Redactor } from '../store/redact.js';
import { type Env, envValue, type GlobalFlags, isLoopbackHost, parseSeconds, type Settings, validateBaseUrl } from '../store/settings.js';
import type { CredentialStore } from '../store/store.js';
import { hostPort, probeListening } from '../util/tcp-probe.js';
import { createSandboxApp, EMBEDDED_SANDBOX_PROFILE, SANDBOX_PROFILE, startEmbeddedSandbox } from './sandbox.js';
import { profileTokenCache } from './token-cache.js';

declare const __SVC_VERSION__: string;

/** What building a client needs from the run (the Context provides all of it). */
export interface RunWiring {
  store(): Promise<CredentialStore>;
  settings: Pick<Settings, 'profile' | 'sandbox' | 'insecure' | 'debug' | 'maxRetryWaitMs'>;
  flags: GlobalFlags;
  env: Env;
  log: ClientLogger;
  now: () => number;
  random: () => number;
  /** Folder of the embedded sandbox's database. */
  dataDir: string;
  /** The run's redactor: every secret the client learns is registered there. */
  redactor: Redactor;
  /** Told where the run's credentials come from, so that a refusal can say what to check. */
  noteCredentials?(origin: CredentialOrigin): void;
}

/**
 * Where the credentials of a run's client come from, for the error messages (main.ts): the
 * environment (which variables), a profile (and whether it is the one `svc sandbox start --seed`
 * saved, whose credentials a reset of that sandbox deletes), or the embedded sandbox.
 */
export interface CredentialOrigin {
  source: 'env' | 'profile' | 'embedded_sandbox';
  method: 'api_token' | 'client_credentials';
  /** SVC_TOKEN, SVC_CLIENT_ID/SVC_CLIENT_SECRET, or `profile`. */
  sourceName: string;
  profile: string;
  /** The `sandbox` profile, pointing at a sandbox on this machine. */
  seededSandbox: boolean;
  baseUrl: string;
  /** Where the base URL came from (--base-url, SVC_BASE_URL or the profile), for connection errors. */
  baseUrlSource?: string;
  /** The scopes the profile's login asked for (client credentials; absent: everything the application has). */
  requestedScopes?: string[];
}

/** A client for a run, with what closing it releases (its pool; with --sandbox the sandbox too). */
export interface OpenedClient {
  /** The concrete client: the auth commands read its token provider. */
  client: ServiceClient;
  /** The resolved credentials and base URL (absent with --sandbox and with given credentials). */
  auth?: ResolvedAuth;
  close(): Promise<void>;
}

/** Credentials to use instead of the run's (auth login checks new ones before saving them). */
export interface GivenCredentials {
  baseUrl: string;
  credentials: Credentials;
}

/**
 * Opens the client for a run: with `given`, for exactly those credentials; otherwise the embedded
 * sandbox's with --sandbox, else the resolved ones (flag > env > profile).
 */
export async function openClient(run: RunWiring, given?: GivenCredentials): Promise<OpenedClient> {
  if (given) return opened(newClient(run, given.baseUrl, given.credentials));
  if (run.settings.sandbox) return openSandboxClient(run);
  const store = await run.store();
  const auth = resolveRunAuth(run, store);
  if (!auth.credentials) {
    throw new CredentialsError(
      `not logged in (profile ${auth.profileName})`,
      `run \`${loginCommand(auth.profileName)}\`, set SVC_TOKEN or SVC_CLIENT_ID/SVC_CLIENT_SECRET, or use --sandbox`,
    );
  }
  if (!auth.baseUrl) {
    throw new CredentialsError(
      `no service address for profile ${auth.profileName}`,
      'pass --base-url, set SVC_BASE_URL, or `svc auth login --base-url URL`',
    );
  }
  const baseUrl = validateBaseUrl(auth.baseUrl, run.settings.insecure);
  warnIfPlainHttp(run, baseUrl);
  const seededSandbox =
    auth.credentials.source === 'profile' &&
    (auth.profileName === SANDBOX_PROFILE || auth.profile?.seeded_sandbox === true) &&
    isLoopbackHost(new URL(baseUrl).hostname);
  run.noteCredentials?.({
    source: auth.credentials.source,
    method: auth.credentials.method,
    sourceName: auth.credentials.sourceName,
    profile: auth.profileName,
    seededSandbox,
    baseUrl,
    baseUrlSource: auth.baseUrlSource,
    requestedScopes: auth.credentials.method === 'client_credentials' ? auth.credentials.scopes : undefined,
  });
  if (seededSandbox && auth.baseUrlSource === 'profile') await checkSandboxRunning(baseUrl);
  const client = newClient(run, baseUrl, clientCredentials(auth.credentials, store, auth.profileName));
  return { ...opened(client), auth };
}

/**
 * The sandbox a seeded profile names, on this machine, refuses connections: it is not running.
 * Said at once rather than after the client's eight connection attempts (some 10 s). Only at the
 * start of a run: a sandbox that stops during a bulk run is an outage, waited out.
 */
async function checkSandboxRunning(baseUrl: string): Promise<void> {
  const { host, port } = hostPort(baseUrl);
  if ((await probeListening(host, port)) !== 'refused') return;
  throw new NetworkError(`the sandbox at ${baseUrl} is not running: start it with \`svc sandbox start\``, {
    kind: 'refused',
    sent: false,
  });
}

/** The login that fills the profile `name` (the default profile's needs no --profile). */
export function loginCommand(name: string): string {
  return name === 'default' ? 'svc auth login' : `svc auth login --profile ${name}`;
}

/** The run's credentials and base URL (flag > env > profile); the secrets among them go to its redactor. */
export function resolveRunAuth(run: Pick<RunWiring, 'flags' | 'env' | 'settings' | 'redactor'>, store: CredentialStore): ResolvedAuth {
  return resolveAuth({
    flags: run.flags,
    env: run.env,
    profileName: run.settings.profile,
    store,
    onSecret: (s) => run.redactor.add(s),
  });
}

/** --insecure let plain http:// through to a host that is not loopback: say what that means, once. */
export function warnIfPlainHttp(run: Pick<RunWiring, 'log'>, baseUrl: string): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    run.log.warn(`--insecure: credentials and data travel unencrypted to ${url.host}`);
  }
}

/** The client's credentials for resolved ones (profile credentials get the store as token cache). */
function clientCredentials(resolved: ResolvedCredentials, store: CredentialStore, profileName: string): Credentials {
  if (resolved.method === 'api_token') return { kind: 'api_token', token: resolved.token };
  return {
    kind: 'client_credentials',
    clientId: resolved.clientId,
    clientSecret: resolved.clientSecret,
    clientAuth: resolved.clientAuth,
    scopes: resolved.scopes,
    // Env credentials (CI) keep their token in memory only: nothing of them is written to disk.
    cache: resolved.source === 'profile' ? profileTokenCache(store, profileName, resolved.clientId) : undefined,
  };
}

function userAgent(): string {
  const version = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : 'dev';
  return `svc/${version} (node ${process.versions.node})`;
}

/**
 * The run's proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, lower-case forms first), checked;
 * the proxy's password goes to the run's redactor. Undefined when no proxy is set.
 */
export function runProxy(run: Pick<RunWiring, 'env' | 'redactor'>): ProxySettings | undefined {
  const settings = proxySettings(run.env);
  if (settings === undefined) return undefined;
  for (const [url, name] of [
    [settings.httpsProxy, run.env.https_proxy?.trim() ? 'https_proxy' : 'HTTPS_PROXY'],
    [settings.httpProxy, run.env.http_proxy?.trim() ? 'http_proxy' : 'HTTP_PROXY'],
  ] as const) {
    if (url === undefined) continue;
    for (const secret of proxySecrets(url)) run.redactor.add(secret);
    const problem = checkProxyUrl(url, name);
    if (problem !== undefined) throw new SettingsError(problem);
  }
  return settings;
}

/**
 * What `svc auth status` says of the proxy for a base URL: undefined without proxy variables;
 * else the proxy (scheme, host and port, no credentials) and the variable it comes from, or
 * `bypassed` when NO_PROXY lists the host.
 */
export function proxyInUse(
  run: Pick<RunWiring, 'env' | 'redactor'>,
  baseUrl: string,
): { proxy: string; variable: string } | { bypassed: true } | undefined {
  const settings = runProxy(run);
  if (settings === undefined) return undefined;
  const proxy = proxyFor(baseUrl, settings);
  if (proxy === undefined) return { bypassed: true };
  const env = run.env;
  const https = new URL(baseUrl).protocol === 'https:' && settings.httpsProxy !== undefined;
  const variable = https ? (env.https_proxy?.trim() ? 'https_proxy' : 'HTTPS_PROXY') : env.http_proxy?.trim() ? 'http_proxy' : 'HTTP_PROXY';
  return { proxy: displayProxy(proxy), variable };
}

/** SVC_REQUEST_TIMEOUT: the longest one attempt may take (the client's default when unset). */
function requestTimeoutMs(env: Env): number | undefined {
  const raw = envValue(env, 'SVC_REQUEST_TIMEOUT');
  if (raw === undefined) return undefined;
  const ms = parseSeconds(raw, 'SVC_REQUEST_TIMEOUT');
  if (ms <= 0) throw new SettingsError('SVC_REQUEST_TIMEOUT must be more than 0 seconds');
  return ms;
}

/** SVC_REQUEST_PATIENCE: how long a call waits with no answer at all (the client's 60 s when unset). */
function patienceMs(env: Env): number | undefined {
  const raw = envValue(env, 'SVC_REQUEST_PATIENCE');
  if (raw === undefined) return undefined;
  const ms = parseSeconds(raw, 'SVC_REQUEST_PATIENCE');
  if (ms <= 0) throw new SettingsError('SVC_REQUEST_PATIENCE must be more than 0 seconds');
  return ms;
}

/**
 * The one place a client is constructed: options common to every client of the run. `direct`:
 * no proxy (the embedded sandbox, in this process, on loopback).
 */
function newClient(run: RunWiring, baseUrl: string, credentials: Credentials, direct = false): ServiceClient {
  return new ServiceClient({
    proxy: direct ? undefined : runProxy(run),
    requestTimeoutMs: requestTimeoutMs(run.env),
    patienceMs: patienceMs(run.env),
    baseUrl,
    credentials,
    logger: run.log,
    debug: run.settings.debug,
    maxRetryWaitMs: run.settings.maxRetryWaitMs,
    now: run.now,
    random: run.random,
    userAgent: userAgent(),
    onSecret: (s: string) => run.redactor.add(s),
  });
}

function opened(client: ServiceClient): OpenedClient {
  return { client, close: () => client.close() };
}

/**
 * --sandbox: starts the sandbox in-process, creates an application with every scope on first use
 * (remembered in the `embedded-sandbox` profile), and returns a client whose close stops the sandbox.
 */
async function openSandboxClient(run: RunWiring): Promise<OpenedClient> {
  const sandbox = await startEmbeddedSandbox(run.dataDir);
  try {
    const store = await run.store();
    const build = (clientId: string, clientSecret: string) =>
      newClient(
        run,
        sandbox.baseUrl,
        {
          kind: 'client_credentials',
          clientId,
          clientSecret,
          cache: profileTokenCache(store, EMBEDDED_SANDBOX_PROFILE, clientId),
        },
        true,
      );
    const withSandbox = (client: ServiceClient): OpenedClient => ({
      client,
      close: async () => {
        await client.close();
        await sandbox.close();
      },
    });
    let profile = store.getProfile(EMBEDDED_SANDBOX_PROFILE);
    if (profile?.client_id && profile.client_secret) {
      const client = build(profile.client_id, profile.client_secret);
      try {
        await client.accessToken();
        return withSandbox(client);
      } catch (err) {
        // The database was removed since: the remembered application is gone. Create a new one.
        if (!(err instanceof ApiError && err.code === 'invalid_client')) throw err;
        await client.close();
      }
    }
    const app = await createSandboxApp(sandbox.baseUrl, run.redactor);
    profile = { auth_method: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret };
    store.setProfile(EMBEDDED_SANDBOX_PROFILE, profile);
    return withSandbox(build(app.client_id, app.client_secret));
  } catch (err) {
    await sandbox.close().catch(() => undefined);
    throw err;
  }
}
