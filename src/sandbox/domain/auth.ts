/**
 * The "dashboard" side of authentication (businesses, OAuth applications, API tokens) and the
 * service side (client-credentials grant, bearer token check). Secrets are kept as sha256 hashes.
 */
import { isScope, SCOPES, type Scope } from '../../contract/scopes.js';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import { hashSecret, newId, newSecret, sameHash } from '../ids.js';
import type { Domain } from './context.js';
import { clearCaches, iso } from './context.js';
import { ServiceError } from './errors.js';

/** Who is calling: the business and the scopes of the bearer token. */
export interface Principal {
  businessId: string;
  scopes: ReadonlySet<string>;
  /** Hash of the bearer token (rate limits are per token). */
  tokenHash: string;
}

interface BusinessRow {
  id: string;
  name: string;
  available_scopes: string;
  created_at: number;
}

export function ensureDefaultBusiness(d: Domain): void {
  d.db.run(
    'INSERT OR IGNORE INTO businesses (id, name, available_scopes, created_at) VALUES (?, ?, ?, ?)',
    DEFAULT_BUSINESS_ID,
    'Default business',
    SCOPES.join(' '),
    d.now(),
  );
}

function checkScopes(list: unknown, field: string): Scope[] {
  if (!Array.isArray(list) || list.some((s) => !isScope(s))) {
    throw new ServiceError(400, 'invalid_request', `${field} must be an array of scope names (${SCOPES.join(', ')})`, {
      details: [{ field, message: `must be an array of: ${SCOPES.join(', ')}` }],
    });
  }
  return [...new Set(list as Scope[])];
}

export function getBusiness(d: Domain, id: string): BusinessRow {
  const row = d.db.get<BusinessRow>('SELECT * FROM businesses WHERE id = ?', id);
  if (!row) throw new ServiceError(404, 'not_found', `business ${id} not found`);
  return row;
}

export function createBusiness(d: Domain, name: string, availableScopes?: unknown) {
  const scopes = availableScopes === undefined ? [...SCOPES] : checkScopes(availableScopes, 'available_scopes');
  const id = newId('biz');
  const now = d.now();
  d.db.run('INSERT INTO businesses (id, name, available_scopes, created_at) VALUES (?, ?, ?, ?)', id, name, scopes.join(' '), now);
  return { id, name, available_scopes: scopes, created_at: iso(now) };
}

export function createApp(d: Domain, businessId: string, name: string, scopes: unknown) {
  getBusiness(d, businessId);
  const list = scopes === undefined ? [] : checkScopes(scopes, 'scopes');
  const clientId = newId('app');
  const secret = newSecret('cs');
  d.db.run(
    'INSERT INTO apps (client_id, business_id, name, scopes, secret_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    clientId,
    businessId,
    name,
    list.join(' '),
    hashSecret(secret),
    d.now(),
  );
  return { client_id: clientId, client_secret: secret, business_id: businessId, name, scopes: list };
}

export function regenerateSecret(d: Domain, clientId: string) {
  const secret = newSecret('cs');
  const r = d.db.run('UPDATE apps SET secret_hash = ? WHERE client_id = ?', hashSecret(secret), clientId);
  if (r.changes === 0) throw new ServiceError(404, 'not_found', `application ${clientId} not found`);
  return { client_id: clientId, client_secret: secret };
}

export function revokeAppTokens(d: Domain, clientId: string) {
  if (!d.db.get('SELECT 1 FROM apps WHERE client_id = ?', clientId))
    throw new ServiceError(404, 'not_found', `application ${clientId} not found`);
  const r = d.db.run('DELETE FROM access_tokens WHERE client_id = ?', clientId);
  clearCaches(d);
  return { revoked: r.changes };
}

export function createApiToken(d: Domain, businessId: string, name: string, scopes: unknown) {
  const business = getBusiness(d, businessId);
  // As for access tokens: a scope the business's plan lacks is left out, silently.
  const available = business.available_scopes ? business.available_scopes.split(' ') : [];
  const list = (scopes === undefined ? ['contacts_read'] : checkScopes(scopes, 'scopes')).filter((s) => available.includes(s));
  const id = newId('tok');
  const token = newSecret('sk');
  d.db.run(
    'INSERT INTO api_tokens (id, hash, business_id, name, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    id,
    hashSecret(token),
    businessId,
    name,
    list.join(' '),
    d.now(),
  );
  return { id, token, business_id: businessId, name, scopes: list };
}

export function revokeApiToken(d: Domain, id: string) {
  const r = d.db.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', d.now(), id);
  clearCaches(d);
  if (r.changes === 0 && !d.db.get('SELECT 1 FROM api_tokens WHERE id = ?', id))
    throw new ServiceError(404, 'not_found', `API token ${id} not found`);
  return { id, revoked: true };
}

interface AppRow {
  client_id: string;
  business_id: string;
  scopes: string;
  secret_hash: string;
}

