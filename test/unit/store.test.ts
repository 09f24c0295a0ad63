import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const freshDir = () => join(tempDir(), 'config');

describe('credential store', () => {
  it('creates the file 0600 in a 0700 folder', () => {
    const dir = freshDir();
    const store = new CredentialStore(dir);
    store.setProfile('default', { base_url: 'https://api.example.com', auth_method: 'api_token', api_token: 'tok_secret_value_123' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('reading creates nothing: a CI run with SVC_TOKEN leaves no folder or file behind', async () => {
    const { existsSync } = await import('node:fs');
    const dir = freshDir();
    const store = new CredentialStore(dir);
    expect(store.getProfile('default')).toBeUndefined();
    expect(store.listProfiles()).toEqual([]);
    expect(store.deleteProfile('default')).toBe(false);
    expect(existsSync(dir)).toBe(false);
    store.updateProfile('default', { base_url: 'https://a.example' });
    expect(existsSync(store.path)).toBe(true);
  });

  it('reports a broken file by name', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'credentials.json'), '{"profiles": ');
    expect(() => new CredentialStore(dir)).toThrow(/credentials\.json is not valid JSON/);
  });

  it('tightens a folder that others could read', async () => {
    const dir = freshDir();
    const { mkdirSync, chmodSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    new CredentialStore(dir).setProfile('x', {});
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('keeps profiles apart and merges updates', () => {
    const store = new CredentialStore(freshDir());
    store.setProfile('default', { base_url: 'https://a.example', auth_method: 'api_token', api_token: 'aaaa1111' });
    store.setProfile('sandbox', {
      base_url: 'http://127.0.0.1:1',
      auth_method: 'client_credentials',
      client_id: 'app_1',
      client_secret: 'ssss2222',
    });
    store.updateProfile('sandbox', { access_token: 'at_1', access_token_expires_at: 123, granted_scopes: ['contacts_read'] });
    store.updateProfile('sandbox', { access_token: undefined });
    expect(store.listProfiles()).toEqual(['default', 'sandbox']);
    expect(store.getProfile('sandbox')).toEqual({
      base_url: 'http://127.0.0.1:1',
      auth_method: 'client_credentials',
      client_id: 'app_1',
      client_secret: 'ssss2222',
      access_token_expires_at: 123,
      granted_scopes: ['contacts_read'],
    });
    expect(store.getProfile('default')?.api_token).toBe('aaaa1111');
    expect(store.deleteProfile('default')).toBe(true);
    expect(store.deleteProfile('default')).toBe(false);
  });

  it('profile names with dots are names, not paths', () => {
    const store = new CredentialStore(freshDir());
    store.setProfile('shop.eu', { base_url: 'https://eu.example' });
    expect(store.getProfile('shop.eu')?.base_url).toBe('https://eu.example');
  });

  it('sees what another process (another store instance) wrote', () => {
    const dir = freshDir();
    const a = new CredentialStore(dir);
    const b = new CredentialStore(dir);
    a.setProfile('default', { access_token: 'first' });
    b.updateProfile('default', { access_token: 'second' });
    expect(a.getProfile('default')?.access_token).toBe('second');
    expect(JSON.parse(readFileSync(a.path, 'utf8')).profiles.default.access_token).toBe('second');
  });
});
