/**
 * The request pipeline every endpoint goes through: bearer token (renewed once after a 401 and
 * the request replayed), the retry policy of retry.ts with its budget, one deprecation warning per
 * route, and the --debug trace (formatted only when debug is on). The success path allocates one
 * result and awaits one exchange: an import sends a million requests through it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { stringifyJson } from '../contract/exact-json.js';
import { createTokenProvider, type TokenProvider } from './auth.js';
import { DeprecationWarnings } from './deprecation.js';
import { ApiError, NetworkError, type NetworkFailureKind, RetryWaitTooLongError, UnsendableRequestError } from './errors.js';
import { FirstAnswer } from './first-answer.js';
import { JSON_TYPE, RequestHeaders } from './headers.js';
import { LazyResult, parseBody } from './lazy-result.js';
import { classifyNetworkError, detail, errorCode, isUnsendable, NETWORK_TEXT, proxyFailure, proxyOwnAnswer } from './network.js';
import { type AnswerWait, DEFAULT_PATIENCE_MS, sendPatiently } from './patience.js';
import {
  type AnswerCheck,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type PipelineOptions,
  routePath,
  type SendRequest,
} from './pipeline-types.js';
import { displayProxy, proxyFor } from './proxy.js';
import { sameOriginPath } from './query.js';
import { firstHeader, parseErrorBody } from './response.js';
import {
  DEFAULT_RETRY_OPTIONS,
  type Idempotency,
  MAX_TIMER_MS,
  planRetry,
  RetryBudget,
  type RetryOptions,
  serverRetryDelay,
} from './retry.js';
import { RouteCheck } from './route-check.js';
import { bodyText, type Exchange, Transport } from './transport.js';
import type { ApiResult, CallOptions, ClientLogger, RetryInfo } from './types.js';

export type { AnswerCheck, PipelineOptions, SendRequest };
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS };

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Statuses after which a request may or may not have been applied. */
const AMBIGUOUS_STATUSES = new Set([500, 502, 504]);

/** What afterErrorStatus answers when the request is to be sent again. */
const TRY_AGAIN = Symbol('try again');

/** What a request's attempts have learnt so far (made at its first failure). */
interface AttemptsState {
  backoffRetries: number;
  /** Whether an earlier attempt may have been applied. */
  uncertain: boolean;
  refusedToken: string | undefined;
  replays401: number;
}

function newAttemptsState(): AttemptsState {
  return { backoffRetries: 0, uncertain: false, refusedToken: undefined, replays401: 0 };
}

/** The attempt a failure or an error answer belongs to. */
interface AttemptAt {
  fullPath: string;
  token: string | undefined;
  started: number;
  attempt: number;
  wait: AnswerWait | undefined;
}

export class RequestPipeline {
  readonly baseUrl: string;
  readonly tokens: TokenProvider;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly transport: Transport;
  private readonly logger: ClientLogger;
  private readonly debug: boolean;
  private readonly retry: RetryOptions;
  private readonly budget: RetryBudget;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly patienceMs: number;
  private readonly headers: RequestHeaders;
  private readonly deprecations: DeprecationWarnings;
  /** Whether a 404 is the request's own or the whole base URL's (route-check.ts). */
  private readonly routes: RouteCheck;
  readonly firstAnswer = new FirstAnswer(); // whether the address has answered any request
  /** When the last "cannot connect, retrying" notice was given (one a second at most, however many requests wait). */
  private connectNoticeAt = Number.NEGATIVE_INFINITY;

  constructor(opts: PipelineOptions) {
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
    this.patienceMs = opts.patienceMs ?? DEFAULT_PATIENCE_MS;
    this.sleep = opts.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.headers = new RequestHeaders(opts.userAgent ?? 'svc');
    this.deprecations = new DeprecationWarnings(opts.logger);
    this.routes = new RouteCheck((req) => this.send(req), this.baseUrl, this.prefix);
    this.transport = new Transport(
      this.origin,
      {
        connections: opts.connections ?? 64,
        connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
        headersTimeoutMs: opts.headersTimeoutMs ?? 60_000,
        bodyTimeoutMs: opts.bodyTimeoutMs ?? 60_000,
        maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        deadlineMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        proxy: opts.proxy,
      },
      proxyFor(this.origin, opts.proxy),
    );
    this.tokens = createTokenProvider(
      opts.credentials,
      (req, signal) => this.exchangeToken(req, signal),
      opts.logger,
      this.now,
      opts.onSecret,
    );
  }

