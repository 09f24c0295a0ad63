/**
 * Error kinds decided once (issue 35): the client turns statuses into kinds; nothing above it (the
 * sandbox and dashboard, which answer requests, aside) compares a status number.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, isTransientStatus, mayFollowAppliedWrite, statusKind } from '../../src/client/errors.js';

describe('statusKind', () => {
  it('names every status the service uses', () => {
    const kinds = Object.fromEntries(
      [200, 201, 204, 400, 401, 403, 404, 408, 409, 413, 422, 429, 431, 500, 502, 503, 504, 302].map((s) => [s, statusKind(s)]),
    );
    expect(kinds).toEqual({
      200: 'ok',
      201: 'created',
      204: 'ok',
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
      500: 'server_error',
      502: 'server_error',
      503: 'unavailable',
      504: 'server_error',
      302: 'other',
    });
    expect(new ApiError({ status: 409, code: 'conflict', message: 'x' }).kind).toBe('conflict');
  });

  it('a 5xx but 503 may follow an applied write; 408, 429 and 5xx come again on a retry', () => {
    expect([500, 502, 503, 504, 429, 400].map(mayFollowAppliedWrite)).toEqual([true, true, false, true, false, false]);
    expect([408, 429, 500, 503, 400, 404, 409, 422].map(isTransientStatus)).toEqual([true, true, true, true, false, false, false, false]);
  });
});

describe('status numbers are the client’s business', () => {
  it('no source file outside client/, sandbox/ and dashboard/ compares a status with a number', () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !/^(client|sandbox|dashboard)\//.test(f),
    );
    const found = files.flatMap((f) =>
      readFileSync(join(root, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ f, i, line }))
        .filter(({ line }) => /status\s*[!=]==\s*\d/.test(line))
        .map(({ f, i }) => `${f}:${i + 1}`),
    );
    expect(found).toEqual([]);
  });
});
