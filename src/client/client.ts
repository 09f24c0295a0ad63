/**
 * The embedded API client on an undici Pool: one lean request path (no per-request formatting
 * unless debug is on), the retry policy of retry.ts, token renewal once after a 401, tolerant
 * reading of answers, and one deprecation warning per route.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { OPERATION_SCOPES, type Operation } from '../contract/scopes.js';
import type { Contact, ContactListFilter, ContactWrite, EventAccepted, EventInput, Order, OrderInput } from '../contract/types.js';
import { type Credentials, createTokenProvider, type TokenProvider } from './auth.js';
import { ApiError, MissingScopeError, NetworkError, type NetworkFailureKind, RetryWaitTooLongError } from './errors.js';
import {
  deprecationNotice,
  extractList,
  extractNextCursor,
  firstHeader,
  type HeaderBag,
  isCursorUrl,
  parseErrorBody,
  unwrapObject,
} from './response.js';
import {
  type AttemptOutcome,
  DEFAULT_RETRY_OPTIONS,
  type Idempotency,
  planRetry,
  RetryBudget,
  type RetryOptions,
  serverRetryDelay,
} from './retry.js';
import { bodyText, exchange, hasRawHeader, headerObject, type RawHeaders } from './transport.js';
import type { ApiClient, ApiResult, CallOptions, ClientLogger, ContactPageResult, RawRequest, RetryInfo } from './types.js';

export interface ServiceClientOptions {
  baseUrl: string;
  credentials: Credentials;
  logger: ClientLogger;
  /** Emit the HTTP trace through logger.debug (formatting costs nothing when off). */
  debug?: boolean;
  maxRetryWaitMs?: number;
  retry?: Partial<RetryOptions>;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Keep-alive connections to the service (the importer runs up to 64 requests at once). */
  connections?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  userAgent?: string;
  /** Every secret the client learns (client secret, tokens) is announced here for redaction. */
  onSecret?: (secret: string) => void;
  /** Called once when the client closes (the embedded sandbox stops there). */
  onClose?: () => Promise<void>;
}

interface SendRequest {
  method: string;
  /** Path with query, relative to the base URL (or absolute, for a next-page URL of the same origin). */
  path: string;
  /** Route template for messages and the once-per-route deprecation warning. */
  route: string;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** X-Service-Integration-Token for order requests (its header object is cached like the others). */
  integrationToken?: string;
  idempotency: Idempotency;
  /** Send the bearer token (false for the token request itself). */
  auth: boolean;
  /** Throw ApiError on a status ≥ 400 (false for `svc api`). */
  throwOnError: boolean;
  signal?: AbortSignal;
  onRetry?: (info: RetryInfo) => void;
  /** The answer is one object, bare or wrapped ({"data": {...}}): unwrap it (sendJson). */
  unwrap?: boolean;
}

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: Array<{ code?: unknown }>; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.[0]?.code ?? e?.cause?.code;
  return typeof inner === 'string' ? inner : undefined;
}

/** Maps a transport error to a failure kind and whether the request may have reached the service. */
export function classifyNetworkError(err: unknown): { kind: NetworkFailureKind; sent: boolean } {
  const code = errorCode(err) ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused', sent: false };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { kind: 'timeout', sent: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { kind: 'dns', sent: false };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { kind: 'timeout', sent: true };
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return { kind: 'reset', sent: true };
  }
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return { kind: 'tls', sent: false };
  return { kind: 'other', sent: true };
}

const NETWORK_TEXT: Record<NetworkFailureKind, string> = {
  refused: 'connection refused',
  reset: 'connection lost before an answer',
  timeout: 'timed out',
  dns: 'host name not found',
  tls: 'TLS handshake failed',
  other: 'network error',
};

function queryString(params: Record<string, string | number | string[] | undefined>): string {
  let q = '';
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) q += `${q ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`;
  }
  return q;
}

