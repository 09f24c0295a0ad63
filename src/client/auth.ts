/**
 * Token providers: a fixed bearer (API token, SVC_TOKEN) or OAuth client credentials exchanged at
 * the token endpoint, cached with its expiry, renewed ahead of expiry and once after a 401, with
 * one renewal in flight shared by every concurrent request (single flight).
 */
import { parseScopeString } from '../contract/scopes.js';
import type { TokenResponse } from '../contract/types.js';
import { ApiError, CredentialsError } from './errors.js';
import type { ClientLogger } from './types.js';

/** How the client secret travels: in the form body (client_secret_post) or as HTTP Basic. */
export type ClientAuthStyle = 'post' | 'basic';

/** An access token with its expiry (epoch ms), issue time and granted scopes. */
export interface CachedToken {
  accessToken: string;
  expiresAt: number;
  issuedAt?: number;
  /** Undefined when the token endpoint did not say. */
  scopes?: string[];
}

/** Where access tokens are kept between runs (the credential store's profile). */
export interface TokenCache {
  load(): CachedToken | undefined;
  save(token: CachedToken): void;
  /**
   * Waits for, then takes, the right to renew (one process at a time per profile); resolves to
   * its release. The token another process saved meanwhile is then read with load().
   */
  lock?(signal?: AbortSignal): Promise<() => void>;
}

export type Credentials =
  | { kind: 'api_token'; token: string }
  | {
      kind: 'client_credentials';
      clientId: string;
      clientSecret: string;
      clientAuth?: ClientAuthStyle;
      /** Scopes to request; absent: whatever the application has. */
      scopes?: string[];
      cache?: TokenCache;
    };

export interface TokenProvider {
  readonly kind: Credentials['kind'];
  /** The current token when it is valid and not due for renewal (no I/O, no allocation). */
  current(): string | undefined;
  /** A valid token, renewed first if needed. */
  get(signal?: AbortSignal): Promise<string>;
  /** After a 401 with `failed`: a renewed token to replay with, or undefined when renewal is impossible. */
  renewAfterUnauthorized(failed: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Granted scopes, when known (client credentials after a token request). */
  grantedScopes(): string[] | undefined;
  /** Expiry of the current token (epoch ms), when known. */
  expiresAt(): number | undefined;
}

/** A fixed bearer: an API token or an access token given through SVC_TOKEN. Cannot be renewed. */
export class StaticTokenProvider implements TokenProvider {
  readonly kind = 'api_token' as const;
  constructor(private readonly token: string) {}
  current(): string {
    return this.token;
  }
  async get(): Promise<string> {
    return this.token;
  }
  async renewAfterUnauthorized(): Promise<undefined> {
    return undefined;
  }
  grantedScopes(): undefined {
    return undefined;
  }
  expiresAt(): undefined {
    return undefined;
  }
}

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 §2.3.1 asks for it before Base64). */
export function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/** The HTTP Basic header for client credentials: Base64 of form-encoded id ":" form-encoded secret. */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** The token request: its form body and extra headers, by client authentication style. */
export function tokenRequest(
  creds: { clientId: string; clientSecret: string; clientAuth?: ClientAuthStyle; scopes?: string[] },
  style: ClientAuthStyle = creds.clientAuth ?? 'post',
): { form: string; headers: Record<string, string> } {
  const params = new URLSearchParams();
  params.set('grant_type', 'client_credentials');
  const headers: Record<string, string> = {};
  if (style === 'basic') {
    headers.authorization = basicAuthorization(creds.clientId, creds.clientSecret);
  } else {
    params.set('client_id', creds.clientId);
    params.set('client_secret', creds.clientSecret);
  }
  if (creds.scopes?.length) params.set('scope', creds.scopes.join(' '));
  return { form: params.toString(), headers };
}

/** Renew this long before expiry: a tenth of the lifetime, at most a minute. */
export function renewalMargin(lifetimeMs: number): number {
  return Math.min(60_000, Math.max(0, lifetimeMs) / 10);
}

/** Posts a token request through the client's transport (retry policy included) and returns the JSON answer. */
export type TokenExchange = (req: { form: string; headers: Record<string, string> }, signal?: AbortSignal) => Promise<unknown>;

export class ClientCredentialsProvider implements TokenProvider {
  readonly kind = 'client_credentials' as const;
  private token: string | undefined;
  private expires = 0;
  private renewAt = 0;
  private scopes: string[] | undefined;
  private inflight: Promise<string> | undefined;
  private warnedScopes = false;
  /** Number of token requests this provider made (for tests and the debug trace). */
  requests = 0;

  constructor(
    private readonly creds: Extract<Credentials, { kind: 'client_credentials' }>,
    private readonly exchange: TokenExchange,
    private readonly logger: ClientLogger,
    private readonly now: () => number,
    private readonly onSecret?: (secret: string) => void,
  ) {
    onSecret?.(creds.clientSecret);
    const cached = creds.cache?.load();
    if (cached) this.adopt(cached);
  }

