/**
 * What became of one event (the events adapter's outcome words). Events are not idempotent, so a
 * send that may have reached the service without a definite answer is `unconfirmed` and is never
 * sent again automatically.
 */

import { ApiError, CredentialsError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../../client/errors.js';
import { messageWithDetails } from '../../contract/errors.js';
import { classifyError } from '../classify.js';

/**
 * `unmatched`: the answer could not be tied to the line's request (another request's, a page that
 * is not the service's): whether the event was stored is unknown. Exit 4, never resent.
 */
export type EventOutcome = 'accepted' | 'rejected' | 'failed' | 'unconfirmed' | 'unmatched';

export const EVENT_OUTCOMES: readonly EventOutcome[] = ['accepted', 'rejected', 'failed', 'unconfirmed', 'unmatched'];

export interface LineResult {
  /** 1-based line number in the NDJSON input (1 for a single event). */
  line: number;
  eventType?: string;
  outcome: EventOutcome;
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** The accepted event's id (`ev_…`). */
  id?: string;
  errorCode?: string;
  message?: string;
  /** The service's request id of the last answer, when there was one (for support). */
  requestId?: string;
}

export type ClassifiedError = Omit<LineResult, 'line' | 'eventType' | 'id'> & { errorField?: string };

/**
 * The line a fatal error hit: refused before any processing (401, 403, no usable credentials, a
 * proxy that cannot be reached or refuses), so `failed` — certainly not stored, safe to send again
 * once fixed; `unconfirmed` after a proxy's own 502/504, which may have passed it on.
 */
export function classifyFatalError(err: unknown): ClassifiedError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError) {
    return { outcome: 'failed', status: err.status, errorCode: err.code, message: `${message} (not processed; the run stopped here)` };
  }
  // A proxy's own 502/504: it may have passed the event on, so it is not sent again.
  if (err instanceof NetworkError && err.sent)
    return {
      outcome: 'unconfirmed',
      errorCode: 'proxy_error',
      message: `${message}; the event may have been stored, so it was not resent`,
    };
  if (err instanceof NetworkError)
    return { outcome: 'failed', errorCode: 'proxy_error', message: `${message} (not sent; the run stopped here)` };
  const code = err instanceof MissingScopeError ? 'insufficient_scope' : err instanceof CredentialsError ? 'not_logged_in' : 'fatal';
  return { outcome: 'failed', errorCode: code, message: `${message} (not sent; the run stopped here)` };
}

/** Maps a failed send (after the client's own safe retries) to its outcome. */
export function classifySendError(err: unknown): ClassifiedError {
  if (err instanceof NetworkError && err.kind === 'protocol') {
    return {
      outcome: 'unmatched',
      errorCode: 'answer_mismatch',
      message: `${err.message}; whether it was stored is unknown, so it was not resent`,
    };
  }
  const { scope, maybeApplied, status } = classifyError(err);
  const outcome: EventOutcome = maybeApplied ? 'unconfirmed' : scope === 'row' ? 'rejected' : 'failed';
  const classified = describe(err, outcome, status);
  return err instanceof ApiError && err.requestId !== undefined ? { ...classified, requestId: err.requestId } : classified;
}

/** The words of a line's outcome: what happened and whether it may be sent again. */
function describe(err: unknown, outcome: EventOutcome, status: number | undefined): ClassifiedError {
  if (err instanceof ApiError) {
    const message = messageWithDetails(err.message, err.details);
    const field = err.details?.[0]?.field;
    if (outcome === 'rejected' && field !== undefined) return { outcome, status, errorCode: err.code, message, errorField: field };
    if (outcome === 'unconfirmed') {
      return {
        outcome,
        status,
        errorCode: err.code,
        message: `HTTP ${err.status} ${message}; the event may have been stored, so it was not resent`,
      };
    }
    if (outcome === 'failed') return { outcome, status, errorCode: err.code, message: `${message} (gave up after retries; not processed)` };
    return { outcome, status, errorCode: err.code, message };
  }
  if (err instanceof RetryWaitTooLongError) return { outcome, status, errorCode: 'retry_wait_too_long', message: err.message };
  if (err instanceof NetworkError) {
    if (outcome === 'unconfirmed') {
      return {
        outcome,
        errorCode: `network_${err.kind}`,
        message: `${err.message}; the connection ended after the event was sent, so it may have been stored and was not resent`,
      };
    }
    return { outcome, errorCode: `network_${err.kind}`, message: `${err.message} (not sent; gave up after retries)` };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { outcome, errorCode: 'unexpected', message: `unexpected error: ${message}; the event may have been stored` };
}
