import { describe, expect, it } from 'vitest';
import { ClientCredentialsProvider } from '../../src/client/auth.js';
import { CredentialStore } from '../../src/store/store.js';
import { PendingTokenCache, profileTokenCache } from '../../src/wiring/token-cache.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const store = () => new CredentialStore(tempDir());

const logger = { debug() {}, warn() {} };

describe('token cache: the only writer of a profile token fields', () => {
  it('the provider takes issuedAt before the token request and hands the cache exactly that', async () => {
    let t = 1_000_000;
    const now = () => (t += 1000);
    const cache = new PendingTokenCache();
    let requestStartedAt = 0;
    const provider = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'app_1', clientSecret: 'secret-1', cache },
      async () => {
        requestStartedAt = t;
        t += 5000; // the round trip
        return { access_token: 'at_1', expires_in: 600, scope: 'contacts_read' };
      },
      logger,
      now,
    );
    await provider.get();
    const saved = cache.load();
    expect(saved).toBeDefined();
    expect(saved!.expiresAt - saved!.issuedAt!).toBe(600_000);
    expect(saved!.issuedAt).toBeLessThanOrEqual(requestStartedAt);
  });

  it('a pending token is written only once the profile holds the same client id', () => {
    const s = store();
    const pending = new PendingTokenCache();
    pending.save({ accessToken: 'at_2', expiresAt: 2000, issuedAt: 1000, scopes: ['contacts_read'] });
    // Not saved yet: a profile for another application ignores it.
    s.setProfile('default', { auth_method: 'client_credentials', client_id: 'other', client_secret: 'x-secret' });
    pending.commitTo(profileTokenCache(s, 'default', 'app_2'));
    expect(s.getProfile('default')?.access_token).toBeUndefined();

    s.setProfile('default', { auth_method: 'client_credentials', client_id: 'app_2', client_secret: 'y-secret' });
    pending.commitTo(profileTokenCache(s, 'default', 'app_2'));
    expect(s.getProfile('default')).toMatchObject({
      access_token: 'at_2',
      access_token_expires_at: 2000,
      access_token_issued_at: 1000,
      granted_scopes: ['contacts_read'],
    });
    expect(profileTokenCache(s, 'default', 'app_2').load()).toEqual({
      accessToken: 'at_2',
      expiresAt: 2000,
      issuedAt: 1000,
      scopes: ['contacts_read'],
    });
  });

  it('the store tells the run every secret a profile holds, when read', () => {
    const learned: string[] = [];
    const s = new CredentialStore(tempDir(), { onSecret: (x) => learned.push(x) });
    s.setProfile('p', { client_id: 'app', client_secret: 'cs-1234', api_token: 'tok-1234', integration_token: 'itk-1234' });
    s.getProfile('p');
    expect(learned.sort()).toEqual(['cs-1234', 'itk-1234', 'tok-1234']);
  });
});
