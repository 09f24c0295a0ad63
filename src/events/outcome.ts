/**
 * What became of one event. Events are not idempotent, so a send that may have reached the
 * service without a definite answer is `unconfirmed` and is never sent again automatically.
 */
import { ApiError, CredentialsError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../client/errors.js';

export type EventOutcome = 'accepted' | 'rejected' | 'failed' | 'unconfirmed';

export const EVENT_OUTCOMES: readonly EventOutcome[] = ['accepted', 'rejected', 'failed', 'unconfirmed'];

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

export type ClassifiedError = Omit<LineResult, 'line' | 'eventType' | 'id'>;

/**
 * Errors that concern every event, not one line (bad or missing credentials, missing scope):
 * a bulk send stops at once instead of recording the same failure for each line.
 */
export function isFatalSendError(err: unknown): boolean {
  return (
    err instanceof CredentialsError ||
    err instanceof MissingScopeError ||
    (err instanceof ApiError && err.isAuthError) ||
    (err instanceof Error && err.name === 'NotImplementedError')
  );
}

/**
 * The line a fatal error hit: refused before any processing (401, 403, no usable credentials),
 * so `failed` — certainly not stored, safe to send again once the credentials are fixed.
 */
export function classifyFatalError(err: unknown): ClassifiedError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof ApiError) {
    return { outcome: 'failed', status: err.status, errorCode: err.code, message: `${message} (not processed; the run stopped here)` };
  }
  const code = err instanceof MissingScopeError ? 'insufficient_scope' : err instanceof CredentialsError ? 'not_logged_in' : 'fatal';
  return { outcome: 'failed', errorCode: code, message: `${message} (not sent; the run stopped here)` };
}

/** 5xx answers that do not say the request went unprocessed (only 503 does). */
function mayHaveBeenApplied(status: number): boolean {
  return status >= 500 && status !== 503;
}

/** Maps a failed send (after the client's own safe retries) to its outcome. */
export function classifySendError(err: unknown): ClassifiedError {
  if (err instanceof ApiError) {
    const classified = classifyApiError(err);
    return err.requestId === undefined ? classified : { ...classified, requestId: err.requestId };
  }
  return classifyOtherError(err);
}

function classifyApiError(err: ApiError): ClassifiedError {
  const message = err.details?.length ? `${err.message}: ${err.details.map((d) => `${d.field} ${d.message}`).join('; ')}` : err.message;
  if (err.uncertain || mayHaveBeenApplied(err.status)) {
    return {
      outcome: 'unconfirmed',
      status: err.status,
      errorCode: err.code,
      message: `HTTP ${err.status} ${message}; the event may have been stored, so it was not resent`,
    };
  }
  if (err.status === 429 || err.status === 503 || err.status === 408) {
    return { outcome: 'failed', status: err.status, errorCode: err.code, message: `${message} (gave up after retries; not processed)` };
  }
  return { outcome: 'rejected', status: err.status, errorCode: err.code, message };
}

function classifyOtherError(err: unknown): ClassifiedError {
  if (err instanceof RetryWaitTooLongError) {
    return { outcome: 'failed', status: err.status, errorCode: 'retry_wait_too_long', message: err.message };
  }
  if (err instanceof NetworkError) {
    if (err.sent) {
      return {
        outcome: 'unconfirmed',
        errorCode: `network_${err.kind}`,
        message: `${err.message}; the connection ended after the event was sent, so it may have been stored and was not resent`,
      };
    }
    return { outcome: 'failed', errorCode: `network_${err.kind}`, message: `${err.message} (not sent; gave up after retries)` };
  }
  // Anything else happened somewhere between building and answering the request: it may have
  // been sent, so the safe outcome is the one that forbids an automatic resend.
  const message = err instanceof Error ? err.message : String(err);
  return { outcome: 'unconfirmed', errorCode: 'unexpected', message: `unexpected error: ${message}; the event may have been stored` };
}