function idempotencyOf(method: string, path: string): Idempotency {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'PUT' || m === 'DELETE' || m === 'OPTIONS') return 'idempotent';
  if (m === 'POST' && /^\/v1\/orders\/placed\/?(\?|$)/.test(path)) return 'idempotent';
  return 'non_idempotent';
}

export class ServiceClient implements ApiClient {
  readonly baseUrl: string;
  readonly tokens: TokenProvider;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly pool: Pool;
  private readonly logger: ClientLogger;
  private readonly debug: boolean;
  private readonly retry: RetryOptions;
  private readonly budget: RetryBudget;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly userAgent: string;
  private readonly onClose?: () => Promise<void>;
  private readonly warnedDeprecations = new Set<string>();
  /** Header objects reused while the token stays the same (no allocation per request). */
  private headerToken: string | undefined;
  private jsonHeaders: Record<string, string> = {};
  private bareHeaders: Record<string, string> = {};
  private integrationToken: string | undefined;
  private integrationHeaders: Record<string, string> = {};
  private closed = false;

  constructor(opts: ServiceClientOptions) {
    const url = new URL(opts.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.baseUrl = `${this.origin}${this.prefix}`;
    this.logger = opts.logger;
    this.debug = opts.debug === true;
    this.retry = {
      ...DEFAULT_RETRY_OPTIONS,
      ...opts.retry,
      ...(opts.maxRetryWaitMs !== undefined ? { maxRetryWaitMs: opts.maxRetryWaitMs } : {}),
    };
    this.budget = new RetryBudget(this.retry.budgetCapacity, this.retry.budgetRefillPerSuccess);
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.userAgent = opts.userAgent ?? 'svc';
    this.onClose = opts.onClose;
    this.pool = new Pool(this.origin, {
      connections: opts.connections ?? 64,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
      headersTimeout: opts.headersTimeoutMs ?? 60_000,
      bodyTimeout: opts.bodyTimeoutMs ?? 60_000,
    });
    this.tokens = createTokenProvider(
      opts.credentials,
      (req, signal) => this.exchangeToken(req, signal),
      opts.logger,
      this.now,
      opts.onSecret,
    );
  }

  // ---- typed endpoints -------------------------------------------------------------------

  async listContacts(filter: ContactListFilter & { limit?: number; cursor?: string }, opts?: CallOptions): Promise<ContactPageResult> {
    const { cursor, limit, ...rest } = filter;
    let path: string;
    if (cursor && isCursorUrl(cursor)) path = this.sameOriginPath(cursor);
    else path = `/v1/contacts${queryString({ ...rest, limit, cursor })}`;
    const res = await this.send({
      method: 'GET',
      path,
      route: 'GET /v1/contacts',
      idempotency: 'idempotent',
      auth: true,
      throwOnError: true,
      signal: opts?.signal,
      onRetry: opts?.onRetry,
    });
    return { data: extractList<Contact>(res.body), nextCursor: extractNextCursor(res.body, res.headers) };
  }

  async *paginateContacts(filter: ContactListFilter, opts?: CallOptions & { pageSize?: number }): AsyncIterable<Contact[]> {
    let cursor: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listContacts({ ...filter, limit: opts?.pageSize, cursor }, opts);
      if (page.data.length > 0) yield page.data;
      if (!page.nextCursor || seen.has(page.nextCursor)) return;
      seen.add(page.nextCursor);
      cursor = page.nextCursor;
    }
  }

  async getContact(id: string, opts?: CallOptions): Promise<Contact> {
    const res = await this.send({
      method: 'GET',
      path: `/v1/contacts/${encodeURIComponent(id)}`,
      route: 'GET /v1/contacts/{id}',
      idempotency: 'idempotent',
      auth: true,
      throwOnError: true,
      signal: opts?.signal,
      onRetry: opts?.onRetry,
    });
    return unwrapObject<Contact>(res.body);
  }

