/**
 * svc auth list / auth switch: the stored profiles (never a secret) and the default profile, which
 * then serves every command that names none — against the real sandbox, with a temporary store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { type RunOptions, runCli, tempConfigDir } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, token: false });

let secrets: string[];

beforeEach(async () => {
  // Two logged-in accounts and one that only remembers an address, written as login writes them.
  const token = await fx.sb.tokenWithAllScopes();
  const app = await fx.sb.admin.createApp(['contacts_read']);
  const store = new CredentialStore(fx.tmp.dir);
  store.setProfile('default', { base_url: 'https://api.example.com', auth_method: 'api_token', api_token: 'svc_prod_secret_123' });
  store.setProfile('staging', { base_url: fx.sb.baseUrl, auth_method: 'api_token', api_token: token, integration_token: 'int_secret_9' });
  store.setProfile('ci', {
    base_url: fx.sb.baseUrl,
    auth_method: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
    client_auth: 'post',
    access_token: 'cached_access_token_xyz',
    access_token_expires_at: Date.now() + 3_600_000,
  });
  store.setProfile('empty', { base_url: 'https://other.example.com' });
  secrets = ['svc_prod_secret_123', token, 'int_secret_9', app.client_secret, 'cached_access_token_xyz'];
});

function svc(argv: string[], opts: RunOptions = {}) {
  return runCli(argv, { ...opts, env: { SVC_CONFIG_DIR: fx.tmp.dir, ...opts.env } });
}

function expectNoSecret(text: string): void {
  for (const s of secrets) expect(text).not.toContain(s);
}

describe('svc auth list', () => {
  it('--json lists every profile with active, default, base URL and method, and no secret', async () => {
    const r = await svc(['auth', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout + r.stderr);
    expect(r.stderr).toBe('');
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((p) => p.name)).toEqual(['ci', 'default', 'empty', 'staging']);
    const by = Object.fromEntries(rows.map((p) => [p.name, p]));
    expect(by.default).toMatchObject({ active: true, default: true, method: 'api_token', base_url: 'https://api.example.com' });
    expect(by.ci).toMatchObject({ active: false, default: false, method: 'client_credentials', client_id: expect.any(String) });
    expect(by.empty).toMatchObject({ method: null, logged_in: false, base_url: 'https://other.example.com' });
    for (const p of rows)
      expect(Object.keys(p).sort()).toEqual([
        'active',
        'base_url',
        'client_id',
        'default',
        'embedded_sandbox',
        'logged_in',
        'method',
        'name',
      ]);
  });

  it('the table marks the profile in use (--profile / SVC_PROFILE) and the default, no secret', async () => {
    const r = await svc(['auth', 'list'], { tty: true, env: { SVC_PROFILE: 'staging' } });
    expect(r.code, r.stderr).toBe(0);
    expectNoSecret(r.stdout + r.stderr);
    const lines = r.stdout.split('\n');
    expect(lines.find((l) => l.includes('staging'))).toMatch(/^\s*\*/);
    expect(lines.find((l) => l.includes('default'))).toMatch(/default \(default\)/);
    expect(lines.find((l) => l.includes('ci '))).toMatch(/client credentials \(client /);
    expect(lines.find((l) => l.includes('empty'))).toMatch(/not logged in/);
    expect(r.stderr).toContain('(SVC_PROFILE)');
  });

  it('the completion helper prints the names only', async () => {
    const r = await svc(['auth', 'list', '--names']);
    expect(r.stdout).toBe('ci\ndefault\nempty\nstaging\n');
  });

  it('with no store: an empty list, exit 0', async () => {
    const empty = tempConfigDir();
    try {
      const r = await runCli(['auth', 'list', '--json'], { env: { SVC_CONFIG_DIR: empty.dir } });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
    } finally {
      empty.cleanup();
    }
  });
});

describe('svc auth switch', () => {
  it('makes a profile the default: commands without --profile then use it', async () => {
    // Before: the default profile points at an address that does not exist.
    const sw = await svc(['auth', 'switch', 'staging']);
    expect(sw.code, sw.stderr).toBe(0);
    expect(sw.stderr).toContain('Default profile is now staging');
    expectNoSecret(sw.stdout + sw.stderr);
    const stored = JSON.parse(readFileSync(join(fx.tmp.dir, 'credentials.json'), 'utf8'));
    expect(stored.default_profile).toBe('staging');

    const status = await svc(['auth', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'staging', profile_source: 'store', base_url: fx.sb.baseUrl });
    // A real request goes to the switched profile's service with its credentials.
    const list = await svc(['contacts', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);

    const listed = JSON.parse((await svc(['auth', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(listed.find((p) => p.name === 'staging')).toMatchObject({ active: true, default: true });
    expect(listed.find((p) => p.name === 'default')).toMatchObject({ active: false, default: false });
  });

  it('--profile and SVC_PROFILE still win over the switched default', async () => {
    await svc(['auth', 'switch', 'ci']);
    const flag = await svc(['--profile', 'staging', 'auth', 'status', '--offline', '--json']);
    expect(JSON.parse(flag.stdout)).toMatchObject({ profile: 'staging', profile_source: 'flag' });
    const env = await svc(['auth', 'status', '--offline', '--json'], { env: { SVC_PROFILE: 'empty' } });
    expect(JSON.parse(env.stdout)).toMatchObject({ profile: 'empty', profile_source: 'env' });
    const sw = await svc(['auth', 'switch', 'staging'], { env: { SVC_PROFILE: 'empty' } });
    expect(sw.stderr).toMatch(/SVC_PROFILE=empty is set and takes precedence/);
  });

  it('--json says the new and the previous default', async () => {
    const r = await svc(['auth', 'switch', 'ci', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ default_profile: 'ci', previous: 'default', base_url: fx.sb.baseUrl });
    expect(r.stderr).toBe('');
  });

  it('an unknown name is exit 2 naming the known profiles, and changes nothing', async () => {
    const r = await svc(['auth', 'switch', 'prod']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no profile named "prod"');
    expect(r.stderr).toContain('known profiles: ci, default, empty, staging');
    expect(JSON.parse(readFileSync(join(fx.tmp.dir, 'credentials.json'), 'utf8')).default_profile).toBeUndefined();
  });
});
