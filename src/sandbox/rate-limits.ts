/**
 * The sandbox's rate limits, shaped as real services shape them (docs/sandbox.md "Rate limits"):
 * fixed windows of any length (several at once: a burst and a steady window), sliding windows, a
 * cap on requests in flight, windows that count only one endpoint, per token or per business,
 * with or without `RateLimit-*` headers. Pure: the clock is injected, no I/O.
 *
 * A request is let through only when every window that counts it has room; only then does it
 * count in each of them (a request refused by the steady window does not use up the burst).
 */
import type { FieldError } from '../contract/errors.js';

export interface RateWindowSetting {
  limit: number;
  /** Window length in seconds (fractions allowed, so that tests compress a minute). */
  window_s: number;
  /** A sliding window (the last `window_s` seconds) instead of a fixed one. */
  sliding?: boolean;
  /**
   * Where a fixed window starts: on the clock (default: multiples of its length since the epoch) or
   * at the first request it counts (a counter that expires `window_s` after it was created).
   */
  start?: 'clock' | 'first_request';
  /** Counts only requests to this endpoint: "POST /v1/events" or "/v1/events" (any method). */
  endpoint?: string;
}

export type RateHeaderStyle = 'none' | 'ratelimit' | 'x-ratelimit';

export interface RateLimitSettings {
  /** Who a window counts: each bearer token (default) or each business. */
  per?: 'token' | 'business';
  windows?: RateWindowSetting[];
  /** Most requests in flight at once; the excess is answered 429 at once. */
  max_in_flight?: number;
  /** Headers on every answer of a limited route: none (default), RateLimit-* or X-RateLimit-*. */
  headers?: RateHeaderStyle;
}

const LIMIT_FIELDS = ['per', 'windows', 'max_in_flight', 'headers'] as const;
const WINDOW_FIELDS = ['limit', 'window_s', 'sliding', 'start', 'endpoint'] as const;
const ENDPOINT = /^(?:(GET|POST|PUT|PATCH|DELETE) )?(\/[\x21-\x7e]*)$/;
/** A sliding window keeps one timestamp per request it counts: bounded. */
const MAX_LIMIT = 100_000;
const MAX_WINDOW_S = 86_400;

const AT = 'rate_limits';

/** `per`: who a window counts for. */
function perOf(v: unknown, errors: FieldError[]): RateLimitSettings['per'] {
  if (v === 'token' || v === 'business') return v;
  errors.push({ field: `${AT}.per`, message: 'must be "token" or "business"' });
  return undefined;
}

/** `headers`: a style, or true (RateLimit-*) and false (none). */
function headersOf(v: unknown, errors: FieldError[]): RateHeaderStyle | undefined {
  if (v === true) return 'ratelimit';
  if (v === false) return 'none';
  if (v === 'none' || v === 'ratelimit' || v === 'x-ratelimit') return v;
  errors.push({ field: `${AT}.headers`, message: 'must be "none", "ratelimit", "x-ratelimit" (or true/false)' });
  return undefined;
}

function maxInFlightOf(v: unknown, errors: FieldError[]): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_LIMIT) return v;
  errors.push({ field: `${AT}.max_in_flight`, message: `must be an integer from 1 to ${MAX_LIMIT}` });
  return undefined;
}

/** `windows`: at most 16, each checked (the valid ones kept). */
function windowsOf(v: unknown, errors: FieldError[]): RateWindowSetting[] | undefined {
  if (!Array.isArray(v) || v.length > 16) {
    errors.push({
      field: `${AT}.windows`,
      message: 'must be an array of at most 16 windows {limit, window_s, sliding?, start?, endpoint?}',
    });
    return undefined;
  }
  return v.map((w: unknown, i) => validateWindow(w, `${AT}.windows[${i}]`, errors)).filter((w) => w !== undefined);
}

/** Checks the `rate_limits` object of PUT /_sandbox/faults; each problem names its field. */
export function validateRateLimits(input: unknown, errors: FieldError[]): RateLimitSettings | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    errors.push({ field: AT, message: 'must be an object {per?, windows?, max_in_flight?, headers?}' });
    return undefined;
  }
  const body = input as Record<string, unknown>;
  const out: RateLimitSettings = {};
  for (const key of Object.keys(body))
    if (!(LIMIT_FIELDS as readonly string[]).includes(key))
      errors.push({ field: `${AT}.${key}`, message: `is not a rate-limit setting (${LIMIT_FIELDS.join(', ')})` });
  if (body.per !== undefined) out.per = perOf(body.per, errors);
  if (body.headers !== undefined) out.headers = headersOf(body.headers, errors);
  if (body.max_in_flight !== undefined) out.max_in_flight = maxInFlightOf(body.max_in_flight, errors);
  if (body.windows !== undefined) out.windows = windowsOf(body.windows, errors);
  return out;
}

