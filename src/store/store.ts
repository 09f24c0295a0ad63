/**
 * The credential store: one JSON file (conf, atomic writes) holding named profiles, readable by
 * its owner only (file 0600, folder 0700). Every change reads the file afresh, changes it and
 * writes it under the store's lock (store-lock.ts), so concurrent processes lose no write.
 */
import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Conf from 'conf';
import { StoreError } from './errors.js';
import { storeFile } from './paths.js';
import { withStoreLock, withStoreLockSync } from './store-lock.js';

export type AuthMethod = 'api_token' | 'client_credentials';
/** How the client secret travels to the token endpoint: form body (client_secret_post) or HTTP Basic. */
export type ClientAuthStyle = 'post' | 'basic';

export interface Profile {
  base_url?: string;
  auth_method?: AuthMethod;
  client_id?: string;
  client_secret?: string;
  client_auth?: ClientAuthStyle;
  api_token?: string;
  /** Scopes asked for at login (client credentials). */
  requested_scopes?: string[];
  /** Cached access token from client credentials, its expiry (epoch ms) and granted scopes. */
  access_token?: string;
  access_token_expires_at?: number;
  /** When the cached access token was issued (epoch ms), to renew it a tenth of its lifetime early. */
  access_token_issued_at?: number;
  granted_scopes?: string[];
  /** Default country for phone numbers typed without a country code (ISO 3166 alpha-2). */
  default_country?: string;
  /** Integration token for order requests (sent as X-Service-Integration-Token). */
  integration_token?: string;
  /** Written by `svc sandbox start --seed` / `reset --seed`: the profile of a sandbox on this machine. */
  seeded_sandbox?: boolean;
}

interface StoreShape {
  profiles: Record<string, Profile>;
  /** The profile used when neither --profile nor SVC_PROFILE names one (`svc auth switch`). */
  default_profile?: string;
  /** Admin tokens of sandboxes started with --admin-token, by base URL, for `svc sandbox …` commands. */
  sandbox_admin_tokens?: Record<string, string>;
}

/**
 * conf (with ajv) costs about 100 ms to load: it is required (Node >= 20.19 loads ES modules with
 * require) only when a credentials file exists or is about to be written, so a CI run with
 * SVC_TOKEN and no store does not pay for it.
 */
function loadConf(): typeof Conf {
  return (createRequire(import.meta.url)('conf') as { default: typeof Conf }).default;
}

export const SECRET_PROFILE_FIELDS = ['client_secret', 'api_token', 'access_token', 'integration_token'] as const;

function tightenFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  const ownedByUs = typeof process.getuid !== 'function' || st.uid === process.getuid();
  const sticky = (st.mode & 0o1000) !== 0;
  if (ownedByUs && !sticky && (st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export class CredentialStore {
  private confInstance: Conf<StoreShape> | undefined;
  readonly dir: string;
  readonly path: string;
  private readonly onSecret: ((secret: string) => void) | undefined;

  /**
   * Touches nothing on disk: the folder and file are created on the first write. `onSecret` hears
   * every secret a profile read from the file holds (the run's redactor learns them).
   */
  constructor(dir: string, opts: { onSecret?: (secret: string) => void } = {}) {
    this.dir = dir;
    this.onSecret = opts.onSecret;
    this.path = storeFile(dir);
    // An existing file is opened at once, so a broken one is reported before any request.
    if (existsSync(this.path)) this.open();
  }

  /**
   * The conf instance, opened on first need. A run that only reads (SVC_TOKEN in CI, no login)
   * leaves no folder or file behind.
   */
  private get conf(): Conf<StoreShape> {
    return this.open();
  }

  private open(): Conf<StoreShape> {
    if (this.confInstance) return this.confInstance;
    tightenFolder(this.dir);
    try {
      const ConfClass = loadConf();
      this.confInstance = new ConfClass<StoreShape>({
        cwd: this.dir,
        configName: 'credentials',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
      });
    } catch (err) {
      // A hand-edited or truncated file: say which file and what to do, not "unexpected error".
      if (!(err instanceof SyntaxError)) throw err;
      throw new StoreError('invalid_file', this.path, `the credential store ${this.path} is not valid JSON (${err.message})`, {
        cause: err,
      });
    }
    // conf keeps an existing file's mode; make sure an older or hand-made file is private too.
    try {
      chmodSync(this.path, 0o600);
    } catch {
      /* the file is created on first write, with 0600 */
    }
    return this.confInstance;
  }

  /** Every profile, read fresh from disk (another process may have renewed a token). */
  private profiles(): Record<string, Profile> {
    if (!this.confInstance && !existsSync(this.path)) return {};
    return { ...(this.conf.get('profiles') ?? {}) };
  }

  /** The profile `svc auth switch` made the default, if any. */
  defaultProfile(): string | undefined {
    if (!this.confInstance && !existsSync(this.path)) return undefined;
    const name = this.conf.get('default_profile');
    return typeof name === 'string' && name !== '' ? name : undefined;
  }

  setDefaultProfile(name: string): void {
    this.locked(() => this.conf.set('default_profile', name));
  }

  /** Runs a read-modify-write of the file while no other process writes it. */
  private locked<T>(fn: () => T): T {
    return withStoreLockSync(this.dir, fn);
  }

  /**
   * Runs `fn` (which may read, wait and write) while no other process writes the store: a choice
   * made from the profiles and the write that records it, as one step (`sandbox start --seed`).
   */
  async exclusive<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withStoreLock(this.dir, fn, signal);
  }

  listProfiles(): string[] {
    return Object.keys(this.profiles()).sort();
  }

  getProfile(name: string): Profile | undefined {
    const p = this.profiles()[name];
    if (p && this.onSecret) {
      for (const f of SECRET_PROFILE_FIELDS) {
        const secret = p[f];
        if (secret) this.onSecret(secret);
      }
    }
    return p ? { ...p } : undefined;
  }

  /** Replaces a profile. */
  setProfile(name: string, profile: Profile): void {
    this.locked(() => {
      const all = this.profiles();
      all[name] = profile;
      this.conf.set('profiles', all);
    });
  }

  /** Merges fields into a profile (undefined values remove the field). */
  updateProfile(name: string, patch: Partial<Profile>): Profile {
    return this.locked(() => this.patchProfile(name, patch));
  }

  private patchProfile(name: string, patch: Partial<Profile>): Profile {
    const all = this.profiles();
    const next: Record<string, unknown> = { ...(all[name] ?? {}) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    all[name] = next as Profile;
    this.conf.set('profiles', all);
    return next as Profile;
  }

  /** The admin token saved by `svc sandbox start --admin-token` for the sandbox at this base URL. */
  sandboxAdminToken(baseUrl: string): string | undefined {
    if (!this.confInstance && !existsSync(this.path)) return undefined;
    const token = this.conf.get('sandbox_admin_tokens')?.[baseUrl];
    if (typeof token !== 'string') return undefined;
    this.onSecret?.(token);
    return token;
  }

  /** Saves (or, with undefined, forgets) the admin token of the sandbox at this base URL. */
  setSandboxAdminToken(baseUrl: string, token: string | undefined): void {
    if (token === undefined && !this.confInstance && !existsSync(this.path)) return;
    this.locked(() => this.writeSandboxAdminToken(baseUrl, token));
  }

  private writeSandboxAdminToken(baseUrl: string, token: string | undefined): void {
    const all = { ...(this.conf.get('sandbox_admin_tokens') ?? {}) };
    if (token === undefined) delete all[baseUrl];
    else all[baseUrl] = token;
    this.conf.set('sandbox_admin_tokens', all);
  }

  deleteProfile(name: string): boolean {
    if (!this.confInstance && !existsSync(this.path)) return false;
    return this.locked(() => {
      const all = this.profiles();
      if (!(name in all)) return false;
      delete all[name];
      this.conf.set('profiles', all);
      return true;
    });
  }

  /**
   * Points every profile whose base URL is `from` at `to` (a sandbox that had to take another
   * port); returns their names.
   */
  moveBaseUrl(from: string, to: string): string[] {
    if (!this.confInstance && !existsSync(this.path)) return [];
    return this.locked(() => {
      const all = this.profiles();
      const moved = Object.keys(all)
        .filter((n) => all[n]?.base_url === from)
        .sort();
      if (moved.length === 0) return moved;
      for (const n of moved) all[n] = { ...all[n], base_url: to };
      this.conf.set('profiles', all);
      return moved;
    });
  }
}
