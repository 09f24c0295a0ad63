/**
 * The rate controller against long windows, on a fake clock: rate-limit headers read in every
 * spelling, and a simulated service (the sandbox's own RateLimiter, pure) answering a run paced
 * by the controller, for each shape with and without headers: the steady rate is reached, the
 * burst is not mistaken for it, and a closed window gets no request.
 */
import { describe, expect, it } from 'vitest';
import { RateController } from '../../src/bulk/rate-controller.js';
import { parsePolicy, readRateHeaders, steadyRate } from '../../src/bulk/rate-headers.js';
import { RateLimiter, type RateLimitSettings } from '../../src/sandbox/rate-limits.js';

/** A controller for the long-window tests on a fake clock starting at 5,000 s (`clock.t`). */
function onFakeClock(ceiling = 8): { clock: { t: number }; t0: number; pace: RateController } {
  const clock = { t: 5_000_000 };
  const pace = new RateController({ ceiling, floor: 1, cooldownMs: 1000, pauseOnThrottle: true, now: () => clock.t });
  return { clock, t0: clock.t, pace };
}

describe('readRateHeaders', () => {
  const now = 1_700_000_000_000;
  it('RateLimit-* with Reset in delta seconds, and the policy', () => {
    expect(
      readRateHeaders(
        { 'ratelimit-limit': '750', 'ratelimit-remaining': '12', 'ratelimit-reset': '40', 'ratelimit-policy': '75;w=1, 750;w=60' },
        now,
      ),
    ).toEqual({
      limit: 750,
      remaining: 12,
      resetMs: 40_000,
      wholeSeconds: true,
      policy: [
        { limit: 75, windowMs: 1000 },
        { limit: 750, windowMs: 60_000 },
      ],
    });
  });
  it('X-RateLimit-* with Reset as an epoch time (seconds)', () => {
    expect(
      readRateHeaders({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': String(now / 1000 + 7) }, now),
    ).toEqual({
      limit: 60,
      remaining: 5,
      resetMs: 7000,
      wholeSeconds: true,
    });
  });
  it('nothing readable: undefined', () => {
    expect(readRateHeaders({}, now)).toBeUndefined();
    expect(readRateHeaders({ 'ratelimit-remaining': 'many', 'ratelimit-reset': '1' }, now)).toBeUndefined();
  });
  it('policies: the newer draft form, junk ignored, the steady rate is the slowest window', () => {
    expect(parsePolicy('"default";q=100;w=60')).toEqual([{ limit: 100, windowMs: 60_000 }]);
    expect(parsePolicy('junk, 10')).toBeUndefined();
    expect(
      steadyRate([
        { limit: 75, windowMs: 1000 },
        { limit: 750, windowMs: 60_000 },
      ]),
    ).toBe(12.5);
  });
});

interface SimResult {
  done: number;
  requests: number;
  limited: number;
  elapsedMs: number;
  /** Requests sent while the controller had been told the window was closed. */
  intoClosed: number;
}

/**
 * `rows` requests through a controller (ceiling `concurrency`), each answered after `latencyMs`
 * by the limiter; a 429 is retried after its Retry-After, as the client does. Like the scheduler,
 * a request refused over the in-flight cap takes its slot back shortly before its retry.
 */
function simulate(
  settings: RateLimitSettings,
  rows: number,
  opts: { concurrency?: number; latencyMs?: number; maxMs?: number; loopMs?: number } = {},
): SimResult {
  const clock = { t: Date.UTC(2026, 0, 1) };
  const now = () => clock.t;
  const limiter = new RateLimiter(settings, now);
  const pace = new RateController({ ceiling: opts.concurrency ?? 16, floor: 1, cooldownMs: 1000, pauseOnThrottle: true, now });
  pace.startRun();
  const latency = opts.latencyMs ?? 5;
  const start = clock.t;
  let next = 0;
  let done = 0;
  let requests = 0;
  let limited = 0;
  let intoClosed = 0;
  /** Slots taken (the scheduler's inFlight), and of those, refused requests waiting in theirs. */
  let inFlight = 0;
  let held = 0;
  // 'answer' ends a request with the limiter's verdict, 'retry' sends a throttled row again.
  type Verdict = ReturnType<RateLimiter['check']>;
  const events: (
    | { at: number; kind: 'answer'; verdict: Verdict; sentAt: number }
    | { at: number; kind: 'retry'; held: boolean }
    | { at: number; kind: 'retake' }
  )[] = [];
  const send = () => {
    if (pace.heldUntil > clock.t) intoClosed++;
    requests++;
    const verdict = limiter.check('k', 'POST /v1/orders/placed');
    // A 429 is answered at once; a request let through takes the latency.
    events.push({ at: clock.t + (verdict.ok ? latency : 1), kind: 'answer', verdict, sentAt: inFlight - held });
  };
  const maxMs = opts.maxMs ?? 600_000;
  while (done < rows && clock.t - start < maxMs) {
    events.sort((a, b) => a.at - b.at);
    while (events.length > 0 && (events[0] as { at: number }).at <= clock.t) {
      const e = events.shift() as (typeof events)[number];
      if (e.kind === 'retake') {
        inFlight++;
        held++;
        continue;
      }
      if (e.kind === 'retry') {
        if (e.held) held--;
        else inFlight++;
        send();
        continue;
      }
      const v = e.verdict;
      let remaining: number | undefined;
      if (v.headers) {
        const reading = readRateHeaders(v.headers, clock.t);
        if (reading) pace.observe(reading, inFlight - held);
        remaining = reading?.remaining;
      }
      if (v.ok) {
        inFlight--;
        v.release?.();
        pace.success(e.sentAt);
        done++;
      } else {
        limited++;
        const waitMs = v.retryAfterSeconds * 1000;
        const kind = pace.throttle(waitMs, { sentAt: e.sentAt, active: inFlight - held - 1, remaining });
        inFlight--;
        // Over the in-flight cap: the slot is taken back shortly before the retry.
        if (kind === 'in_flight')
          events.push({ at: clock.t + waitMs - Math.min(waitMs, pace.slotLeadMs(inFlight - held)), kind: 'retake' });
        events.push({ at: clock.t + waitMs, kind: 'retry', held: kind === 'in_flight' });
      }
    }
    while (next < rows && inFlight < pace.limit && pace.startDelay() === 0) {
      pace.started();
      next++;
      inFlight++;
      send();
    }
    // loopMs: the run looks again only that much later (a loaded event loop, timers firing late).
    clock.t += opts.loopMs ?? 1;
  }
  return { done, requests, limited, elapsedMs: clock.t - start, intoClosed };
}

describe('pacing to long windows (simulated service, fake clock)', () => {
  const burstSteady = (headers: RateLimitSettings['headers']): RateLimitSettings => ({
    windows: [
      { limit: 50, window_s: 1 },
      { limit: 300, window_s: 10 },
    ],
    headers,
  });

  it('burst 50/s + steady 300 per 10 s with headers: ≥ 95% of the steady rate, ≤ 1% of 429s, none into a closed window', () => {
    const r = simulate(burstSteady('ratelimit'), 1500);
    expect(r.done).toBe(1500);
    const rate = (r.done * 1000) / r.elapsedMs;
    expect(rate).toBeGreaterThanOrEqual(0.95 * 30);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
    expect(r.intoClosed).toBe(0);
  });

  it('the same on a loaded machine (the run looks again only every 50 ms): the rate is not lost', () => {
    // A bucket of 50 ms of starts lost a third of the rate this way (20/s).
    const r = simulate(burstSteady('ratelimit'), 1500, { loopMs: 50 });
    expect(r.done).toBe(1500);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 30);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('the same with X-RateLimit-* (Reset as epoch time)', () => {
    const r = simulate(burstSteady('x-ratelimit'), 1500);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 30);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('burst + steady without headers: ≥ 90% of the steady rate, ≤ 3% of 429s', () => {
    // The first seconds cost about 45 429s (the one-second rules find the burst); 3,000 rows dilute them.
    const r = simulate(burstSteady('none'), 3000);
    expect(r.done).toBe(3000);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.9 * 30);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.03);
  });

  it('60 per 10 s sliding without headers: ≥ 90% and ≤ 3%', () => {
    const r = simulate({ windows: [{ limit: 60, window_s: 10, sliding: true }] }, 400);
    expect(r.done).toBe(400);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.9 * 6);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.03);
  });

  it('60 per 10 s sliding without headers over 40 windows (a long run): ≥ 95% and ≤ 1% (a plateau around the rate a 429 met)', () => {
    const r = simulate({ windows: [{ limit: 60, window_s: 10, sliding: true }] }, 2400, { loopMs: 20 });
    expect(r.done).toBe(2400);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 6);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('60 per 10 s sliding with headers on a loaded machine (the run looks again every 20 ms), 40 windows: ≥ 95% and ≤ 1%', () => {
    const r = simulate({ windows: [{ limit: 60, window_s: 10, sliding: true }], headers: 'ratelimit' }, 2400, { loopMs: 20 });
    expect(r.done).toBe(2400);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 6);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('60 per 10 s sliding with headers: ≥ 95% and ≤ 1%', () => {
    const r = simulate({ windows: [{ limit: 60, window_s: 10, sliding: true }], headers: 'ratelimit' }, 400);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 6);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('750 per minute with a burst of 75/s and headers: paced at the steady 12.5/s from the start, not the burst', () => {
    const r = simulate(
      {
        windows: [
          { limit: 75, window_s: 1 },
          { limit: 750, window_s: 60 },
        ],
        headers: 'ratelimit',
      },
      100,
    );
    // The first 16 go at once (nothing known yet); the other 84 at 12.5/s take 6.7 s; at the burst, 1.1 s.
    expect(r.elapsedMs).toBeGreaterThan(6500);
    expect(r.limited).toBe(0);
  });

  it('a 429 with a wait over a second closes the window: no start until the wait is over', () => {
    const { clock, pace } = onFakeClock();
    for (let i = 0; i < 100; i++) {
      clock.t += 10;
      pace.success();
    }
    pace.throttle(4000);
    expect(pace.heldUntil).toBe(clock.t + 4000);
    clock.t += 3999;
    expect(pace.startDelay()).toBe(1);
    clock.t += 1;
    expect(pace.heldUntil).toBe(0);
    // The rate learned: 100 successes over the 1 s they took plus the 4 s wait, which, in whole
    // seconds, reopens the window between 3 and 4 s: 3.5 s as best known.
    expect(pace.pace).toBeCloseTo((0.97 * 100) / 4.5, 5);
    expect(pace.source).toBe('learned');
  });

  it('refusals of a closed window coming late (requests sent before it closed, a loaded machine) are one congestion, not a rate met again', () => {
    const { clock, t0, pace } = onFakeClock(16);
    pace.startRun();
    pace.started();
    for (let i = 0; i < 60; i++) {
      clock.t += 10;
      pace.success();
    }
    pace.throttle(10_000);
    const learned = pace.pace;
    // 1.5 s later (past the cooldown) a request in flight when the window closed is refused.
    clock.t = t0 + 2100;
    pace.throttle(8000);
    expect(pace.congestionEvents).toBe(1);
    expect(pace.pace).toBe(learned);
    expect(pace.limit).toBe(8);
  });

  it('later 429s of the same closed window narrow when it reopens: the hold ends at the earliest end they agree on', () => {
    const { clock, t0, pace } = onFakeClock(16);
    pace.startRun();
    // The first request goes 100 ms after the run starts (connections, a token).
    clock.t += 100;
    pace.started();
    for (let i = 0; i < 40; i++) {
      clock.t += 5;
      pace.success();
    }
    // A window of 40 per 10 s filled by requests sent from +100 ms: the first refusal at +300 ms says
    // 10 s (9.8 s rounded up), one of the requests in flight refused at +900 ms says 10 s again (9.2 s).
    pace.throttle(10_000);
    expect(pace.heldUntil).toBe(t0 + 10_300);
    clock.t = t0 + 900;
    pace.throttle(10_000);
    // Open by +10.3 s (the first) and after +9.9 s (the second): held until +10.3 s, not +10.9 s.
    expect(pace.heldUntil).toBe(t0 + 10_300);
    clock.t = t0 + 10_299;
    expect(pace.startDelay()).toBe(1);
    clock.t = t0 + 10_300;
    pace.startDelay();
    expect(pace.heldUntil).toBe(0);
    // Learned over the 10 s from the first request until the window reopened as best known (the
    // middle of +9.9 to +10.3 s), not from the run's start.
    expect(pace.pace).toBeCloseTo((0.97 * 40) / 10, 5);
    expect(pace.congestionEvents).toBe(1);
    // A refusal that ends before (a shorter window's) does not shorten a hold.
    clock.t = t0 + 20_000;
    pace.throttle(10_000);
    clock.t = t0 + 20_500;
    pace.throttle(1000);
    expect(pace.heldUntil).toBe(t0 + 30_000);
  });

  it("a long window met just after a burst window's 429 (inside the cooldown): its rate is learned then, and its last second's 1-s waits are the same closed window", () => {
    const { clock, t0, pace } = onFakeClock();
    pace.startRun();
    pace.started();
    // Burst 30 per second and steady 100 per 5 s, both from the first request, no headers: the
    // burst window is met at rows 30, 60, 90 (a 429 with a 1-s wait each time), and paced at
    // about 27/s from there.
    for (let row = 1; row <= 100; row++) {
      clock.t = row <= 30 ? t0 + row * 2 : t0 + 1000 + (row - 30) * 35;
      pace.success();
      if (row % 30 === 0) pace.throttle(1000);
    }
    expect(pace.pace).toBeGreaterThan(24);
    // Row 100 meets the steady window 0.45 s after the burst window's last 429: shut until +5 s.
    clock.t = t0 + 3450 + 15;
    pace.throttle(2000);
    expect(pace.heldUntil).toBe(clock.t + 2000);
    // Learned now (100 rows until it reopens, at +4.95 s as best known), not the burst's 27/s kept.
    expect(pace.windowMs).toBe(2000);
    expect(pace.pace).toBeCloseTo((0.97 * 100) / 4.965, 5);
    const learned = pace.pace;
    const events = pace.congestionEvents;
    // A request refused by the burst window at row 90 is retried into the shut window within its
    // last second: Retry-After 1. The same closed window, not a new burst's 429 measured over the
    // hold (it set the pace to 9/s, half the steady rate).
    clock.t = t0 + 4050;
    pace.throttle(1000);
    expect(pace.congestionEvents).toBe(events);
    expect(pace.pace).toBe(learned);
    // Open again at +5.05 s (the retry's wait narrowed the hold): about the steady 20/s.
    clock.t = t0 + 5050;
    pace.startDelay();
    expect(pace.heldUntil).toBe(0);
    expect(pace.pace).toBeGreaterThan(18);
    expect(pace.pace).toBeLessThan(21);
  });

  it("once a long window is known, a shorter window's 429s within the cooldown count once, even with waits under a second", () => {
    const { clock, t0, pace } = onFakeClock();
    pace.startRun();
    pace.started();
    for (let row = 1; row <= 100; row++) {
      clock.t = t0 + row * 40;
      pace.success();
    }
    pace.throttle(2000);
    expect(pace.windowMs).toBe(2000);
    // Long after that window reopened, the requests in flight are refused 100 ms apart, each told
    // to wait 0.3 s (a header's wait, not whole seconds: ranges that do not overlap). One
    // congestion, as before a long window was known: only a wait over a second skips the cooldown.
    clock.t = t0 + 10_000;
    const events = pace.congestionEvents;
    pace.throttle(300);
    clock.t += 100;
    pace.throttle(300);
    expect(pace.congestionEvents).toBe(events + 1);
  });

  it('nothing remains and a Reset of 1 in whole seconds (rounded up): held half a second, the middle of when the room comes', () => {
    const { clock, pace } = onFakeClock();
    pace.observe({ remaining: 0, resetMs: 1000, wholeSeconds: true, limit: 60 }, 1);
    expect(pace.heldUntil).toBe(clock.t + 500);
    pace.observe({ remaining: 0, resetMs: 250, limit: 60 }, 1);
    expect(pace.heldUntil).toBe(clock.t + 500);
  });

  it('headers saying nothing remains hold every start until the reset', () => {
    const { pace } = onFakeClock();
    pace.observe({ remaining: 0, resetMs: 7000, limit: 100 }, 1);
    expect(pace.startDelay()).toBe(7000);
    pace.observe({ remaining: 40, resetMs: 20_000, limit: 100 }, 1);
    expect(pace.source).toBe('headers');
    expect(pace.pace).toBe(2);
  });

  it('a 10-in-flight cap: the concurrency settles at it, ≥ 95% of its rate, ≤ 1% of 429s', () => {
    // 10 in flight, 20 ms each: 500/s at most.
    const r = simulate({ max_in_flight: 10 }, 5000, { concurrency: 16, latencyMs: 20 });
    expect(r.done).toBe(5000);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 500);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });

  it('a 10-in-flight cap with a window that has room (RateLimit-Remaining > 0 on the 429): the same, the rate untouched', () => {
    const r = simulate({ max_in_flight: 10, windows: [{ limit: 1000, window_s: 1 }], headers: 'ratelimit' }, 5000, {
      concurrency: 16,
      latencyMs: 20,
    });
    expect(r.done).toBe(5000);
    expect((r.done * 1000) / r.elapsedMs).toBeGreaterThanOrEqual(0.95 * 500);
    expect(r.limited / r.requests).toBeLessThanOrEqual(0.01);
  });
});