/** The problems of one window's fields, each naming its field. */
function windowErrors(o: Record<string, unknown>, at: string): FieldError[] {
  const errors = Object.keys(o)
    .filter((key) => !(WINDOW_FIELDS as readonly string[]).includes(key))
    .map((key) => ({ field: `${at}.${key}`, message: `is not a window setting (${WINDOW_FIELDS.join(', ')})` }));
  const { limit, window_s, sliding, start, endpoint } = o;
  if (!(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT))
    errors.push({ field: `${at}.limit`, message: `must be an integer from 1 to ${MAX_LIMIT}` });
  if (!(typeof window_s === 'number' && Number.isFinite(window_s) && window_s >= 0.05 && window_s <= MAX_WINDOW_S))
    errors.push({ field: `${at}.window_s`, message: `must be a number of seconds from 0.05 to ${MAX_WINDOW_S}` });
  if (sliding !== undefined && typeof sliding !== 'boolean') errors.push({ field: `${at}.sliding`, message: 'must be true or false' });
  if (start !== undefined && start !== 'clock' && start !== 'first_request')
    errors.push({ field: `${at}.start`, message: 'must be "clock" or "first_request"' });
  else if (start !== undefined && sliding === true)
    errors.push({ field: `${at}.start`, message: 'is for a fixed window: a sliding window has no start' });
  if (endpoint !== undefined && !(typeof endpoint === 'string' && ENDPOINT.test(endpoint)))
    errors.push({ field: `${at}.endpoint`, message: 'must be a route such as "POST /v1/events" or "/v1/contacts/:id"' });
  return errors;
}

function validateWindow(w: unknown, at: string, errors: FieldError[]): RateWindowSetting | undefined {
  if (typeof w !== 'object' || w === null || Array.isArray(w)) {
    errors.push({ field: at, message: 'must be an object {limit, window_s, sliding?, start?, endpoint?}' });
    return undefined;
  }
  const o = w as Record<string, unknown>;
  const problems = windowErrors(o, at);
  if (problems.length > 0) {
    errors.push(...problems);
    return undefined;
  }
  const out: RateWindowSetting = { limit: o.limit as number, window_s: o.window_s as number };
  if (o.sliding) out.sliding = true;
  if (o.start === 'first_request') out.start = 'first_request';
  if (o.endpoint !== undefined) out.endpoint = o.endpoint as string;
  return out;
}

/** What the limiter says about one request. */
export type LimitVerdict =
  | { ok: true; headers: Record<string, string> | undefined; release: (() => void) | undefined }
  | { ok: false; retryAfterSeconds: number; reason: 'window' | 'in_flight'; headers: Record<string, string> | undefined };

interface Fixed {
  start: number;
  count: number;
}

/** One window's state for one key: a count since its start (fixed), or the times of the requests it counts (sliding). */
type WindowState = Fixed | number[];

/** Where a request stands in one window, in ms and requests. */
interface Standing {
  window: RateWindowSetting;
  used: number;
  /** Time until the window frees room (fixed: its end; sliding: the oldest request leaving it). */
  resetMs: number;
}

export class RateLimiter {
  private readonly windows: RateWindowSetting[];
  private readonly state = new Map<string, WindowState>();
  private readonly inFlight = new Map<string, number>();
  private readonly policy: string | undefined;

  constructor(
    readonly settings: RateLimitSettings,
    private readonly now: () => number,
  ) {
    this.windows = settings.windows ?? [];
    const general = this.windows.filter((w) => w.endpoint === undefined);
    this.policy = general.length > 0 ? general.map((w) => `${w.limit};w=${fmtSeconds(w.window_s)}`).join(', ') : undefined;
  }

  get per(): 'token' | 'business' {
    return this.settings.per ?? 'token';
  }

