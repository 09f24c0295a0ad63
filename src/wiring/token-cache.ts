/**
 * Where access tokens live between runs: the profile in the credential store. `save` here is the
 * only code that writes a profile's token fields (token, expiry, issue time, granted scopes).
 */
import type { CachedToken, TokenCache } from '../client/auth.js';
import { takeRenewalLock } from '../store/renewal-lock.js';
import type { CredentialStore } from '../store/store.js';

/** Caches a profile's access token in the store, for the client id it was issued to; one renewal at a time across processes. */
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
    lock: (signal) => takeRenewalLock(store.dir, profileName, { signal }),
  };
}

/**
 * A login's token, held in memory while the credentials are being checked (nothing is written
 * before they prove good), then handed to the profile's cache once they are saved.
 */
export class PendingTokenCache implements TokenCache {
  private token: CachedToken | undefined;

  load(): CachedToken | undefined {
    return this.token;
  }

  save(token: CachedToken): void {
    this.token = token;
  }

  /** Writes the held token (if any) through `cache`. */
  commitTo(cache: TokenCache): void {
    if (this.token) cache.save(this.token);
  }
}