export interface TokenGrantInput {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

function tokenError(status: number, code: string, message: string, headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(status, code, message, {}, headers);
}

/** The request's grant_type and client credentials are there, and the grant is client_credentials. */
function checkGrantRequest(input: TokenGrantInput): asserts input is TokenGrantInput & { client_id: string; client_secret: string } {
  if (!input.grant_type) throw tokenError(400, 'invalid_request', 'grant_type is required; use grant_type=client_credentials');
  if (input.grant_type !== 'client_credentials')
    throw tokenError(
      400,
      'unsupported_grant_type',
      `grant_type ${JSON.stringify(input.grant_type)} is not supported; use client_credentials`,
    );
  if (!input.client_id || !input.client_secret)
    throw tokenError(400, 'invalid_request', 'client_id and client_secret are required (form fields or HTTP Basic)');
}

/** The application whose client_id and secret these are, else 401 invalid_client. */
function authenticatedApp(d: Domain, clientId: string, secret: string, viaBasic: boolean): AppRow {
  const app = d.db.get<AppRow>('SELECT client_id, business_id, scopes, secret_hash FROM apps WHERE client_id = ?', clientId);
  const given = hashSecret(secret);
  // Compare against a dummy hash for unknown clients too, so timing does not tell which part was wrong.
  const ok = sameHash(given, app ? app.secret_hash : '0'.repeat(64)) && app !== undefined;
  if (!ok || !app) {
    throw tokenError(401, 'invalid_client', 'client authentication failed: unknown client_id or wrong client_secret', {
      // RFC 6749 §5.2: a client that authenticated with HTTP Basic gets a Basic challenge.
      ...(viaBasic ? { 'www-authenticate': 'Basic realm="svc-sandbox"' } : {}),
    });
  }
  return app;
}

/** The scopes asked for: those of `scope` (each known and enabled on the application), or all the application's. */
function requestedScopes(scope: string | undefined, appScopes: string[]): string[] {
  // An empty or blank `scope` counts as absent (RFC 6749: the parameter is optional).
  if (scope === undefined || scope.trim() === '') return appScopes;
  const requested = [...new Set(scope.split(/[ ]+/).filter((s) => s.length > 0))];
  const unknown = requested.filter((s) => !isScope(s));
  if (unknown.length > 0)
    throw tokenError(
      400,
      'invalid_scope',
      `unknown scope ${unknown.map((s) => JSON.stringify(s)).join(', ')}; scopes are ${SCOPES.join(', ')}`,
    );
  const notEnabled = requested.filter((s) => !appScopes.includes(s));
  if (notEnabled.length > 0)
    throw tokenError(
      400,
      'invalid_scope',
      `scope ${notEnabled.join(', ')} is not enabled on the application; enable it in the application's settings first`,
    );
  return requested;
}

/** The client-credentials grant (RFC 6749 §4.4) with the spec's scope rules and open-points' statuses. */
export function grantClientCredentials(d: Domain, input: TokenGrantInput, viaBasic: boolean) {
  checkGrantRequest(input);
  const app = authenticatedApp(d, input.client_id, input.client_secret, viaBasic);
  const appScopes = app.scopes ? app.scopes.split(' ') : [];
  const business = getBusiness(d, app.business_id);
  const available = new Set(business.available_scopes ? business.available_scopes.split(' ') : []);
  const requested = requestedScopes(input.scope, appScopes);
  const granted = requested.filter((s) => available.has(s));
  const token = newSecret('at');
  const now = d.now();
  const ttl = d.tokenTtlSeconds;
  d.db.run(
    'INSERT INTO access_tokens (hash, client_id, business_id, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
    hashSecret(token),
    app.client_id,
    app.business_id,
    granted.join(' '),
    now,
    now + ttl * 1000,
  );
  return {
    access_token: token,
    token_type: 'Bearer' as const,
    expires_in: ttl,
    scope: granted.join(' '),
    created_at: Math.floor(now / 1000),
  };
}

interface TokenRow {
  hash: string;
  business_id: string;
  scopes: string;
  expires_at?: number;
  revoked_at?: number | null;
}

const scopeSets = new Map<string, ReadonlySet<string>>();
function scopeSet(list: string): ReadonlySet<string> {
  let s = scopeSets.get(list);
  if (!s) {
    s = new Set(list ? list.split(' ') : []);
    scopeSets.set(list, s);
  }
  return s;
}

/** The stored token a bearer is (an access token, or an API token not revoked), if any. */
function tokenRow(d: Domain, bearer: string, hash: string): TokenRow | undefined {
  if (bearer.startsWith('at_'))
    return d.db.get<TokenRow>('SELECT hash, business_id, scopes, expires_at FROM access_tokens WHERE hash = ?', hash);
  const row = d.db.get<TokenRow>('SELECT hash, business_id, scopes, revoked_at FROM api_tokens WHERE hash = ?', hash);
  return row?.revoked_at != null ? undefined : row;
}

/** Resolves a bearer token (access token or API token), or undefined when missing, expired, revoked or unknown. */
export function authenticate(d: Domain, bearer: string): Principal | undefined {
  // The cache is keyed by the token itself (process memory only, never persisted), which spares
  // hashing it on every request; the database only ever sees and stores the hash.
  const cached = d.cache.principals.get(bearer);
  if (cached) {
    if (cached.expiresAt <= d.now()) return undefined;
    return { businessId: cached.businessId, scopes: cached.scopes, tokenHash: cached.tokenHash };
  }
  const hash = hashSecret(bearer);
  const row = tokenRow(d, bearer, hash);
  const expiresAt = row?.expires_at ?? Number.POSITIVE_INFINITY;
  if (!row || !sameHash(row.hash, hash) || expiresAt <= d.now()) return undefined;
  if (d.cache.principals.size > 10_000) d.cache.principals.clear();
  const scopes = scopeSet(row.scopes);
  d.cache.principals.set(bearer, { businessId: row.business_id, scopes, expiresAt, tokenHash: hash });
  return { businessId: row.business_id, scopes, tokenHash: hash };
}
