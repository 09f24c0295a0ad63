/**
 * Builds the API client for a run: resolves credentials and the base URL (flag > env > profile),
 * wires the store as the token cache, the logger to --debug and warnings, and with --sandbox
 * starts the embedded sandbox and remembers credentials for it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { request as undiciRequest } from 'undici';
import type { Context } from '../context.js';
import { SCOPES } from '../contract/scopes.js';
import { type ResolvedAuth, type ResolvedCredentials, resolveAuth } from '../store/credentials.js';
import { redactor } from '../store/redact.js';
import { isLoopbackHost, validateBaseUrl } from '../store/settings.js';
import type { CredentialStore } from '../store/store.js';
import type { Credentials, TokenCache } from './auth.js';
import { ServiceClient } from './client.js';
import { ApiError, CredentialsError } from './errors.js';
import type { ApiClient } from './types.js';

declare const __SVC_VERSION__: string;

/** The profile that holds the credentials of the embedded sandbox (its database file persists, so do they). */
export const EMBEDDED_SANDBOX_PROFILE = 'embedded-sandbox';

/** Caches a profile's access token in the store, for the client id it was issued to. */
export function profileTokenCache(store: CredentialStore, profileName: string, clientId: string): TokenCache {
  return {
    load() {
      const p = store.getProfile(profileName);
      if (!p?.access_token || !p.access_token_expires_at || p.client_id !== clientId) return undefined;
      return {
        accessToken: p.access_token,
        expiresAt: p.access_token_expires_at,
        issuedAt: p.access_token_issued_at,
        scopes: p.granted_scopes,
      };
    },
    save(t) {
      const p = store.getProfile(profileName);
      if (!p || p.client_id !== clientId) return;
      store.updateProfile(profileName, {
        access_token: t.accessToken,
        access_token_expires_at: t.expiresAt,
        access_token_issued_at: t.issuedAt,
        granted_scopes: t.scopes,
      });
    },
  };
}

/** The client's credentials for resolved ones (profile credentials get the store as token cache). */
export function clientCredentials(resolved: ResolvedCredentials, store: CredentialStore, profileName: string): Credentials {
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

/** --insecure let plain http:// through to a host that is not loopback: say what that means, once. */
export function warnIfPlainHttp(ctx: Context, baseUrl: string): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    ctx.log.warn(`--insecure: credentials and data travel unencrypted to ${url.host}`);
  }
}

/** Client options common to every run of this context. */
export function baseClientOptions(ctx: Context) {
  return {
    logger: ctx.log,
    debug: ctx.settings.debug,
    maxRetryWaitMs: ctx.settings.maxRetryWaitMs,
    now: ctx.now,
    random: ctx.random,
    userAgent: userAgent(),
    onSecret: (s: string) => redactor.add(s),
  };
}

export interface BuiltClient {
  client: ServiceClient;
  auth: ResolvedAuth;
}

/** Builds the concrete client (the auth commands need its token provider), without --sandbox. */
export async function buildServiceClient(ctx: Context): Promise<BuiltClient> {
  const store = await ctx.store();
  const auth = resolveAuth({ flags: ctx.flags, env: ctx.env, profileName: ctx.settings.profile, store });
  if (!auth.credentials) {
    throw new CredentialsError(
      `not logged in (profile ${auth.profileName})`,
      'run `svc auth login`, set SVC_TOKEN or SVC_CLIENT_ID/SVC_CLIENT_SECRET, or use --sandbox',
    );
  }
  if (!auth.baseUrl) {
    throw new CredentialsError(
      `no service address for profile ${auth.profileName}`,
      'pass --base-url, set SVC_BASE_URL, or `svc auth login --base-url URL`',
    );
  }
  const baseUrl = validateBaseUrl(auth.baseUrl, ctx.settings.insecure);
  warnIfPlainHttp(ctx, baseUrl);
  const client = new ServiceClient({
    ...baseClientOptions(ctx),
    baseUrl,
    credentials: clientCredentials(auth.credentials, store, auth.profileName),
  });
  return { client, auth };
}

interface SandboxHandle {
  baseUrl: string;
  close(): Promise<void>;
}
interface SandboxModule {
  startSandbox(opts: { port: number; host?: string; db: string; tokenTtlSeconds?: number }): Promise<SandboxHandle>;
}

async function createSandboxApp(baseUrl: string): Promise<{ client_id: string; client_secret: string }> {
  const res = await undiciRequest(`${baseUrl}/_sandbox/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'svc --sandbox', scopes: [...SCOPES] }),
  });
  const body = (await res.body.json()) as { client_id?: string; client_secret?: string };
  if (res.statusCode >= 300 || !body.client_id || !body.client_secret) {
    throw new ApiError({
      status: res.statusCode,
      code: 'sandbox_setup_failed',
      message: 'the embedded sandbox did not create an application',
    });
  }
  redactor.add(body.client_secret);
  return { client_id: body.client_id, client_secret: body.client_secret };
}

/**
 * --sandbox: starts the sandbox in-process on a free loopback port with its database in the data
 * folder, creates an application with every scope on first use (remembered in the
 * `embedded-sandbox` profile), and returns a client that stops the sandbox when closed.
 */
export async function buildSandboxClient(ctx: Context): Promise<{ client: ServiceClient; close: () => Promise<void> }> {
  mkdirSync(ctx.dataDir, { recursive: true, mode: 0o700 });
  const mod = (await import('../sandbox/index.js')) as unknown as SandboxModule;
  const sandbox = await mod.startSandbox({ port: 0, db: join(ctx.dataDir, 'sandbox.db') });
  try {
    const store = await ctx.store();
    const build = (clientId: string, clientSecret: string) =>
      new ServiceClient({
        ...baseClientOptions(ctx),
        baseUrl: sandbox.baseUrl,
        credentials: {
          kind: 'client_credentials',
          clientId,
          clientSecret,
          cache: profileTokenCache(store, EMBEDDED_SANDBOX_PROFILE, clientId),
        },
      });
    const withSandbox = (client: ServiceClient) => ({
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
    const app = await createSandboxApp(sandbox.baseUrl);
    profile = { auth_method: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret };
    store.setProfile(EMBEDDED_SANDBOX_PROFILE, profile);
    return withSandbox(build(app.client_id, app.client_secret));
  } catch (err) {
    await sandbox.close().catch(() => undefined);
    throw err;
  }
}

/** Builds the API client for a run. */
export async function createClientForContext(ctx: Context): Promise<{ client: ApiClient; close: () => Promise<void> }> {
  if (ctx.settings.sandbox) return buildSandboxClient(ctx);
  const { client } = await buildServiceClient(ctx);
  return { client, close: () => client.close() };
}
