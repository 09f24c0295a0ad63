import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  classifyOutcome,
  DEFAULT_RETRY_OPTIONS,
  planRetry,
  RetryBudget,
  type RetryOptions,
  serverRetryDelay,
} from '../../src/client/retry.js';

const NOW = Date.parse('2026-11-25T12:00:00Z');

describe('classifyOutcome', () => {
  it('retries 429 and 503 for every request: they were not processed', () => {
    for (const status of [429, 503]) {
      expect(classifyOutcome({ status }, 'non_idempotent')).toEqual({ retry: true, ambiguous: false });
      expect(classifyOutcome({ status }, 'idempotent')).toEqual({ retry: true, ambiguous: false });
    }
  });

  it('retries 500/502/504 only for idempotent requests, and marks them ambiguous', () => {
    for (const status of [500, 502, 504]) {
      expect(classifyOutcome({ status }, 'idempotent')).toEqual({ retry: true, ambiguous: true });
      expect(classifyOutcome({ status }, 'non_idempotent')).toEqual({ retry: false, ambiguous: true });
    }
  });

  it('never retries other 4xx', () => {
    for (const status of [400, 401, 403, 404, 409, 422]) expect(classifyOutcome({ status }, 'idempotent').retry).toBe(false);
  });

  it('retries a refused connection for any request, a reset after sending only when idempotent', () => {
    expect(classifyOutcome({ network: 'refused', sent: false }, 'non_idempotent')).toEqual({ retry: true, ambiguous: false });
    expect(classifyOutcome({ network: 'reset', sent: true }, 'non_idempotent')).toEqual({ retry: false, ambiguous: true });
    expect(classifyOutcome({ network: 'reset', sent: true }, 'idempotent')).toEqual({ retry: true, ambiguous: true });
    expect(classifyOutcome({ network: 'timeout', sent: true }, 'non_idempotent').retry).toBe(false);
    expect(classifyOutcome({ network: 'tls', sent: false }, 'idempotent').retry).toBe(false);
  });
});

describe('backoffDelay (full jitter)', () => {
  it('is random() times the capped exponential ceiling', () => {
    expect(backoffDelay(1, () => 0.999999, 100, 10_000)).toBe(99);
    expect(backoffDelay(3, () => 0.5, 100, 10_000)).toBe(200);
    expect(backoffDelay(20, () => 0.5, 100, 10_000)).toBe(5000);
    expect(backoffDelay(4, () => 0, 100, 10_000)).toBe(0);
  });
});

describe('serverRetryDelay', () => {
  it('reads Retry-After in seconds', () => {
    expect(serverRetryDelay({ 'retry-after': '3' }, NOW)).toBe(3000);
    expect(serverRetryDelay({ 'retry-after': ' 0 ' }, NOW)).toBe(0);
  });
  it('reads Retry-After as an HTTP date', () => {
    expect(serverRetryDelay({ 'retry-after': new Date(NOW + 7000).toUTCString() }, NOW)).toBe(7000);
    expect(serverRetryDelay({ 'retry-after': new Date(NOW - 7000).toUTCString() }, NOW)).toBe(0);
  });
  it('falls back to RateLimit-Reset and X-RateLimit-Reset (delta or Unix seconds)', () => {
    expect(serverRetryDelay({ 'ratelimit-reset': '5' }, NOW)).toBe(5000);
    expect(serverRetryDelay({ 'x-ratelimit-reset': '2' }, NOW)).toBe(2000);
    expect(serverRetryDelay({ 'x-ratelimit-reset': String(NOW / 1000 + 4) }, NOW)).toBe(4000);
  });
  it('prefers Retry-After and ignores garbage', () => {
    expect(serverRetryDelay({ 'retry-after': '1', 'ratelimit-reset': '9' }, NOW)).toBe(1000);
    expect(serverRetryDelay({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(serverRetryDelay({}, NOW)).toBeUndefined();
  });
});

describe('RetryBudget', () => {
  it('is not exhausted by a sustained 15% fault rate', () => {
    const budget = new RetryBudget(DEFAULT_RETRY_OPTIONS.budgetCapacity, DEFAULT_RETRY_OPTIONS.budgetRefillPerSuccess);
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let denied = 0;
    for (let i = 0; i < 100_000; i++) {
      // each request: attempts until success, each failure costs a retry
      while (rnd() < 0.15) if (!budget.tryAcquire()) denied++;
      budget.onSuccess();
    }
    expect(denied).toBe(0);
    expect(budget.available).toBeGreaterThan(DEFAULT_RETRY_OPTIONS.budgetCapacity * 0.9);
  });

  it('runs dry when everything fails, and refills with successes', () => {
    const budget = new RetryBudget(10, 0.5);
    let granted = 0;
    for (let i = 0; i < 50; i++) if (budget.tryAcquire()) granted++;
    expect(granted).toBe(10);
    budget.onSuccess();
    budget.onSuccess();
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(false);
  });
});

describe('planRetry', () => {
  const options: RetryOptions = { ...DEFAULT_RETRY_OPTIONS, maxAttempts: 3, maxRetryWaitMs: 10_000 };
  const base = { attempt: 1, backoffRetries: 0, options, now: NOW, random: () => 0.5 };

  it('honours Retry-After exactly and does not draw from the budget', () => {
    const budget = new RetryBudget(0, 0);
    const plan = planRetry({ ...base, outcome: { status: 429 }, idempotency: 'non_idempotent', headers: { 'retry-after': '3' }, budget });
    expect(plan).toEqual({ kind: 'retry', delayMs: 3000, serverDirected: true });
  });

  it('fails with wait_too_long when the service asks for more than the maximum (no silent cap)', () => {
    const plan = planRetry({
      ...base,
      outcome: { status: 503 },
      idempotency: 'idempotent',
      headers: { 'retry-after': '11' },
      budget: new RetryBudget(10, 1),
    });
    expect(plan).toEqual({ kind: 'wait_too_long', delayMs: 11_000 });
  });

  it('backs off with jitter without a server hint, up to maxAttempts', () => {
    const budget = new RetryBudget(10, 1);
    expect(planRetry({ ...base, outcome: { status: 500 }, idempotency: 'idempotent', headers: {}, budget })).toEqual({
      kind: 'retry',
      delayMs: 50,
      serverDirected: false,
    });
    expect(planRetry({ ...base, attempt: 2, backoffRetries: 1, outcome: { status: 500 }, idempotency: 'idempotent', budget })).toEqual({
      kind: 'retry',
      delayMs: 100,
      serverDirected: false,
    });
    expect(planRetry({ ...base, attempt: 3, backoffRetries: 2, outcome: { status: 500 }, idempotency: 'idempotent', budget })).toEqual({
      kind: 'give_up',
      reason: 'attempts',
    });
  });

  it('gives up when the budget is empty, and never retries a 500 of a non-idempotent write', () => {
    expect(planRetry({ ...base, outcome: { status: 502 }, idempotency: 'idempotent', budget: new RetryBudget(0, 0) })).toEqual({
      kind: 'give_up',
      reason: 'budget',
    });
    expect(planRetry({ ...base, outcome: { status: 500 }, idempotency: 'non_idempotent', budget: new RetryBudget(10, 1) })).toEqual({
      kind: 'give_up',
      reason: 'not_retryable',
    });
  });
});