  private adopt(t: CachedToken): void {
    this.onSecret?.(t.accessToken);
    this.token = t.accessToken;
    this.expires = t.expiresAt;
    const lifetime = t.issuedAt !== undefined ? t.expiresAt - t.issuedAt : t.expiresAt - this.now();
    this.renewAt = t.expiresAt - renewalMargin(lifetime);
    this.scopes = t.scopes;
  }

  current(): string | undefined {
    return this.token !== undefined && this.now() < this.renewAt ? this.token : undefined;
  }

  get(signal?: AbortSignal): Promise<string> {
    const t = this.current();
    if (t !== undefined) return Promise.resolve(t);
    return this.renew(signal);
  }

  async renewAfterUnauthorized(failed: string, signal?: AbortSignal): Promise<string | undefined> {
    // Another request already renewed since `failed` was sent: replay with the newer token.
    if (this.token !== undefined && this.token !== failed && this.now() < this.expires) return this.token;
    if (this.inflight) return this.inflight;
    this.renewAt = 0;
    return this.renew(signal, failed);
  }

  grantedScopes(): string[] | undefined {
    return this.scopes;
  }

  expiresAt(): number | undefined {
    return this.token ? this.expires : undefined;
  }

  /** One renewal at a time; every caller waiting meanwhile gets its result. */
  private renew(signal?: AbortSignal, rejected?: string): Promise<string> {
    this.inflight ??= this.fetchToken(signal, rejected).finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async fetchToken(signal?: AbortSignal, rejected?: string): Promise<string> {
    const release = await this.creds.cache?.lock?.(signal);
    try {
      return await this.fetchTokenLocked(signal, rejected);
    } finally {
      release?.();
    }
  }

  private async fetchTokenLocked(signal?: AbortSignal, rejected?: string): Promise<string> {
    // Another process may have renewed meanwhile (the store is shared): its token is the renewal
    // this one was about to make, so it is used while it has not expired, even when already due
    // (a token request slower than the renewal margin gives such a token). Renewing it again
    // would chain one renewal per waiting process, past their wait for the lock, then all at once.
    const stored = this.creds.cache?.load();
    if (stored && stored.accessToken !== this.token && stored.accessToken !== rejected && this.now() < stored.expiresAt) {
      this.adopt(stored);
      return stored.accessToken;
    }
    const issuedAt = this.now();
    this.requests++;
    const body = await this.exchange(tokenRequest(this.creds), signal);
    const res = body as Partial<TokenResponse> | null;
    if (!res || typeof res.access_token !== 'string' || res.access_token.length === 0) {
      throw new ApiError({ status: 200, code: 'invalid_token_response', message: 'the token endpoint answered without an access_token' });
    }
    // Tolerant of services that send expires_in as a string or scope as an array.
    const lifetime = Number(res.expires_in);
    const expiresIn = Number.isFinite(lifetime) && lifetime > 0 ? lifetime : 3600;
    const rawScope: unknown = res.scope;
    const scopes =
      typeof rawScope === 'string'
        ? parseScopeString(rawScope)
        : Array.isArray(rawScope)
          ? rawScope.filter((s): s is string => typeof s === 'string')
          : undefined;
    const fresh: CachedToken = { accessToken: res.access_token, expiresAt: issuedAt + expiresIn * 1000, issuedAt, scopes };
    this.adopt(fresh);
    this.creds.cache?.save(fresh);
    this.checkGranted(scopes);
    return fresh.accessToken;
  }

  /** Warns once when the token endpoint granted fewer scopes than were asked for. */
  private checkGranted(granted: string[] | undefined): void {
    if (this.warnedScopes || !granted || !this.creds.scopes?.length) return;
    const missing = missingScopes(this.creds.scopes, granted);
    if (missing.length === 0) return;
    this.warnedScopes = true;
    this.logger.warn(
      `the token was granted fewer scopes than requested: missing ${missing.join(' ')} (granted: ${granted.join(' ') || 'none'}); ` +
        'enable them on the application (or the business plan), then `svc auth login` again',
    );
  }
}

/** Requested scopes that are not among the granted ones. */
export function missingScopes(requested: readonly string[], granted: readonly string[]): string[] {
  return requested.filter((s) => !granted.includes(s));
}

export function createTokenProvider(
  creds: Credentials,
  exchange: TokenExchange,
  logger: ClientLogger,
  now: () => number,
  onSecret?: (secret: string) => void,
): TokenProvider {
  if (creds.kind === 'api_token') {
    if (!creds.token) throw new CredentialsError('the API token is empty');
    onSecret?.(creds.token);
    return new StaticTokenProvider(creds.token);
  }
  return new ClientCredentialsProvider(creds, exchange, logger, now, onSecret);
}
