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
  /** false with --no-pager. */
  pager?: boolean;
  quiet?: boolean;
  insecure?: boolean;
  maxRetryWait?: string;
  maxOutage?: string;
}

/** Where the run's profile name came from; `store` is the default saved by `svc auth switch`. */
export type ProfileSource = 'flag' | 'env' | 'store' | 'default';

export interface Settings {
  profile: string;
  profileSource: ProfileSource;
  sandbox: boolean;
  json: boolean;
  debug: boolean;
  color: boolean;
  /** Long output at a terminal may go through the pager (false with --no-pager). */
  pager: boolean;
  quiet: boolean;
  insecure: boolean;
  /** Longest wait a Retry-After may ask for before the request fails instead (ms). */
  maxRetryWaitMs: number;
  /** Longest outage a bulk run waits out before it stops, journal kept (ms). */
  maxOutageMs: number;
}

export const DEFAULT_PROFILE = 'default';
/** The longest outage a bulk run waits out by default (--max-outage). */
export const DEFAULT_MAX_OUTAGE_MS = 15 * 60_000;
export const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;

export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** What an HTTP header value can carry: tab, space, visible ASCII and Latin-1 (undici's and Node's rule). */
const UNSENDABLE_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/;
/** Control characters (C0 but tab, DEL): never part of a credential, wherever it is sent. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * Refuses a credential that can never be sent as it is (a line break in the middle, a pasted
 * escape): a SettingsError naming `what` (the variable or flag) and the position, never the value.
 * `header` also refuses what a header cannot carry (characters beyond Latin-1).
 */
export function checkCredentialText(value: string, what: string, header = true): void {
  const m = (header ? UNSENDABLE_IN_HEADER : CONTROL).exec(value);
  if (!m) return;
  const code = (m[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  throw new SettingsError(
    `${what} holds a character that cannot be sent (U+${code} at position ${m.index + 1} of ${value.length})`,
    `set ${what} again without it (a line break or a control character pasted with the value?)`,
  );
}

/**
 * A credential read from the environment: surrounding whitespace (the trailing newline of
 * `$(cat file)` or of a secret manager) removed, as the stdin login path does; empty counts as
 * unset; a character that cannot be sent is a SettingsError naming the variable.
 */
export function envCredential(env: Env, name: string, header = true): string | undefined {
  const v = envValue(env, name)?.trim();
  if (!v) return undefined;
  checkCredentialText(v, name, header);
  return v;
}

function envFlag(env: Env, name: string): boolean | undefined {
  const v = envValue(env, name);
  if (v === undefined) return undefined;
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

/**
 * Node's timers hold at most 2^31−1 ms (about 24.8 days); a longer setTimeout fires at once. Every
 * wait a run may make stays within this many whole seconds.
 */
export const MAX_WAIT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * Parses a duration: a number of seconds (`90`, `1.5`, `1e3`, `90s`), or with a unit (`2m`,
 * `500ms`), to milliseconds; at most MAX_WAIT_SECONDS, said in the error.
 */
export function parseSeconds(value: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?(?:e[+-]?\d+)?)(ms|s|m)?$/i.exec(value.trim());
  if (!m) throw new SettingsError(`${what} must be a number of seconds, got ${JSON.stringify(value)}`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 's').toLowerCase();
  const ms = unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000;
  if (!(ms <= MAX_WAIT_SECONDS * 1000)) {
    throw new SettingsError(
      `${what} must be at most ${MAX_WAIT_SECONDS} seconds (about 24 days, the longest wait Node's timers hold), got ${JSON.stringify(value)}`,
    );
  }
  return Math.round(ms);
}

/**
 * `storedDefault` reads the default profile saved by `svc auth switch`; it is asked only when
 * neither --profile nor SVC_PROFILE names one.
 */
export function resolveSettings(flags: GlobalFlags, env: Env, storedDefault: () => string | undefined = () => undefined): Settings {
  return {
    ...resolveProfile(flags, env, storedDefault),
    sandbox: flags.sandbox === true || envFlag(env, 'SVC_SANDBOX') === true,
    json: flags.json === true,
    debug: flags.debug === true || envFlag(env, 'SVC_DEBUG') === true,
    color: flags.color !== false && envValue(env, 'NO_COLOR') === undefined,
    pager: flags.pager !== false,
    quiet: flags.quiet === true,
    insecure: flags.insecure === true,
    maxRetryWaitMs: durationSetting(flags.maxRetryWait, '--max-retry-wait', env, 'SVC_MAX_RETRY_WAIT', DEFAULT_MAX_RETRY_WAIT_MS),
    maxOutageMs: durationSetting(flags.maxOutage, '--max-outage', env, 'SVC_MAX_OUTAGE', DEFAULT_MAX_OUTAGE_MS),
  };
}

/** The profile of the run and where its name came from: --profile > SVC_PROFILE > the stored default > `default`. */
function resolveProfile(
  flags: GlobalFlags,
  env: Env,
  storedDefault: () => string | undefined,
): Pick<Settings, 'profile' | 'profileSource'> {
  const profileFlag = flags.profile;
  const profileEnv = envValue(env, 'SVC_PROFILE');
  const profileStored = profileFlag || profileEnv ? undefined : storedDefault();
  return {
    profile: profileFlag ?? profileEnv ?? profileStored ?? DEFAULT_PROFILE,
    profileSource: profileFlag ? 'flag' : profileEnv ? 'env' : profileStored ? 'store' : 'default',
  };
}

/** A duration from its flag, else its variable, in ms (a bad value named by where it came from); else the default. */
function durationSetting(flag: string | undefined, flagName: string, env: Env, variable: string, fallback: number): number {
  const given = flag ?? envValue(env, variable);
  return given ? parseSeconds(given, flag !== undefined ? flagName : variable) : fallback;
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
  return pick(flags.baseUrl?.trim() || undefined, envValue(env, 'SVC_BASE_URL')?.trim() || undefined, profile?.base_url);
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
  // URL parsing would silently drop a tab or line break inside: refuse it instead.
  if (/[\x00-\x1f\x7f]/.test(raw.trim())) {
    throw new SettingsError(
      `the base URL holds a control character: ${JSON.stringify(raw)}`,
      'give an address such as https://api.example.com',
    );
  }
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