  /** A JSON body to an endpoint answering one object (thrown ApiError on a status ≥ 400). */
  sendJson<T>(
    method: string,
    path: string,
    route: string,
    body: unknown,
    idempotency: Idempotency,
    opts: CallOptions | undefined,
    integrationToken?: string,
    verify?: AnswerCheck,
  ): Promise<ApiResult<T>> {
    return this.send({
      method,
      path,
      route,
      body: stringifyJson(body),
      contentType: JSON_TYPE,
      integrationToken,
      idempotency: opts?.repeatable ? 'idempotent' : idempotency,
      auth: true,
      throwOnError: true,
      unwrap: true,
      signal: opts?.signal,
      patienceMs: opts?.patienceMs,
      onRetry: opts?.onRetry,
      onRateHeaders: opts?.onRateHeaders,
      verify,
    }) as Promise<ApiResult<T>>;
  }

  /**
   * Sends a request through token, retries and 401 replay; resolves with the first definite answer.
   * Gives up after the call's patience (patience.ts) passes without any answer.
   */
  async send(req: SendRequest): Promise<ApiResult<unknown>> {
    const where = this.transport.proxy === undefined ? this.origin : `${this.origin} through ${displayProxy(this.transport.proxy)}`;
    const notice = this.debug ? undefined : this.logger.notice?.bind(this.logger);
    return sendPatiently(req, req.patienceMs ?? this.patienceMs, { where, notice }, (r, wait) => this.sendAttempts(r, wait));
  }

  private async sendAttempts(req: SendRequest, wait?: AnswerWait): Promise<ApiResult<unknown>> {
    const fullPath = this.prefix + req.path;
    let attempt = 0;
    // Made at the first failure: the success path (a million upserts) allocates none.
    let state: AttemptsState | undefined;
    for (;;) {
      attempt++;
      if (req.signal?.aborted) throw req.signal.reason;
      const token = req.auth ? (this.tokens.current() ?? (await this.tokens.get(req.signal))) : undefined;
      const started = this.debug ? performance.now() : 0;
      let res: Exchange;
      try {
        res = await this.transport.exchange(
          { method: req.method, path: fullPath, headers: this.headers.for(req, token), body: req.body },
          req.signal,
        );
      } catch (err) {
        state ??= newAttemptsState();
        await this.afterExchangeFailure(req, err, state, { fullPath, token, started, attempt, wait });
        continue;
      }
      this.heard(req, res, wait);
      if (res.status < 400) return this.success(req, res, fullPath, started, attempt, state?.uncertain === true);
      state ??= newAttemptsState();
      const answer = await this.afterErrorStatus(req, res, state, { fullPath, token, started, attempt, wait });
      if (answer !== TRY_AGAIN) return answer;
    }
  }

  /** Any answer: the patience wait ends, and the rate headers go to whoever reads them. */
  private heard(req: SendRequest, res: Exchange, wait: AnswerWait | undefined): void {
    wait?.answered();
    this.firstAnswer.hear();
    if (req.onRateHeaders && (res.hasHeader('ratelimit-remaining') || res.hasHeader('x-ratelimit-remaining')))
      req.onRateHeaders(res.headers);
  }

  /** The hot path (an import's upserts): the headers and the body are read only if someone asks. */
  private success(req: SendRequest, res: Exchange, fullPath: string, started: number, attempt: number, uncertain: boolean): LazyResult {
    const result = new LazyResult(res.status, res, attempt, uncertain, req.unwrap === true);
    if (this.debug) this.traceAnswer(req, fullPath, res.status, started, attempt, result.requestId);
    if (req.verify !== undefined) this.checkAnswer(req, res, result);
    if (res.hasHeader('deprecation')) this.deprecations.note(req.route, res.headers);
    this.budget.onSuccess();
    return result;
  }

  /** A request that got no answer: thrown when it cannot be sent or tried again, else waited on. */
  private async afterExchangeFailure(req: SendRequest, err: unknown, state: AttemptsState, at: AttemptAt): Promise<void> {
    if (req.signal?.aborted) throw req.signal.reason;
    if (isUnsendable(err)) {
      // The message names the header ("invalid authorization header"), never its value.
      const what = err instanceof Error ? err.message : 'invalid request';
      throw new UnsendableRequestError(`${req.route}: the request cannot be sent (${what})`, {
        method: req.method,
        path: routePath(req),
        cause: err,
      });
    }
    const net = proxyFailure(this.transport, err) ?? classifyNetworkError(err);
    if (net.sent) state.uncertain = true;
    await this.retryAfterNetworkFailure(req, at.fullPath, err, net, {
      started: at.started,
      attempt: at.attempt,
      backoffRetries: state.backoffRetries,
      uncertain: state.uncertain,
    });
    state.backoffRetries++;
  }

