/**
 * Where a run's credentials and service address come from, with the contract's precedence:
 * SVC_TOKEN, then SVC_CLIENT_ID/SVC_CLIENT_SECRET, then the profile's stored credentials; the base
 * URL from --base-url, SVC_BASE_URL, then the profile.
 */
import { parseScopeString } from '../contract/scopes.js';
import { SettingsError } from './errors.js';
import { type Env, envCredential, envValue, type GlobalFlags, resolveBaseUrl, type SettingSource } from './settings.js';
import type { AuthMethod, ClientAuthStyle, CredentialStore, Profile } from './store.js';

export type CredentialSource = 'env' | 'profile';

export type ResolvedCredentials =
  | { method: 'api_token'; source: CredentialSource; token: string; sourceName: string }
  | {
      method: 'client_credentials';
      source: CredentialSource;
      sourceName: string;
      clientId: string;
      clientSecret: string;
      clientAuth: ClientAuthStyle;
      scopes?: string[];
    };

export interface ResolvedAuth {
  profileName: string;
  profile: Profile | undefined;
  baseUrl: string | undefined;
  baseUrlSource: SettingSource;
  credentials: ResolvedCredentials | undefined;
}

/** Splits a scope list given with spaces and/or commas. */
export function parseScopeList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = parseScopeString(value.replace(/,/g, ' '));
  return list.length ? [...new Set(list)] : undefined;
}

function clientAuthFrom(value: string | undefined, what: string): ClientAuthStyle | undefined {
  if (value === undefined) return undefined;
  const v = value.toLowerCase();
  if (v === 'basic' || v === 'client_secret_basic') return 'basic';
  if (v === 'post' || v === 'client_secret_post') return 'post';
  throw new SettingsError(`${what} must be "post" or "basic", got ${JSON.stringify(value)}`);
}

/** Called with every secret value read from the environment (the run's redactor learns them). */
export type OnSecret = (secret: string) => void;

/** Resolves the credentials and base URL for a run (nothing is sent). */
export function resolveAuth(args: {
  flags: GlobalFlags;
  env: Env;
  profileName: string;
  store: CredentialStore;
  onSecret?: OnSecret;
}): ResolvedAuth {
  const { env, flags, profileName, store } = args;
  const profile = store.getProfile(profileName);
  const base = resolveBaseUrl(flags, env, profile);
  return {
    profileName,
    profile,
    baseUrl: base.value,
    baseUrlSource: base.source,
    credentials: resolveCredentials(env, profile, args.onSecret),
  };
}

/** SVC_TOKEN > SVC_CLIENT_ID + SVC_CLIENT_SECRET > the profile's API token or client credentials. */
export function resolveCredentials(env: Env, profile: Profile | undefined, onSecret?: OnSecret): ResolvedCredentials | undefined {
  const envToken = envCredential(env, 'SVC_TOKEN');
  if (envToken) {
    onSecret?.(envToken);
    return { method: 'api_token', source: 'env', sourceName: 'SVC_TOKEN', token: envToken };
  }
  return envClientCredentials(env, onSecret) ?? (profile ? profileCredentials(profile) : undefined);
}

/** SVC_CLIENT_ID + SVC_CLIENT_SECRET (one without the other is an error), with SVC_CLIENT_AUTH and SVC_SCOPES. */
function envClientCredentials(env: Env, onSecret?: OnSecret): ResolvedCredentials | undefined {
  // The id and secret travel in the form body or Basic auth (base64): only control characters are refused.
  const envId = envCredential(env, 'SVC_CLIENT_ID', false);
  const envSecret = envCredential(env, 'SVC_CLIENT_SECRET', false);
  if (envSecret) onSecret?.(envSecret);
  if (!envId && !envSecret) return undefined;
  if (!envId || !envSecret) {
    throw new SettingsError(
      `${envId ? 'SVC_CLIENT_ID' : 'SVC_CLIENT_SECRET'} is set but ${envId ? 'SVC_CLIENT_SECRET' : 'SVC_CLIENT_ID'} is not`,
      'set both SVC_CLIENT_ID and SVC_CLIENT_SECRET, or neither',
    );
  }
  return {
    method: 'client_credentials',
    source: 'env',
    sourceName: 'SVC_CLIENT_ID/SVC_CLIENT_SECRET',
    clientId: envId,
    clientSecret: envSecret,
    clientAuth: clientAuthFrom(envValue(env, 'SVC_CLIENT_AUTH'), 'SVC_CLIENT_AUTH') ?? 'post',
    scopes: parseScopeList(envValue(env, 'SVC_SCOPES')),
  };
}

/** The profile's API token or client credentials, when complete. */
function profileCredentials(profile: Profile): ResolvedCredentials | undefined {
  const method: AuthMethod | undefined =
    profile.auth_method ?? (profile.api_token ? 'api_token' : profile.client_id ? 'client_credentials' : undefined);
  if (method === 'api_token' && profile.api_token) {
    return { method, source: 'profile', sourceName: 'profile', token: profile.api_token };
  }
  if (method === 'client_credentials' && profile.client_id && profile.client_secret) {
    return {
      method,
      source: 'profile',
      sourceName: 'profile',
      clientId: profile.client_id,
      clientSecret: profile.client_secret,
      clientAuth: profile.client_auth ?? 'post',
      scopes: profile.requested_scopes?.length ? profile.requested_scopes : undefined,
    };
  }
  return undefined;
}

/** Removes a profile's credentials and cached token, keeping its base URL and preferences. */
export const CREDENTIAL_FIELDS = [
  'auth_method',
  'client_id',
  'client_secret',
  'client_auth',
  'api_token',
  'requested_scopes',
  'access_token',
  'access_token_expires_at',
  'access_token_issued_at',
  'granted_scopes',
  'integration_token',
  'seeded_sandbox',
] as const satisfies ReadonlyArray<keyof Profile>;

/** A patch clearing every credential field (for logout and before a new login). */
export function clearedCredentials(): Partial<Profile> {
  const patch: Partial<Profile> = {};
  for (const f of CREDENTIAL_FIELDS) (patch as Record<string, undefined>)[f] = undefined;
  return patch;
}
