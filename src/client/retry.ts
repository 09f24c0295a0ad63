/**
 * The retry policy, in one place: which outcomes are retried for which kind of request, how long
 * to wait (server-directed waits honoured exactly, else full-jitter exponential backoff), and a
 * retry budget that stops a dead service from being hammered without failing a long import that
 * rides out a steady trickle of faults.
 */
import type { NetworkFailureKind } from './errors.js';
import { firstHeader, type HeaderBag } from './response.js';

/** Idempotent: GET, DELETE, PUT and the order upsert. Everything else is a write that must not be doubled. */
export type Idempotency = 'idempotent' | 'non_idempotent';

/** What one attempt ended with: an HTTP status, or a network failure. */
export type AttemptOutcome = { status: number } | { network: NetworkFailureKind; sent: boolean };

export interface RetryDecision {
  /** Retry this request (subject to attempts, budget and the maximum wait). */
  retry: boolean;
  /** The attempt ended without a definite answer: the service may have applied it. */
  ambiguous: boolean;
}

/** Statuses that say "not processed, come back": safe to retry for any request. */
const NOT_PROCESSED = new Set([429, 503]);
/** Statuses that may follow an applied write: retried only for idempotent requests. */
const AMBIGUOUS = new Set([500, 502, 504]);

/** Classifies one attempt's outcome for a request of the given idempotency. */
export function classifyOutcome(outcome: AttemptOutcome, idempotency: Idempotency): RetryDecision {
  const idempotent = idempotency === 'idempotent';
  if ('status' in outcome) {
    if (NOT_PROCESSED.has(outcome.status)) return { retry: true, ambiguous: false };
    if (AMBIGUOUS.has(outcome.status)) return { retry: idempotent, ambiguous: true };
    return { retry: false, ambiguous: false };
  }
  // A failed TLS handshake, an unreachable proxy or an answer over the size limit will fail again;
  // retrying hides a configuration problem.
  if (outcome.network === 'tls' || outcome.network === 'proxy') return { retry: false, ambiguous: false };
  if (outcome.network === 'too_large') return { retry: false, ambiguous: outcome.sent };
  // An answer that belongs to another request: whether this one was applied is unknown, and the
  // connection it came on is no longer trusted; the caller decides (never counted as done).
  if (outcome.network === 'protocol') return { retry: false, ambiguous: true };
  if (!outcome.sent) return { retry: true, ambiguous: false };
  return { retry: idempotent, ambiguous: true };
}

export interface RetryOptions {
  /** Attempts for client-paced retries (backoff), the first one included. */
  maxAttempts: number;
  /** Attempts in all, server-directed waits (Retry-After on 429/503) included. */
  maxTotalAttempts: number;
  /** Backoff base and ceiling (ms): the n-th retry waits random() × min(cap, base × 2^(n−1)). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest server-directed wait accepted; longer fails with RetryWaitTooLongError. */
  maxRetryWaitMs: number;
  /** Retry budget: capacity, and how much each success gives back (each client-paced retry costs 1). */
  budgetCapacity: number;
  budgetRefillPerSuccess: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxAttempts: 8,
  maxTotalAttempts: 30,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  maxRetryWaitMs: 120_000,
  budgetCapacity: 200,
  budgetRefillPerSuccess: 0.5,
};

/**
 * The longest wait a timer can hold (2^31−1 ms, about 24.8 days): Node fires a longer setTimeout
 * at once, which turned a huge Retry-After into a burst of requests. Every wait stays within it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Full-jitter exponential backoff before retry number `retry` (1 = first retry). */
export function backoffDelay(retry: number, random: () => number, baseMs: number, capMs: number): number {
  const ceiling = Math.min(capMs, MAX_TIMER_MS, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/** Unix seconds beyond this are read as an absolute time, smaller values as a delay in seconds. */
const EPOCH_THRESHOLD_S = 1_000_000_000;

/**
 * The wait the service asks for, in ms: `Retry-After` (delay-seconds or an HTTP date), else
 * `RateLimit-Reset` / `X-RateLimit-Reset` (delay-seconds, or Unix seconds when that large).
 * Undefined when there is none or it cannot be read. A date in the past means "now" (0).
 */
export function serverRetryDelay(headers: HeaderBag, nowMs: number): number | undefined {
  const retryAfter = firstHeader(headers, 'retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - nowMs);
  }
  for (const name of ['ratelimit-reset', 'x-ratelimit-reset']) {
    const v = firstHeader(headers, name)?.trim();
    if (v && /^\d+(\.\d+)?$/.test(v)) {
      const n = Number(v);
      return n >= EPOCH_THRESHOLD_S ? Math.max(0, Math.ceil(n * 1000 - nowMs)) : Math.ceil(n * 1000);
    }
  }
  return undefined;
}

/**
 * A token bucket of retries shared by every request of a client: each client-paced retry takes
 * one token, each success gives back a fraction. With the defaults a sustained 15% fault rate
 * (≈0.18 retries per request) never drains it, while a service that fails everything stops being
 * retried after about 200 retries. Server-directed waits (429/503 with Retry-After) are paced by
 * the service and do not draw from it.
 */
export class RetryBudget {
  private tokens: number;
  constructor(
    private readonly capacity: number,
    private readonly refill: number,
  ) {
    this.tokens = capacity;
  }

  tryAcquire(): boolean {
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  onSuccess(): void {
    if (this.tokens < this.capacity) this.tokens = Math.min(this.capacity, this.tokens + this.refill);
  }

  get available(): number {
    return this.tokens;
  }
}

/** The plan for the wait before the next attempt. */
export type RetryPlan =
  | { kind: 'retry'; delayMs: number; serverDirected: boolean }
  | { kind: 'give_up'; reason: 'not_retryable' | 'attempts' | 'budget' }
  | { kind: 'wait_too_long'; delayMs: number };

/**
 * Decides whether and when to retry after attempt `attempt` (1-based) ended with `outcome`.
 * `backoffRetries` counts the client-paced retries made so far for this request.
 */
export function planRetry(args: {
  outcome: AttemptOutcome;
  idempotency: Idempotency;
  attempt: number;
  backoffRetries: number;
  headers?: HeaderBag;
  options: RetryOptions;
  budget: RetryBudget;
  now: number;
  random: () => number;
}): RetryPlan {
  const { outcome, options } = args;
  const decision = classifyOutcome(outcome, args.idempotency);
  if (!decision.retry) return { kind: 'give_up', reason: 'not_retryable' };
  if (args.attempt >= options.maxTotalAttempts) return { kind: 'give_up', reason: 'attempts' };
  const server = args.headers && 'status' in outcome ? serverRetryDelay(args.headers, args.now) : undefined;
  if (server !== undefined) {
    // Whatever the configured maximum, no wait may exceed what a timer holds.
    if (server > Math.min(options.maxRetryWaitMs, MAX_TIMER_MS)) return { kind: 'wait_too_long', delayMs: server };
    return { kind: 'retry', delayMs: server, serverDirected: true };
  }
  if (args.backoffRetries + 1 >= options.maxAttempts) return { kind: 'give_up', reason: 'attempts' };
  if (!args.budget.tryAcquire()) return { kind: 'give_up', reason: 'budget' };
  return {
    kind: 'retry',
    delayMs: backoffDelay(args.backoffRetries + 1, args.random, options.baseDelayMs, options.maxDelayMs),
    serverDirected: false,
  };
}