  createContact(body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return this.sendJson<Contact>('POST', '/v1/contacts', 'POST /v1/contacts', body, 'non_idempotent', opts);
  }

  patchContact(id: string, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return this.sendJson<Contact>(
      'PATCH',
      `/v1/contacts/${encodeURIComponent(id)}`,
      'PATCH /v1/contacts/{id}',
      body,
      'non_idempotent',
      opts,
    );
  }

  unsubscribeContactLegacy(id: string, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return this.sendJson<Contact>(
      'POST',
      `/v1/contacts/${encodeURIComponent(id)}/unsubscribe`,
      'POST /v1/contacts/{id}/unsubscribe',
      {},
      'non_idempotent',
      opts,
    );
  }

  async deleteContact(id: string, opts?: CallOptions): Promise<void> {
    // 200, 202 and 204 all mean done (open-points: client tolerance).
    await this.send({
      method: 'DELETE',
      path: `/v1/contacts/${encodeURIComponent(id)}`,
      route: 'DELETE /v1/contacts/{id}',
      idempotency: 'idempotent',
      auth: true,
      throwOnError: true,
      signal: opts?.signal,
      onRetry: opts?.onRetry,
    });
  }

  upsertOrder(order: OrderInput, opts?: CallOptions & { integrationToken?: string }): Promise<ApiResult<Order>> {
    return this.sendJson<Order>('POST', '/v1/orders/placed', 'POST /v1/orders/placed', order, 'idempotent', opts, opts?.integrationToken);
  }

  sendEvent(event: EventInput, opts?: CallOptions): Promise<ApiResult<EventAccepted>> {
    return this.sendJson<EventAccepted>('POST', '/v1/events', 'POST /v1/events', event, 'non_idempotent', opts);
  }

