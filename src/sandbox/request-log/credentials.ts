/** Who made a request, by name and kind (never a secret), from the bearer token's hash or the client id. */
import type { Domain } from '../domain/context.js';
import type { Credential } from './ring.js';

export interface NamedCredential {
  credential: Credential;
  businessId: string | null;
}

const CACHE_MAX = 10_000;

/** Looks credentials up once each (names never change; ids are never reused). */
export class CredentialNames {
  private readonly cache = new Map<string, NamedCredential>();

  constructor(private readonly d: Domain) {}

  private remember(key: string, value: NamedCredential): NamedCredential {
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(key, value);
    return value;
  }

  /** The API token or OAuth app behind a bearer token's hash. */
  ofToken(tokenHash: string, businessId: string): NamedCredential {
    const hit = this.cache.get(tokenHash);
    if (hit) return hit;
    const api = this.d.db.get<{ id: string; name: string }>('SELECT id, name FROM api_tokens WHERE hash = ?', tokenHash);
    if (api) return this.remember(tokenHash, { credential: { kind: 'api_token', id: api.id, name: api.name }, businessId });
    const app = this.d.db.get<{ client_id: string; name: string }>(
      'SELECT a.client_id, a.name FROM access_tokens t JOIN apps a ON a.client_id = t.client_id WHERE t.hash = ?',
      tokenHash,
    );
    if (!app) return { credential: { kind: 'unknown_token', id: null, name: null }, businessId };
    return this.remember(tokenHash, { credential: { kind: 'oauth_app', id: app.client_id, name: app.name }, businessId });
  }

  /** The OAuth app of a client id (not a secret) sent to the token endpoint. */
  ofClient(clientId: string): NamedCredential {
    const key = `client:${clientId}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const app = this.d.db.get<{ name: string; business_id: string }>('SELECT name, business_id FROM apps WHERE client_id = ?', clientId);
    if (!app) return { credential: { kind: 'unknown_client', id: clientId.slice(0, 255), name: null }, businessId: null };
    return this.remember(key, { credential: { kind: 'oauth_app', id: clientId, name: app.name }, businessId: app.business_id });
  }
}

export const NO_CREDENTIAL: NamedCredential = Object.freeze({
  credential: Object.freeze({ kind: 'none', id: null, name: null }) as Credential,
  businessId: null,
});
export const UNKNOWN_TOKEN: NamedCredential = Object.freeze({
  credential: Object.freeze({ kind: 'unknown_token', id: null, name: null }) as Credential,
  businessId: null,
});
