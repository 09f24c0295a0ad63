/** What a row's failed request becomes in an import's outcomes (orders, contacts). */

import { ApiError, NetworkError, RetryWaitTooLongError } from '../../client/errors.js';
import { describeFieldErrors } from '../../importer/mapping.js';
import { classifyError } from '../classify.js';
import type { Outcome } from '../outcome.js';

/**
 * A failed upsert's row: refused by the service (`rejected`), not done now (`failed`; orders are
 * idempotent), or answered with an answer that is not its own (`unmatched`).
 */
export function classifyUpsertError(err: unknown): {
  outcome: Outcome;
  status?: number;
  errorCode: string;
  message: string;
  errorField?: string;
  maybeApplied?: true;
} {
  const { scope, status, maybeApplied } = classifyError(err);
  const outcome: Outcome = scope === 'row' ? 'rejected' : 'failed';
  return outcome === 'failed' && maybeApplied
    ? { ...describeUpsertError(err, outcome, status), maybeApplied }
    : describeUpsertError(err, outcome, status);
}

function describeUpsertError(
  err: unknown,
  outcome: Outcome,
  status: number | undefined,
): { outcome: Outcome; status?: number; errorCode: string; message: string; errorField?: string } {
  if (err instanceof ApiError) {
    const detail = err.details?.length ? `: ${describeFieldErrors(err.details)}` : '';
    const field = err.details?.[0]?.field;
    return {
      outcome,
      status,
      errorCode: err.code,
      message: `${err.message}${detail}`,
      ...(field !== undefined ? { errorField: field } : {}),
    };
  }
  // An answer that could not be tied to the request (another's, a stale one, a page that is not
  // the service's: client/answer-identity.ts): the write may or may not have been applied. Not
  // `unconfirmed` (stored for sure): the run ends with exit 4 and --resume sends the row again.
  if (err instanceof NetworkError && err.kind === 'protocol')
    return { outcome: 'unmatched', errorCode: 'answer_mismatch', message: err.message };
  if (err instanceof NetworkError)
    return { outcome, errorCode: 'network_error', message: `${err.message} (after ${err.attempts} attempts)` };
  if (err instanceof RetryWaitTooLongError) return { outcome, status, errorCode: 'retry_wait_too_long', message: err.message };
  return { outcome, errorCode: 'unexpected', message: err instanceof Error ? err.message : String(err) };
}