  async request(req: RawRequest): Promise<ApiResult<unknown>> {
    const method = req.method.toUpperCase();
    let path = isCursorUrl(req.path) && !req.path.startsWith('/') ? this.sameOriginPath(req.path) : req.path;
    if (!path.startsWith('/')) path = `/${path}`;
    if (req.query) {
      const q = queryString(req.query);
      if (q) path += path.includes('?') ? `&${q.slice(1)}` : q;
    }
    let body: string | Buffer | undefined;
    let contentType = req.contentType;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      contentType ??= JSON_TYPE;
    }
    return this.send({
      method,
      path,
      route: `${method} ${path.split('?')[0]}`,
      body,
      contentType,
      headers: req.headers,
      idempotency: idempotencyOf(method, path),
      auth: true,
      throwOnError: false,
      signal: req.signal,
    });
  }

  async ensureScope(operation: Operation): Promise<void> {
    const scope = OPERATION_SCOPES[operation];
    if (this.tokens.kind !== 'client_credentials') return;
    await this.tokens.get();
    const granted = this.tokens.grantedScopes();
    if (granted && !granted.includes(scope)) throw new MissingScopeError(scope, granted);
  }

  /** A valid bearer token (renewed if needed), for `svc auth token`. */
  accessToken(signal?: AbortSignal): Promise<string> {
    return this.tokens.get(signal);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close().catch(() => undefined);
    await this.onClose?.();
  }

  // ---- the request path -------------------------------------------------------------------

  private async sendJson<T>(
    method: string,
    path: string,
    route: string,
    body: unknown,
    idempotency: Idempotency,
    opts: CallOptions | undefined,
    integrationToken?: string,
  ): Promise<ApiResult<T>> {
    const res = await this.send({
      method,
      path,
      route,
      body: JSON.stringify(body),
      contentType: JSON_TYPE,
      integrationToken,
      idempotency,
      auth: true,
      throwOnError: true,
      unwrap: true,
      signal: opts?.signal,
      onRetry: opts?.onRetry,
    });
    return res as ApiResult<T>;
  }

  private async exchangeToken(req: { form: string; headers: Record<string, string> }, signal?: AbortSignal): Promise<unknown> {
    const res = await this.send({
      method: 'POST',
      path: '/oauth/token',
      route: 'POST /oauth/token',
      body: req.form,
      contentType: FORM_TYPE,
      headers: req.headers,
      // Asking for a token twice is harmless: retried like an idempotent request.
      idempotency: 'idempotent',
      auth: false,
      throwOnError: true,
      signal,
    });
    return res.body;
  }

  /**
   * A next-page URL (absolute, or an absolute path as a Link header may give) as a path relative
   * to the base URL: a path already under the base URL's own path prefix is not prefixed twice.
   */
  private sameOriginPath(url: string): string {
    const u = new URL(url, `${this.origin}/`);
    if (u.origin !== this.origin) {
      throw new ApiError({
        status: 0,
        code: 'foreign_next_page',
        message: `the service pointed the next page at another origin (${u.origin}); refusing to send credentials there`,
      });
    }
    const p = u.pathname.startsWith(this.prefix) ? u.pathname : `${this.prefix}${u.pathname}`;
    return `${p.slice(this.prefix.length)}${u.search}`;
  }

  private headersFor(req: SendRequest, token: string | undefined): Record<string, string> {
    if (token !== this.headerToken) {
      this.headerToken = token;
      const base: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
      if (token !== undefined) base.authorization = `Bearer ${token}`;
      this.bareHeaders = base;
      this.jsonHeaders = { ...base, 'content-type': JSON_TYPE };
      this.integrationToken = undefined;
    }
    if (req.integrationToken !== undefined && req.headers === undefined) {
      if (req.integrationToken !== this.integrationToken) {
        this.integrationToken = req.integrationToken;
        this.integrationHeaders = { ...this.jsonHeaders, 'x-service-integration-token': req.integrationToken };
      }
      return this.integrationHeaders;
    }
    if (!req.auth || req.headers !== undefined || (req.contentType !== undefined && req.contentType !== JSON_TYPE)) {
      const h: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
      if (req.auth && token !== undefined) h.authorization = `Bearer ${token}`;
      if (req.contentType) h['content-type'] = req.contentType;
      if (req.headers) for (const [k, v] of Object.entries(req.headers)) h[k.toLowerCase()] = v;
      return h;
    }
    return req.contentType === JSON_TYPE ? this.jsonHeaders : this.bareHeaders;
  }

  private async send(req: SendRequest): Promise<ApiResult<unknown>> {
    const fullPath = this.prefix + req.path;
    let attempt = 0;
    let backoffRetries = 0;
    let uncertain = false;
    let replayedAfter401 = false;
    for (;;) {
      attempt++;
      if (req.signal?.aborted) throw req.signal.reason;
      const token = req.auth ? (this.tokens.current() ?? (await this.tokens.get(req.signal))) : undefined;
      const started = this.debug ? performance.now() : 0;
      let status: number;
      let rawHeaders: RawHeaders;
      let bytes: Buffer;
      try {
        const res = await exchange(this.pool, {
          method: req.method,
          path: fullPath,
          headers: this.headersFor(req, token),
          body: req.body,
          signal: req.signal,
        });
        status = res.status;
        rawHeaders = res.rawHeaders;
        bytes = res.bytes;
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        const net = classifyNetworkError(err);
        if (this.debug) {
          this.logger.debug(
            `${req.method} ${this.origin}${fullPath} → ${NETWORK_TEXT[net.kind]} (${errorCode(err) ?? 'error'}) after ${Math.round(performance.now() - started)} ms, attempt ${attempt}`,
          );
        }
        const outcome: AttemptOutcome = { network: net.kind, sent: net.sent };
        const plan = planRetry({
          outcome,
          idempotency: req.idempotency,
          attempt,
          backoffRetries,
          options: this.retry,
          budget: this.budget,
          now: this.now(),
          random: this.random,
        });
        if (net.sent) uncertain = true;
        if (plan.kind === 'retry') {
          backoffRetries++;
          await this.waitBeforeRetry(req, {
            attempt,
            method: req.method,
            path: routePath(req),
            error: net.kind,
            delayMs: plan.delayMs,
            serverDirected: false,
          });
          continue;
        }
        const why = plan.kind === 'give_up' && plan.reason !== 'not_retryable' ? ` after ${attempt} attempts` : '';
        const maybe = net.sent && req.idempotency === 'non_idempotent' ? '; the service may have applied it' : '';
        throw new NetworkError(`${req.route}: ${NETWORK_TEXT[net.kind]}${why}${maybe}`, {
          kind: net.kind,
          sent: net.sent || uncertain,
          method: req.method,
          path: routePath(req),
          attempts: attempt,
          cause: err,
        });
      }

      if (status < 400) {
        // The hot path (an import's upserts): headers and body are read only if someone asks.
        const result = new LazyResult(status, rawHeaders, bytes, attempt, uncertain, req.unwrap === true);
        if (this.debug) this.traceAnswer(req, fullPath, status, started, attempt, result.requestId);
        if (hasRawHeader(rawHeaders, 'deprecation')) this.noteDeprecation(req.route, result.headers);
        this.budget.onSuccess();
        return result;
      }
      const headers = headerObject(rawHeaders) as HeaderBag;
      const requestId = firstHeader(headers, 'x-request-id');
      if (this.debug) this.traceAnswer(req, fullPath, status, started, attempt, requestId);
      if (headers.deprecation !== undefined) this.noteDeprecation(req.route, headers);

      if (status === 401 && req.auth && token !== undefined && !replayedAfter401) {
        replayedAfter401 = true;
        const renewed = await this.tokens.renewAfterUnauthorized(token, req.signal);
        if (renewed !== undefined) {
          if (this.debug) this.logger.debug(`${req.route}: 401 unauthorized, token renewed, replaying (attempt ${attempt + 1})`);
          continue;
        }
      }

      const outcome: AttemptOutcome = { status };
      const plan = planRetry({
        outcome,
        idempotency: req.idempotency,
        attempt,
        backoffRetries,
        headers,
        options: this.retry,
        budget: this.budget,
        now: this.now(),
        random: this.random,
      });
      const ambiguousNow = status === 500 || status === 502 || status === 504;
      if (plan.kind === 'retry') {
        if (ambiguousNow) uncertain = true;
        if (!plan.serverDirected) backoffRetries++;
        await this.waitBeforeRetry(req, {
          attempt,
          method: req.method,
          path: routePath(req),
          status,
          delayMs: plan.delayMs,
          serverDirected: plan.serverDirected,
        });
        continue;
      }
      if (plan.kind === 'wait_too_long') throw new RetryWaitTooLongError(plan.delayMs, this.retry.maxRetryWaitMs, status);
      const text = bodyText(bytes);
      const body = parseBody(text, headers);
      if (!req.throwOnError) return { status, body, headers, requestId, attempts: attempt, uncertain };
      const init = parseErrorBody(status, body, text, headers);
      throw new ApiError({
        ...init,
        method: req.method,
        path: routePath(req),
        retryAfterMs: status === 429 || status === 503 ? serverRetryDelay(headers, this.now()) : undefined,
        uncertain: uncertain || (ambiguousNow && req.idempotency === 'non_idempotent'),
      });
    }
  }

  private traceAnswer(req: SendRequest, fullPath: string, status: number, started: number, attempt: number, requestId: string | undefined) {
    this.logger.debug(
      `${req.method} ${this.origin}${fullPath} → ${status} in ${Math.round(performance.now() - started)} ms (attempt ${attempt}${requestId ? `, request id ${requestId}` : ''})`,
    );
  }

  private async waitBeforeRetry(req: SendRequest, info: RetryInfo): Promise<void> {
    if (this.debug) {
      const why = info.status !== undefined ? `HTTP ${info.status}` : info.error;
      this.logger.debug(
        `retry: ${info.method} ${info.path} attempt ${info.attempt} failed (${why}); waiting ${info.delayMs} ms${info.serverDirected ? ' as the service asked' : ' (backoff)'} before attempt ${info.attempt + 1}`,
      );
    }
    req.onRetry?.(info);
    if (info.delayMs > 0) await this.sleep(info.delayMs, req.signal);
  }

  private noteDeprecation(route: string, headers: HeaderBag): void {
    if (this.warnedDeprecations.has(route)) return;
    this.warnedDeprecations.add(route);
    const { successor, sunset } = deprecationNotice(headers);
    const parts = [`${route} is deprecated by the service`];
    const known = KNOWN_SUCCESSORS.find(([re]) => re.test(route))?.[1];
    if (known) parts.push(`use ${known} instead`);
    else if (successor) parts.push(`successor: ${successor}`);
    if (sunset) parts.push(`sunset: ${sunset}`);
    this.logger.warn(parts.join('; '));
  }
}

