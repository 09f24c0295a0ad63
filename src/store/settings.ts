/**
 * Resolves the global settings with the contract's precedence: flag > environment > profile in
 * the store > default. An environment variable set to the empty string counts as unset.
 */
import { SettingsError } from './errors.js';
import type { Profile } from './store.js';

export type Env = Record<string, string | undefined>;
export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

/** Global flags as commander parsed them (undefined when not given). */
export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  sandbox?: boolean;
  json?: boolean;
  debug?: boolean;
  /** false with --no-color. */
  color?: boolean;
  quiet?: boolean;
  insecure?: boolean;
  maxRetryWait?: string;
}

export interface Settings {
  profile: string;
  profileSource: SettingSource;
  sandbox: boolean;
  json: boolean;
  debug: boolean;
  color: boolean;
  quiet: boolean;
  insecure: boolean;
  /** Longest wait a Retry-After may ask for before the request fails instead (ms). */
  maxRetryWaitMs: number;
}

export const DEFAULT_PROFILE = 'default';
export const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;

export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function envFlag(env: Env, name: string): boolean | undefined {
  const v = envValue(env, name);
  if (v === undefined) return undefined;
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

/** Parses a duration in seconds (`90`, `90s`, `2m`) to milliseconds. */
export function parseSeconds(value: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new SettingsError(`${what} must be a number of seconds, got ${JSON.stringify(value)}`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000);
}

export function resolveSettings(flags: GlobalFlags, env: Env): Settings {
  const profileFlag = flags.profile;
  const profileEnv = envValue(env, 'SVC_PROFILE');
  const maxWait = flags.maxRetryWait ?? envValue(env, 'SVC_MAX_RETRY_WAIT');
  return {
    profile: profileFlag ?? profileEnv ?? DEFAULT_PROFILE,
    profileSource: profileFlag ? 'flag' : profileEnv ? 'env' : 'default',
    sandbox: flags.sandbox === true || envFlag(env, 'SVC_SANDBOX') === true,
    json: flags.json === true,
    debug: flags.debug === true || envFlag(env, 'SVC_DEBUG') === true,
    color: flags.color !== false && envValue(env, 'NO_COLOR') === undefined,
    quiet: flags.quiet === true,
    insecure: flags.insecure === true,
    maxRetryWaitMs: maxWait ? parseSeconds(maxWait, '--max-retry-wait') : DEFAULT_MAX_RETRY_WAIT_MS,
  };
}

/** Resolves a per-profile value: flag > env > profile > default, with its source. */
export function pick<T>(
  flag: T | undefined,
  env: T | undefined,
  profile: T | undefined,
  fallback?: T,
): { value: T | undefined; source: SettingSource } {
  if (flag !== undefined) return { value: flag, source: 'flag' };
  if (env !== undefined) return { value: env, source: 'env' };
  if (profile !== undefined) return { value: profile, source: 'profile' };
  return { value: fallback, source: 'default' };
}

/** The base URL for a run: --base-url > SVC_BASE_URL > profile's base_url. */
export function resolveBaseUrl(
  flags: GlobalFlags,
  env: Env,
  profile: Profile | undefined,
): { value: string | undefined; source: SettingSource } {
  return pick(flags.baseUrl, envValue(env, 'SVC_BASE_URL'), profile?.base_url);
}

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(h) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}

/**
 * Checks a base URL: http(s) only, no credentials in it, and plain http only for loopback unless
 * --insecure. Returns it without a trailing slash.
 */
export function validateBaseUrl(raw: string, insecure: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(`invalid base URL ${JSON.stringify(raw)}`, 'give an address such as https://api.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SettingsError(`unsupported scheme in base URL: ${url.protocol}`, 'use https://');
  }
  if (url.username || url.password) {
    throw new SettingsError(
      'the base URL must not contain credentials',
      'use `svc auth login` or the SVC_TOKEN / SVC_CLIENT_ID / SVC_CLIENT_SECRET variables',
    );
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !insecure) {
    throw new SettingsError(
      `refusing plain http:// to ${url.hostname}: credentials would travel unencrypted`,
      'use https://, or pass --insecure if you really mean it',
    );
  }
  return url.toString().replace(/\/+$/, '');
}
