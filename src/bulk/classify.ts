/**
 * The one classifier of a bulk run's errors. Every bulk command (orders import, events send
 * --file, the --ids-file verbs of contacts, contacts import) asks it what an error means for the
 * row and for the run, then words the row's outcome in its own vocabulary (an idempotent upsert
 * "failed" is an event "unconfirmed" when it may have been applied).
 */
import {
  ApiError,
  CredentialsError,
  isTransientStatus,
  isWrongTokenEndpoint,
  MissingScopeError,
  mayFollowAppliedWrite,
  NetworkError,
  RetryWaitTooLongError,
  UnsendableRequestError,
} from '../client/errors.js';
import { UnknownRouteError } from '../client/route-check.js';

/**
 * - `fatal`: concerns every row (credentials revoked, missing or unsendable, scope missing, headers too
 *   large, a base URL under which the service knows no route): the run stops
 *   instead of recording the same failure for each row.
 * - `row`: the service answered and refused this row (a definite 4xx): sending it again as it is
 *   gives the same answer.
 * - `retryable`: nothing definite (rate limit or outage outlasting the retries, connection lost,
 *   a wait too long): a later run may succeed.
 */
export type ErrorScope = 'fatal' | 'row' | 'retryable';

export interface ErrorClass {
  scope: ErrorScope;
  /**
   * The service may have applied the request although it did not say so (connection lost after
   * sending, 500/502/504, an earlier attempt without an answer): a non-idempotent request must not
   * be sent again blindly.
   */
  maybeApplied: boolean;
  /** The HTTP status of the last answer, when there was one. */
  status?: number;
}

/** Errors that would fail every row the same way. */
export function isFatalForRun(err: unknown): boolean {
  return (
    err instanceof CredentialsError ||
    err instanceof MissingScopeError ||
    err instanceof UnsendableRequestError ||
    // A base URL under which the service knows no route (…/v1: every path /v1/v1/…), for the
    // requests (route-check.ts) and for the token request alike.
    err instanceof UnknownRouteError ||
    isWrongTokenEndpoint(err) ||
    // The proxy unreachable before any answer came through it, refusing (407, no tunnel) or
    // answering a 5xx itself: every row would meet it, and the service is not to blame.
    (err instanceof NetworkError && err.kind === 'proxy') ||
    // 431: the request's headers are too large (a 100 KB token): every row would be refused alike.
    (err instanceof ApiError && (err.isAuthError || ['unauthorized', 'forbidden', 'headers_too_large'].includes(err.kind)))
  );
}

export function classifyError(err: unknown): ErrorClass {
  if (err instanceof NetworkError && err.kind === 'proxy') return { scope: 'fatal', maybeApplied: err.sent };
  if (isFatalForRun(err)) return { scope: 'fatal', maybeApplied: false, status: err instanceof ApiError ? err.status : undefined };
  if (err instanceof ApiError) {
    const definite = !isTransientStatus(err.status);
    return { scope: definite ? 'row' : 'retryable', maybeApplied: err.uncertain || mayFollowAppliedWrite(err.status), status: err.status };
  }
  if (err instanceof RetryWaitTooLongError) return { scope: 'retryable', maybeApplied: false, status: err.status };
  if (err instanceof NetworkError) return { scope: 'retryable', maybeApplied: err.sent };
  // Anything else happened somewhere between building and answering the request: it may have
  // been sent, so the safe reading is the one that forbids an automatic resend.
  return { scope: 'retryable', maybeApplied: true };
}