/** The path part of a route ("POST /v1/contacts" → "/v1/contacts"). */
function routePath(req: SendRequest): string {
  return req.route.slice(req.route.indexOf(' ') + 1);
}

/** Successors the spec names for deprecated routes (the Link header only gives a URL). */
const KNOWN_SUCCESSORS: Array<[RegExp, string]> = [
  [/^POST \/v1\/contacts\/[^/]+\/unsubscribe\/?$/, 'PATCH /v1/contacts/{id} with email_consent "unsubscribed"'],
];

/**
 * A successful answer whose headers, request id and body are worked out on first access (and
 * then kept): an import of a million rows reads only the status of each upsert, and parsing
 * every answer it ignores was about 5% of its CPU.
 */
class LazyResult implements ApiResult<unknown> {
  // True private fields: a spread or Object.keys of a result shows only the public fields.
  readonly #rawHeaders: RawHeaders;
  readonly #bytes: Buffer;
  readonly #unwrap: boolean;
  #headers: HeaderBag | undefined;
  #body: { value: unknown } | undefined;

  constructor(
    readonly status: number,
    rawHeaders: RawHeaders,
    bytes: Buffer,
    readonly attempts: number,
    readonly uncertain: boolean,
    unwrap: boolean,
  ) {
    this.#rawHeaders = rawHeaders;
    this.#bytes = bytes;
    this.#unwrap = unwrap;
  }