  /**
   * An answer of status 400 or more: TRY_AGAIN after a renewed token or a retry's wait; otherwise
   * the answer (when the request does not throw on errors) or a thrown ApiError.
   */
  private async afterErrorStatus(
    req: SendRequest,
    res: Exchange,
    state: AttemptsState,
    at: AttemptAt,
  ): Promise<ApiResult<unknown> | typeof TRY_AGAIN> {
    const { status, headers } = res;
    const requestId = firstHeader(headers, 'x-request-id');
    if (this.debug) this.traceAnswer(req, at.fullPath, status, at.started, at.attempt, requestId);
    if (headers.deprecation !== undefined) this.deprecations.note(req.route, headers);
    if (status === 401 && (await this.replayAfter401(req, state, at))) return TRY_AGAIN;
    const own = status >= 500 ? proxyOwnAnswer(this.transport, this.origin, req, res, at.attempt, state.uncertain) : undefined;
    if (own !== undefined) throw own;
    if (await this.retryStatus(req, status, headers, state, at)) return TRY_AGAIN;
    return this.refusal(req, res, requestId, state.uncertain, at);
  }

  /**
   * A 401 is replayed once per token: a request retried for seconds (500s, resets) may see its
   * token expire more than once; a token refused twice is not renewed again (at most 3 replays).
   */
  private async replayAfter401(req: SendRequest, state: AttemptsState, at: AttemptAt): Promise<boolean> {
    const token = at.token;
    if (!req.auth || token === undefined || token === state.refusedToken || state.replays401 >= 3) return false;
    state.refusedToken = token;
    state.replays401++;
    const renewed = await this.tokens.renewAfterUnauthorized(token, req.signal);
    if (renewed === undefined) return false;
    if (this.debug) this.logger.debug(`${req.route}: 401 unauthorized, token renewed, replaying (attempt ${at.attempt + 1})`);
    return true;
  }

  /** Waits before the next attempt when the retry policy says to (true); throws when the wait asked is too long. */
  private async retryStatus(
    req: SendRequest,
    status: number,
    headers: Exchange['headers'],
    state: AttemptsState,
    at: AttemptAt,
  ): Promise<boolean> {
    const plan = planRetry({
      outcome: { status },
      idempotency: req.idempotency,
      attempt: at.attempt,
      backoffRetries: state.backoffRetries,
      headers,
      options: this.retry,
      budget: this.budget,
      now: this.now(),
      random: this.random,
    });
    if (plan.kind === 'wait_too_long') {
      throw new RetryWaitTooLongError(plan.delayMs, Math.min(this.retry.maxRetryWaitMs, MAX_TIMER_MS), status);
    }
    if (plan.kind !== 'retry') return false;
    if (AMBIGUOUS_STATUSES.has(status)) state.uncertain = true;
    if (plan.serverDirected) at.wait?.pause();
    else state.backoffRetries++;
    await this.waitBeforeRetry(req, {
      attempt: at.attempt,
      method: req.method,
      path: routePath(req),
      status,
      delayMs: plan.delayMs,
      serverDirected: plan.serverDirected,
    });
    at.wait?.resume();
    return true;
  }

  /** A final error answer: returned as it is, or thrown as an ApiError (a 404 explained by route-check.ts). */
  private async refusal(
    req: SendRequest,
    res: Exchange,
    requestId: string | undefined,
    uncertain: boolean,
    at: AttemptAt,
  ): Promise<ApiResult<unknown>> {
    const { status, headers } = res;
    const text = bodyText(res.bytes);
    const body = parseBody(text, () => firstHeader(headers, 'content-type'));
    if (!req.throwOnError) return { status, body, headers, requestId, attempts: at.attempt, uncertain };
    const err = new ApiError({
      ...parseErrorBody(status, body, text, headers),
      method: req.method,
      path: routePath(req),
      retryAfterMs: status === 429 || status === 503 ? serverRetryDelay(headers, this.now()) : undefined,
      uncertain: uncertain || (AMBIGUOUS_STATUSES.has(status) && req.idempotency === 'non_idempotent'),
    });
    throw status === 404 && req.auth ? await this.routes.explain404(err, req.method, req.route, at.fullPath, req.signal) : err;
  }

