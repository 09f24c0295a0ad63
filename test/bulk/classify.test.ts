import { describe, expect, it } from 'vitest';
import { classifyError, isFatalForRun } from '../../src/bulk/classify.js';
import { ApiError, CredentialsError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../../src/client/errors.js';

const api = (status: number, code = 'x', uncertain = false) => new ApiError({ status, code, message: 'm', uncertain });

describe('the one classifier of bulk errors', () => {
  it('credentials and scope problems stop the run', () => {
    for (const err of [
      new CredentialsError('not logged in'),
      new MissingScopeError('events_write', []),
      api(401, 'unauthorized'),
      api(403, 'insufficient_scope'),
      api(400, 'invalid_client'),
    ]) {
      expect(isFatalForRun(err)).toBe(true);
      expect(classifyError(err).scope).toBe('fatal');
    }
  });

  it('a definite 4xx is the row; 408, 429 and 5xx are retryable', () => {
    expect(classifyError(api(400, 'validation_failed'))).toEqual({ scope: 'row', maybeApplied: false, status: 400 });
    expect(classifyError(api(409, 'conflict'))).toMatchObject({ scope: 'row' });
    expect(classifyError(api(422, 'compliance_suppressed'))).toMatchObject({ scope: 'row' });
    for (const s of [408, 429, 503]) expect(classifyError(api(s))).toEqual({ scope: 'retryable', maybeApplied: false, status: s });
  });

  it('says when the service may have applied what it did not confirm', () => {
    for (const s of [500, 502, 504]) expect(classifyError(api(s))).toEqual({ scope: 'retryable', maybeApplied: true, status: s });
    expect(classifyError(api(400, 'x', true))).toMatchObject({ scope: 'row', maybeApplied: true });
    expect(classifyError(new NetworkError('reset', { kind: 'reset', sent: true }))).toEqual({ scope: 'retryable', maybeApplied: true });
    expect(classifyError(new NetworkError('refused', { kind: 'refused', sent: false }))).toEqual({
      scope: 'retryable',
      maybeApplied: false,
    });
    expect(classifyError(new RetryWaitTooLongError(60_000, 30_000, 429))).toEqual({ scope: 'retryable', maybeApplied: false, status: 429 });
    expect(classifyError(new Error('boom'))).toEqual({ scope: 'retryable', maybeApplied: true });
  });
});