  get headers(): HeaderBag {
    this.#headers ??= headerObject(this.#rawHeaders) as HeaderBag;
    return this.#headers;
  }

  get requestId(): string | undefined {
    return firstHeader(this.headers, 'x-request-id');
  }

  get body(): unknown {
    if (this.#body === undefined) {
      const value = parseBody(bodyText(this.#bytes), () => this.headers);
      this.#body = { value: this.#unwrap ? unwrapObject(value) : value };
    }
    return this.#body.value;
  }

  set body(value: unknown) {
    this.#body = { value };
  }

  /** What JSON.stringify and a debugger see: the plain fields. */
  toJSON(): ApiResult<unknown> {
    return {
      status: this.status,
      body: this.body,
      headers: this.headers,
      requestId: this.requestId,
      attempts: this.attempts,
      uncertain: this.uncertain,
    };
  }
}

function parseBody(text: string, headers: HeaderBag | (() => HeaderBag)): unknown {
  if (text.length === 0) return undefined;
  // A body that opens like JSON is tried as JSON whatever its type says; only other bodies need
  // the content type (and, for a LazyResult, the header object built for it).
  const opensLikeJson = text.charCodeAt(0) === 123 /* { */ || text.charCodeAt(0) === 91; /* [ */
  if (opensLikeJson || (firstHeader(typeof headers === 'function' ? headers() : headers, 'content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