  /** Decides whether a request from `key` to `route` ("POST /v1/orders/placed") goes through. */
  check(key: string, route: string): LimitVerdict {
    const t = this.now();
    const standings: Standing[] = [];
    let refusedUntil = 0;
    const counted: number[] = [];
    this.windows.forEach((w, i) => {
      if (w.endpoint !== undefined && !endpointMatches(w.endpoint, route)) return;
      counted.push(i);
      const s = this.standing(`${i}|${key}`, w, t);
      standings.push(s);
      if (s.used >= w.limit) refusedUntil = Math.max(refusedUntil, s.resetMs);
    });
    const cap = this.settings.max_in_flight;
    if (refusedUntil > 0) {
      return { ok: false, retryAfterSeconds: wholeSeconds(refusedUntil), reason: 'window', headers: this.headers(standings, t) };
    }
    if (cap !== undefined && (this.inFlight.get(key) ?? 0) >= cap) {
      return { ok: false, retryAfterSeconds: 1, reason: 'in_flight', headers: this.headers(standings, t) };
    }
    for (const i of counted) this.count(`${i}|${key}`, this.windows[i] as RateWindowSetting, t);
    for (const s of standings) s.used++;
    let release: (() => void) | undefined;
    if (cap !== undefined) {
      this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
      let done = false;
      release = () => {
        if (done) return;
        done = true;
        const n = (this.inFlight.get(key) ?? 1) - 1;
        if (n <= 0) this.inFlight.delete(key);
        else this.inFlight.set(key, n);
      };
    }
    return { ok: true, headers: this.headers(standings, t), release };
  }

  private standing(id: string, w: RateWindowSetting, t: number): Standing {
    return w.sliding ? this.slidingStanding(id, w, t) : this.fixedStanding(id, w, t);
  }

  /** The last `window_s` seconds: the requests older than that leave the log. */
  private slidingStanding(id: string, w: RateWindowSetting, t: number): Standing {
    const ms = w.window_s * 1000;
    const st = this.state.get(id);
    const log = Array.isArray(st) ? st : [];
    let drop = 0;
    while (drop < log.length && (log[drop] as number) <= t - ms) drop++;
    if (drop > 0) log.splice(0, drop);
    if (!st) this.state.set(id, log);
    const oldest = log[0];
    return { window: w, used: log.length, resetMs: oldest === undefined ? ms : oldest + ms - t };
  }

  /**
   * A count since the window's start: aligned on multiples of its length since the epoch, like most
   * services, or (`start: "first_request"`) from the first request after the last window ended.
   */
  private fixedStanding(id: string, w: RateWindowSetting, t: number): Standing {
    const ms = w.window_s * 1000;
    let f = this.state.get(id) as Fixed | undefined;
    if (!f || t - f.start >= ms) {
      f = { start: w.start === 'first_request' ? t : t - (t % ms), count: 0 };
      this.state.set(id, f);
    }
    return { window: w, used: f.count, resetMs: f.start + ms - t };
  }

  private count(id: string, w: RateWindowSetting, t: number): void {
    const st = this.state.get(id);
    if (Array.isArray(st)) st.push(t);
    else if (st && !w.sliding) st.count++;
  }

  /** The headers of the tightest window (fewest remaining; on a tie the one that resets last). */
  private headers(standings: Standing[], t: number): Record<string, string> | undefined {
    const style = this.settings.headers ?? 'none';
    if (style === 'none' || standings.length === 0) return undefined;
    let tight = standings[0] as Standing;
    for (const s of standings) {
      const left = s.window.limit - s.used;
      const tightLeft = tight.window.limit - tight.used;
      if (left < tightLeft || (left === tightLeft && s.resetMs > tight.resetMs)) tight = s;
    }
    const remaining = String(Math.max(0, tight.window.limit - tight.used));
    const limit = String(tight.window.limit);
    if (style === 'x-ratelimit') {
      return {
        'x-ratelimit-limit': limit,
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': String(Math.ceil((t + tight.resetMs) / 1000)),
      };
    }
    const h: Record<string, string> = {
      'ratelimit-limit': limit,
      'ratelimit-remaining': remaining,
      'ratelimit-reset': String(wholeSeconds(tight.resetMs)),
    };
    if (this.policy !== undefined) h['ratelimit-policy'] = this.policy;
    return h;
  }
}

/** Whole seconds, at least 1 (Retry-After and RateLimit-Reset are delta-seconds). */
function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000 - 1e-9));
}

function fmtSeconds(s: number): string {
  return Number.isInteger(s) ? String(s) : String(Number(s.toFixed(3)));
}

function endpointMatches(endpoint: string, route: string): boolean {
  return endpoint.startsWith('/') ? route.slice(route.indexOf(' ') + 1) === endpoint : route === endpoint;
}
