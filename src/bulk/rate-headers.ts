/**
 * Reads the rate-limit headers a service may put on its answers, in the spellings in use:
 * `RateLimit-Limit` / `-Remaining` / `-Reset` (IETF draft: Reset in delta seconds), their
 * `X-RateLimit-*` forms (Reset often a Unix time: a value of 10^9 or more is read as one),
 * and `RateLimit-Policy` (`750;w=60, 75;w=1`: every window the service counts). Pure.
 */
import type { HeaderBag } from '../client/response.js';

export interface RateWindow {
  limit: number;
  windowMs: number;
}

export interface RateLimitReading {
  limit?: number;
  /** Requests left in the tightest window, this answer counted. */
  remaining: number;
  /** Time until that window frees room (at the latest). */
  resetMs: number;
  /** Reset was given in whole seconds: the window may end up to a second earlier. */
  wholeSeconds?: boolean;
  /** The windows of `RateLimit-Policy`, when given. */
  policy?: RateWindow[];
}

const EPOCH_THRESHOLD_S = 1_000_000_000;

function first(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return (Array.isArray(v) ? v[0] : v)?.trim();
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v);
}

/** Whether an answer's headers may hold a reading (cheap: names only). */
export const RATE_HEADER_NAMES = ['ratelimit-remaining', 'x-ratelimit-remaining'] as const;

/** The policy's windows: `limit;w=seconds` items separated by commas (other parameters ignored). */
export function parsePolicy(value: string | undefined): RateWindow[] | undefined {
  if (!value) return undefined;
  const out: RateWindow[] = [];
  for (const item of value.split(',')) {
    const [head, ...params] = item.split(';').map((p) => p.trim());
    // The newer draft names the policy first ("default";q=100;w=60): the quota is then q.
    let limit = num(head);
    let w: number | undefined;
    for (const p of params) {
      const [k, v] = p.split('=').map((x) => x.trim());
      if (k === 'w') w = num(v);
      else if (k === 'q' && limit === undefined) limit = num(v);
    }
    if (limit !== undefined && limit > 0 && w !== undefined && w > 0) out.push({ limit, windowMs: w * 1000 });
  }
  return out.length > 0 ? out : undefined;
}

/** The reading of an answer's rate-limit headers, or undefined when it has none (or unreadable ones). */
export function readRateHeaders(headers: HeaderBag, nowMs: number): RateLimitReading | undefined {
  for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
    const remaining = num(first(headers, `${prefix}remaining`));
    const reset = num(first(headers, `${prefix}reset`));
    if (remaining === undefined || reset === undefined) continue;
    const resetMs = reset >= EPOCH_THRESHOLD_S ? Math.max(0, reset * 1000 - nowMs) : reset * 1000;
    const reading: RateLimitReading = { remaining, resetMs };
    if (Number.isInteger(reset)) reading.wholeSeconds = true;
    const limit = num(first(headers, `${prefix}limit`));
    if (limit !== undefined) reading.limit = limit;
    const policy = parsePolicy(first(headers, 'ratelimit-policy') ?? first(headers, 'x-ratelimit-policy'));
    if (policy) reading.policy = policy;
    return reading;
  }
  return undefined;
}

/** The steady rate a policy allows (requests per second): its slowest window's. */
export function steadyRate(policy: readonly RateWindow[]): number {
  let rate = Number.POSITIVE_INFINITY;
  for (const w of policy) rate = Math.min(rate, (w.limit * 1000) / w.windowMs);
  return rate;
}

/** The fastest rate a policy allows for a moment: its shortest window's (the burst). */
export function burstRate(policy: readonly RateWindow[]): number {
  let shortest = policy[0] as RateWindow;
  for (const w of policy) if (w.windowMs < shortest.windowMs) shortest = w;
  return (shortest.limit * 1000) / shortest.windowMs;
}
