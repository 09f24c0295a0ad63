/**
 * The API client's error model. Knows nothing of exit codes or terminals: main.ts maps these.
 */
import type { FieldError } from '../contract/errors.js';

export interface ApiErrorInit {
  status: number;
  code: string;
  message: string;
  id?: string;
  requestId?: string;
  requiredScope?: string;
  details?: FieldError[];
  retryAfterMs?: number;
  method?: string;
  path?: string;
  /** An earlier attempt of this request ended without a definite answer (it may have been applied). */
  uncertain?: boolean;
}

/**
 * What an HTTP status says, decided here once: code above the client matches these kinds, never
 * status numbers. `suppressed`: the contact is suppressed by the system (422 compliance_suppressed).
 */
export type StatusKind =
  | 'ok'
  | 'created'
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'timeout'
  | 'conflict'
  | 'too_large'
  | 'suppressed'
  | 'rate_limited'
  | 'headers_too_large'
  | 'unavailable'
  | 'server_error'
  | 'other';

const STATUS_KINDS: Record<number, StatusKind> = {
  200: 'ok',
  201: 'created',
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'timeout',
  409: 'conflict',
  413: 'too_large',
  422: 'suppressed',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'unavailable',
};

/** The kind of an HTTP status (any 2xx other than 201 is `ok`; any other 5xx is `server_error`). */
export function statusKind(status: number): StatusKind {
  const known = STATUS_KINDS[status];
  if (known !== undefined) return known;
  if (status >= 200 && status < 300) return 'ok';
  if (status >= 500 && status < 600) return 'server_error';
  return 'other';
}

/**
 * Whether an answer with this status may follow a write the service applied: any 5xx but 503
 * (which says "not processed"), and no answer at all (undefined status) is decided elsewhere.
 */
export function mayFollowAppliedWrite(status: number): boolean {
  return statusKind(status) === 'server_error';
}

/** A refusal that says nothing about the row itself and would come again on a retry (408, 429, 5xx). */
export function isTransientStatus(status: number): boolean {
  const kind = statusKind(status);
  return kind === 'timeout' || kind === 'rate_limited' || kind === 'unavailable' || kind === 'server_error';
}

/** The service answered with a status ≥ 400. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly id?: string;
  readonly requestId?: string;
  readonly requiredScope?: string;
  readonly details?: FieldError[];
  readonly retryAfterMs?: number;
  readonly method?: string;
  readonly path?: string;
  readonly uncertain: boolean;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    ({
      status: this.status,
      code: this.code,
      id: this.id,
      requestId: this.requestId,
      requiredScope: this.requiredScope,
      details: this.details,
      retryAfterMs: this.retryAfterMs,
      method: this.method,
      path: this.path,
    } = init);
    this.uncertain = init.uncertain ?? false;
  }

  /** What the status says (statusKind). */
  get kind(): StatusKind {
    return statusKind(this.status);
  }

  /** The same error with another message (commands explain the service's answer in their terms). */
  withMessage(message: string): ApiError {
    // The error's own enumerable fields are its ApiErrorInit (message and stack are not enumerable).
    return new ApiError({ ...this, message });
  }

  /** Authentication or authorization failure (exit code 3 in the CLI). */
  get isAuthError(): boolean {
    return (
      this.status === 401 ||
      this.code === 'unauthorized' ||
      this.code === 'invalid_client' ||
      this.code === 'invalid_scope' ||
      this.code === 'insufficient_scope'
    );
  }
}

/** Answers of the token request that no token endpoint gives: the base URL's path is probably wrong (…/v1, …/api). */
const NOT_A_TOKEN_ENDPOINT = new Set([404, 405, 415]);

/** The token request reached something that is no token endpoint (404, 405, 415). */
export function isWrongTokenEndpoint(err: unknown): err is ApiError {
  return err instanceof ApiError && err.path === '/oauth/token' && NOT_A_TOKEN_ENDPOINT.has(err.status);
}

/**
 * `too_large`: the answer passed the size limit; `proxy`: the proxy could not be reached or refused
 * to connect (at the start of a command: a configuration problem, not an outage); `protocol`: the
 * answer did not belong to its request (answer-identity.ts), the connection was dropped.
 */
export type NetworkFailureKind = 'refused' | 'reset' | 'timeout' | 'dns' | 'tls' | 'too_large' | 'proxy' | 'protocol' | 'other';

/**
 * No HTTP answer. `sent` tells whether the request may have reached the service: a refused
 * connection certainly did not; a reset or a timeout after sending may have been applied.
 */
export class NetworkError extends Error {
  readonly kind: NetworkFailureKind;
  readonly sent: boolean;
  readonly method?: string;
  readonly path?: string;
  readonly attempts: number;

  constructor(
    message: string,
    init: { kind: NetworkFailureKind; sent: boolean; method?: string; path?: string; attempts?: number; cause?: unknown },
  ) {
    super(message, { cause: init.cause });
    this.name = 'NetworkError';
    ({ kind: this.kind, sent: this.sent, method: this.method, path: this.path } = init);
    this.attempts = init.attempts ?? 1;
  }
}

/**
 * The request cannot be sent as built (the pool refused it: a header value with a line break or a
 * control character, as a credential pasted with one). Never retried: it would fail the same way.
 */
export class UnsendableRequestError extends Error {
  readonly method?: string;
  readonly path?: string;
  constructor(message: string, init: { method?: string; path?: string; cause?: unknown } = {}) {
    super(message, { cause: init.cause });
    this.name = 'UnsendableRequestError';
    this.method = init.method;
    this.path = init.path;
  }
}

/**
 * A listing that cannot go on: a page that is no list, a next-page cursor seen before (which
 * would loop forever), or one the client does not understand (a number, an object: following it
 * is guesswork, ending there would cut the list short). What was already printed stays; the
 * message says the listing is incomplete.
 */
export class IncompleteListingError extends Error {
  readonly code: 'invalid_page' | 'repeated_cursor' | 'invalid_cursor';
  constructor(code: 'invalid_page' | 'repeated_cursor' | 'invalid_cursor', message: string) {
    super(message);
    this.name = 'IncompleteListingError';
    this.code = code;
  }
}

/** The service asked to wait longer than the configured maximum (no silent cap). */
export class RetryWaitTooLongError extends Error {
  readonly waitMs: number;
  readonly maxWaitMs: number;
  readonly status: number;
  constructor(waitMs: number, maxWaitMs: number, status: number) {
    super(
      `the service asked to wait ${Math.ceil(waitMs / 1000)} s before retrying (HTTP ${status}), more than the maximum of ${Math.ceil(maxWaitMs / 1000)} s; raise it with --max-retry-wait or SVC_MAX_RETRY_WAIT`,
    );
    this.name = 'RetryWaitTooLongError';
    this.waitMs = waitMs;
    this.maxWaitMs = maxWaitMs;
    this.status = status;
  }
}

/** Credentials are missing or unusable before any request (exit code 3). */
export class CredentialsError extends Error {
  constructor(
    message: string,
    /** What to do about it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** The cached granted scopes lack what an operation needs (exit code 3, no request sent). */
export class MissingScopeError extends Error {
  readonly scope: string;
  readonly granted: string[];
  constructor(scope: string, granted: string[]) {
    super(`the credentials were not granted the scope ${scope} (granted: ${granted.length ? granted.join(' ') : 'none'})`);
    this.name = 'MissingScopeError';
    this.scope = scope;
    this.granted = granted;
  }
}
