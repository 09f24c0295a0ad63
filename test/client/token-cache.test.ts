import { describe, expect, it } from 'vitest';
import { type CachedToken, ClientCredentialsProvider, type TokenCache } from '../../src/client/auth.js';
import { CredentialStore } from '../../src/store/store.js';
import { PendingTokenCache, profileTokenCache } from '../../src/wiring/token-cache.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const store = () => new CredentialStore(tempDir());

const logger = { debug() {}, warn() {} };

/** A provider for app_1 over `cache` whose n-th token request answers `token(n)` (2 s), with how many it made. */
function countingProvider(cache: TokenCache, token: (n: number) => string, now: () => number) {
  let requests = 0;
  const provider = new ClientCredentialsProvider(
    { kind: 'client_credentials', clientId: 'app_1', clientSecret: 'secret-1', cache },
    async () => {
      requests++;
      return { access_token: token(requests), expires_in: 2 };
    },
    logger,
    now,
  );
  return { provider, requests: () => requests };
}

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

describe('token renewal across processes: one renewal per round', () => {
  it('a token another process saved while this one waited for the lock is used, even when already due', async () => {
    // Lifetime 2 s, due 200 ms before expiry. This process holds at_1, due; while it waits for
    // the lock, another process renews, but its request took 1.9 s: at_2 is born due, yet valid.
    let t = 10_000;
    let saved: CachedToken | undefined = { accessToken: 'at_1', issuedAt: 7_500, expiresAt: 9_500 + 500 };
    const cache: TokenCache = {
      load: () => saved,
      save: (tok) => {
        saved = tok;
      },
      lock: async () => {
        t += 1_950;
        saved = { accessToken: 'at_2', issuedAt: 10_000, expiresAt: 12_000 };
        return () => {};
      },
    };
    const { provider, requests } = countingProvider(
      cache,
      (n) => `at_new_${n}`,
      () => t,
    );
    expect(provider.current()).toBeUndefined();
    expect(await provider.get()).toBe('at_2');
    expect(requests()).toBe(0);
    // Its next request finds at_2 due and the store unchanged: this process renews (once).
    expect(await provider.get()).toBe('at_new_1');
    expect(requests()).toBe(1);
    expect(saved?.accessToken).toBe('at_new_1');
  });

  it('an expired token in the store is renewed, not used', async () => {
    let t = 10_000;
    let saved: CachedToken | undefined;
    const cache: TokenCache = {
      load: () => saved,
      save: (tok) => {
        saved = tok;
      },
      lock: async () => {
        saved = { accessToken: 'at_old', issuedAt: 7_000, expiresAt: 9_000 };
        t += 10;
        return () => {};
      },
    };
    const { provider, requests } = countingProvider(
      cache,
      () => 'at_fresh',
      () => t,
    );
    expect(await provider.get()).toBe('at_fresh');
    expect(requests()).toBe(1);
  });
});
