/**
 * Fault injection for /v1/* and /oauth/token (open-points "Sandbox-only surface"): injected 500s
 * and destroyed connections (half of each after the write is applied), 503s without processing,
 * added latency, a per-token rate limit per second answered 429 with Retry-After, and the rate
 * limits real services set (`rate_limits`: rate-limits.ts).
 */
import type { FieldError } from '../contract/errors.js';
import { RateLimiter, type RateLimitSettings, validateRateLimits } from './rate-limits.js';

export interface FaultSettings {
  error_rate?: number;
  unavailable_rate?: number;
  reset_rate?: number;
  latency_ms?: number;
  rate_limit_rps?: number;
  rate_limits?: RateLimitSettings;
}

const RATE_FIELDS = ['error_rate', 'unavailable_rate', 'reset_rate'] as const;
const FAULT_FIELDS = [...RATE_FIELDS, 'latency_ms', 'rate_limit_rps', 'rate_limits'] as const;

/** The numeric settings: each field, the test its value must pass, and what it must be. */
const NUMBER_FIELDS: {
  field: 'error_rate' | 'unavailable_rate' | 'reset_rate' | 'latency_ms' | 'rate_limit_rps';
  ok: (v: number) => boolean;
  must: string;
}[] = [
  ...RATE_FIELDS.map((field) => ({ field, ok: (v: number) => v >= 0 && v <= 1, must: 'must be a number from 0 to 1' })),
  { field: 'latency_ms', ok: (v) => Number.isInteger(v) && v >= 0 && v <= 60_000, must: 'must be an integer from 0 to 60000' },
  { field: 'rate_limit_rps', ok: (v) => Number.isInteger(v) && v >= 1, must: 'must be an integer of at least 1' },
];

/** The rates together: each request meets at most one fault, so they add up to at most 1. */
function rateSumError(out: FaultSettings): FieldError | undefined {
  if (out.unavailable_rate === undefined && out.error_rate === undefined && out.reset_rate === undefined) return undefined;
  const sum = (out.unavailable_rate ?? 0) + (out.error_rate ?? 0) + (out.reset_rate ?? 0);
  return sum > 1 ? { field: 'error_rate', message: 'plus unavailable_rate and reset_rate must not exceed 1' } : undefined;
}

/** Checks a PUT /_sandbox/faults body; returns the problems, each naming its field. */
export function validateFaults(input: unknown): { ok: true; value: FaultSettings } | { ok: false; errors: FieldError[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  const body = input as Record<string, unknown>;
  const errors: FieldError[] = Object.keys(body)
    .filter((key) => !(FAULT_FIELDS as readonly string[]).includes(key))
    .map((key) => ({ field: key, message: `is not a fault setting (${FAULT_FIELDS.join(', ')})` }));
  const out: FaultSettings = {};
  for (const { field, ok, must } of NUMBER_FIELDS) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v === 'number' && ok(v)) out[field] = v;
    else errors.push({ field, message: must });
  }
  if (body.rate_limits !== undefined) {
    const limits = validateRateLimits(body.rate_limits, errors);
    if (limits) out.rate_limits = limits;
  }
  if (errors.length > 0) return { ok: false, errors };
  const sumError = rateSumError(out);
  if (sumError) return { ok: false, errors: [sumError] };
  return { ok: true, value: out };
}

/** What happens to one request: nothing, a fault before processing, or one after the write. */
export type FaultDecision =
  | { kind: 'none' }
  | { kind: 'unavailable' }
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'error'; afterWrite: boolean }
  | { kind: 'reset'; afterWrite: boolean };

const NONE: FaultDecision = { kind: 'none' };

export class Faults {
  private settings: FaultSettings = EMPTY;
  private readonly windows = new Map<string, { start: number; count: number }>();
  /** The `rate_limits` in force (undefined when none). */
  limiter: RateLimiter | undefined;

  constructor(
    private readonly now: () => number,
    private readonly random: () => number = Math.random,
  ) {}

  get current(): FaultSettings {
    return { ...this.settings };
  }

  /** True when any fault is configured (the fast path skips everything otherwise). */
  get active(): boolean {
    return this.settings !== EMPTY;
  }

  set(settings: FaultSettings): void {
    this.settings = Object.keys(settings).length === 0 ? EMPTY : settings;
    this.windows.clear();
    this.limiter = settings.rate_limits ? new RateLimiter(settings.rate_limits, this.now) : undefined;
  }

  get latencyMs(): number {
    return this.settings.latency_ms ?? 0;
  }

  /** The per-second rate limit: counts the request in the caller's one-second window; a 429 past `rps`. */
  private overRate(key: string, rps: number): FaultDecision | undefined {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 1000) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count <= rps) return undefined;
    return { kind: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((w.start + 1000 - now) / 1000)) };
  }

  /** Decides the fate of one request; `key` identifies the caller for the rate limit. */
  decide(key: string): FaultDecision {
    const s = this.settings;
    const limited = s.rate_limit_rps !== undefined ? this.overRate(key, s.rate_limit_rps) : undefined;
    if (limited) return limited;
    const r = this.random();
    const unavailable = s.unavailable_rate ?? 0;
    const error = s.error_rate ?? 0;
    const reset = s.reset_rate ?? 0;
    if (r < unavailable) return { kind: 'unavailable' };
    if (r < unavailable + error) return { kind: 'error', afterWrite: this.random() < 0.5 };
    if (r < unavailable + error + reset) return { kind: 'reset', afterWrite: this.random() < 0.5 };
    return NONE;
  }
}

const EMPTY: FaultSettings = {};