  /** A next-page URL as a path relative to the base URL (query.ts). */
  sameOriginPath(url: string): string {
    return sameOriginPath(url, this.origin, this.prefix);
  }

  close(): Promise<void> {
    return this.transport.close().catch(() => undefined);
  }

  /** The proxy requests to the service go through (without its credentials), or undefined. */
  get proxy(): string | undefined {
    return this.transport.proxy === undefined ? undefined : displayProxy(this.transport.proxy);
  }

  /**
   * An answer that does not belong to its request: the connections it may have come on are
   * dropped, and the request fails as one that may have been applied (never retried here).
   */
  private checkAnswer(req: SendRequest, res: Exchange, result: LazyResult): void {
    const why = (req.verify as AnswerCheck)({ bytes: res.bytes, body: () => result.body });
    if (why === undefined) return;
    this.transport.dropConnections();
    if (this.debug) this.logger.debug(`${req.route}: ${why}; connections dropped`);
    throw new NetworkError(`${req.route}: the answer does not belong to the request (${why}); the service may have applied it`, {
      kind: 'protocol',
      sent: true,
      method: req.method,
      path: routePath(req),
      attempts: result.attempts,
    });
  }

  /**
   * After a transport failure: waits and returns when the request may be tried again; otherwise
   * throws the NetworkError (whether the service may have applied the request included).
   */
  private async retryAfterNetworkFailure(
    req: SendRequest,
    fullPath: string,
    err: unknown,
    net: { kind: NetworkFailureKind; sent: boolean; proxyText?: string },
    state: { started: number; attempt: number; backoffRetries: number; uncertain: boolean },
  ): Promise<void> {
    const { attempt } = state;
    if (this.debug) {
      this.logger.debug(
        `${req.method} ${this.origin}${fullPath} → ${net.proxyText ?? NETWORK_TEXT[net.kind]} (${errorCode(err) ?? 'error'}) after ${Math.round(performance.now() - state.started)} ms, attempt ${attempt}`,
      );
    }
    const plan = planRetry({
      outcome: { network: net.kind, sent: net.sent },
      idempotency: req.idempotency,
      attempt,
      backoffRetries: state.backoffRetries,
      options: this.retry,
      budget: this.budget,
      now: this.now(),
      random: this.random,
    });
    if (plan.kind === 'retry') {
      if (!net.sent) this.noticeConnectRetry(net.kind, attempt);
      await this.waitBeforeRetry(req, {
        attempt,
        method: req.method,
        path: routePath(req),
        error: net.kind,
        delayMs: plan.delayMs,
        serverDirected: false,
      });
      return;
    }
    const why = plan.kind === 'give_up' && plan.reason !== 'not_retryable' ? ` after ${attempt} attempts` : '';
    const maybe = net.sent && req.idempotency === 'non_idempotent' ? '; the service may have applied it' : '';
    const text = net.proxyText ?? (net.kind === 'too_large' ? this.transport.tooLarge().message : detail(err, net.kind));
    throw new NetworkError(`${req.route}: ${text}${why}${maybe}`, {
      kind: net.kind,
      sent: state.uncertain,
      method: req.method,
      path: routePath(req),
      attempts: attempt,
      cause: err,
    });
  }

  /**
   * No connection could be made and the request will be tried again: say so (a refused connection
   * is otherwise retried for seconds in silence). The --debug trace already tells each retry.
   */
  private noticeConnectRetry(kind: NetworkFailureKind, attempt: number): void {
    if (this.debug || this.logger.notice === undefined) return;
    const now = this.now();
    if (now - this.connectNoticeAt < 1000) return;
    this.connectNoticeAt = now;
    this.logger.notice(
      `cannot connect to ${this.origin} (${NETWORK_TEXT[kind]}); retrying (attempt ${attempt + 1} of ${this.retry.maxAttempts})…`,
    );
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
    const planned = info.delayMs;
    req.onRetry?.(info);
    // onRetry may shorten a backoff (RetryInfo.delayMs), never a wait the service asked for.
    const delay = info.serverDirected ? planned : Math.min(planned, Math.max(0, info.delayMs));
    if (delay > 0) await this.sleep(delay, req.signal);
  }
}
