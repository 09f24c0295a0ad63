/**
 * How fast a bulk run may go: the concurrency limit and the start-rate cap, adapted to the
 * service's rate limits by AIMD. Pure arithmetic over an injected clock: no timers, no I/O, so
 * every rule below is testable without sleeping. The runner (scheduler.ts) asks it when the next
 * item may start and tells it what happened.
 *
 * - A throttle (429 with its wait) starts a "congestion event" (at most one per `cooldownMs`, so a
 *   burst of 429s from the requests already in flight counts once; a 429 that newly shuts a
 *   window for more than a second is one however soon after another): the concurrency limit is
 *   halved and a start-rate cap is set to 90% of the completion rate measured over the last second
 *   (later events: 95% of the cap in force, or of the measured rate when that is well below the
 *   cap or when over 5% of the answers since the last event were throttled).
 * - New starts pause for the server's wait only when no rate could be measured yet; otherwise the
 *   cap does the job (pausing at every event would waste the rest of a fixed rate-limit window).
 * - Each success without a throttle probes back up: +1 to the concurrency limit per `limit`
 *   successes; the rate cap grows 3% per 250 ms up to 97% of the rate measured at the last event,
 *   then 0.25% per 250 ms, that step doubling every 4 s of quiet. The rate cap matters when the
 *   service limits requests per second while answering fast: a concurrency limit alone cannot go
 *   below one request in flight.
 *
 * Windows longer than a second (docs/importer.md "Long imports"):
 * - Answers carrying rate-limit headers (rate-headers.ts) set the pace directly: what remains of
 *   the window (less the requests in flight, not counted yet) spread over what is left of it,
 *   never above the steady rate of `RateLimit-Policy` (the slowest window), so a burst allowance
 *   is not mistaken for the rate. Nothing left: every start waits for the window to reset.
 * - A 429 whose wait is over a second (or once a window is known to be longer) closes the window
 *   until it reopens (closed-window.ts; its later refusals are the same congestion). Without
 *   headers its rate is learned: the successes since the first request (or the last such 429)
 *   over the time until it reopens; then probed up about 1% per window, a quarter of that around
 *   a rate a 429 met. One-second windows keep the rules above.
 * A cap on requests in flight (in-flight-cap.ts): a 429 that refused a request over it brings the
 * concurrency limit down to the cap and leaves the rate alone.
 */

export interface RateControllerOptions {
  /** Highest concurrency limit (the AIMD ceiling). */
  ceiling: number;
  /** Lowest concurrency limit AIMD may go down to. */
  floor: number;
  cooldownMs: number; // the least time between two congestion events
  /** Pause new starts for the server's wait when there is no rate to cap yet. */
  pauseOnThrottle: boolean;
  now: () => number;
}

import { ClosedWindow } from './closed-window.js';
import { InFlightCap, type RefusalContext, type RefusalKind } from './in-flight-cap.js';
import { burstRate, type RateLimitReading, type RateWindow, steadyRate } from './rate-headers.js';
import { StartBucket } from './start-bucket.js';

/** What sets the pace: nothing yet, the service's headers, or a rate learned from its 429s. */
export type PaceSource = 'none' | 'headers' | 'learned';

export type { RefusalContext, RefusalKind };

export class RateController {
  /** Current concurrency limit and the lowest it went. */
  limit: number;
  minLimitSeen: number;
  /** Current start-rate cap in items/s (undefined until the first congestion event). */
  rate: number | undefined;
  /** Throttle reports received, and congestion events acted upon. */
  throttles = 0;
  congestionEvents = 0;

  private readonly ceiling: number;
  private readonly floor: number;
  private readonly cooldownMs: number;
  private readonly pauseOnThrottle: boolean;
  private readonly now: () => number;
  /** The rate at the last congestion event (what the service allowed); `ceilingMet`: a 429 met it. */
  private ceilingRate: number | undefined;
  private ceilingMet = false;
  private lastRateIncrease = 0;
  private successesSinceIncrease = 0;
  private lastCongestion = Number.NEGATIVE_INFINITY;
  private throttlesSinceEvent = 0;
  private successesSinceEvent = 0;
  private pausedUntil = 0;
  private runStartedAt: number;
  private firstStartAt: number | undefined;
  /** Token bucket for the rate cap. */
  private readonly bucket: StartBucket;
  /** Completions in the last second, in 100 ms buckets, to measure the rate the service allows. */
  private readonly buckets = new Array<number>(10).fill(0);
  private bucketEpoch: number;
  /** The pace the headers set (items/s) and until when it holds without a newer reading. */
  private headerRate: number | undefined;
  private headerRateUntil = 0;
  private policyRate: number | undefined;
  private policyBurst: number | undefined;
  /** The limit of the policy's slowest window: a reading of that window may be spent faster. */
  private policySteadyLimit: number | undefined;
  /** The slowest window of the service's policy, once an answer told it (for the plan of a run). */
  steadyWindow: RateWindow | undefined;
  /** The longest window seen (from a policy or a long wait): over 1000 means long-window rules. */
  windowMs = 0;
  /** Successes of the run, and the time and count at the last long-window 429 (its learning base). */
  private successes = 0;
  private longBaseAt: number | undefined;
  private longBaseCount = 0;
  /** The service's cap on requests in flight, learned from its refusals. */
  private readonly cap = new InFlightCap();
  /** The long window the last 429s closed, and when it reopens. */
  private readonly closed = new ClosedWindow();
  /** True while a long-window rate learned from 429s is in force. */
  private learnedLong = false;
  /** A long-window 429 whose wait is not over: what to learn from when it is. */
  private learning: { since: number; count: number; before: number | undefined } | undefined;

  constructor(opts: RateControllerOptions) {
    this.ceiling = Math.max(1, Math.floor(opts.ceiling));
    this.floor = Math.max(1, Math.min(this.ceiling, opts.floor));
    this.cooldownMs = opts.cooldownMs;
    this.pauseOnThrottle = opts.pauseOnThrottle;
    this.now = opts.now;
    this.limit = this.ceiling;
    this.minLimitSeen = this.ceiling;
    const t = opts.now();
    this.runStartedAt = t;
    this.bucket = new StartBucket(t);
    this.bucketEpoch = Math.floor(t / 100);
  }

  /** The run starts now (rates measured before are over a shorter time). */
  startRun(): void {
    this.runStartedAt = this.now();
  }

  /** What sets the pace now. */
  get source(): PaceSource {
    if (this.headerRate !== undefined && this.now() < this.headerRateUntil) return 'headers';
    return this.rate !== undefined ? 'learned' : 'none';
  }

  /** The start rate in force (items/s), from the headers or learned; undefined when none limits. */
  get pace(): number | undefined {
    return this.source === 'headers' ? this.headerRate : this.rate;
  }

  /** Until when starts are held (a closed window), or 0. */
  get heldUntil(): number {
    return this.pausedUntil > this.now() ? this.pausedUntil : 0;
  }

  /**
   * An answer carried rate-limit headers: spend what remains of the window over what is left of
   * it. `inFlight`: requests sent and not answered yet (the service has not counted them).
   */
  observe(reading: RateLimitReading, inFlight: number): void {
    const t = this.now();
    if (reading.policy) this.learnPolicy(reading.policy);
    const left = reading.remaining - Math.max(0, inFlight - 1);
    const resetMs = Math.max(50, reading.resetMs);
    // A reading stays good for the rest of its window (at least a second).
    this.headerRateUntil = t + Math.max(1000, resetMs);
    // A reset in whole seconds is rounded up: the room may come up to a second sooner (on a
    // sliding window, after a sixth of a second at 6/s), on average half a second sooner.
    const spreadMs = reading.wholeSeconds && resetMs >= 1000 ? resetMs - 500 : resetMs;
    if (left <= 0) {
      // Held until the middle of that second.
      this.pausedUntil = Math.max(this.pausedUntil, t + spreadMs);
      this.headerRate = this.policyRate ?? this.headerRate ?? 1;
    } else this.headerRate = this.rateForRoom(reading, (left * 1000) / spreadMs);
    this.bucket.capAtOne();
  }

  /** The windows of the service's RateLimit-Policy: the steady rate, the burst, the longest window. */
  private learnPolicy(policy: NonNullable<RateLimitReading['policy']>): void {
    this.policyRate = steadyRate(policy);
    this.policyBurst = burstRate(policy);
    const slowest = policy.find((w) => (w.limit * 1000) / w.windowMs === this.policyRate);
    this.policySteadyLimit = slowest?.limit;
    this.steadyWindow = slowest;
    for (const w of policy) this.windowMs = Math.max(this.windowMs, w.windowMs);
  }

  /**
   * The start rate while the window has room (`spread`: what remains over what is left of it).
   * With a policy: the steady rate, faster (up to the burst) only to spend what would be left
   * unused at the window's end; without: the spread. A reading of another window (the burst's)
   * says nothing of the steady one: the steady rate.
   */
  private rateForRoom(reading: RateLimitReading, spread: number): number {
    if (this.policyRate === undefined) return Math.max(0.01, spread);
    const steadyReading = reading.limit !== undefined && reading.limit === this.policySteadyLimit;
    if (!steadyReading) return this.policyRate;
    return Math.min(this.policyBurst ?? this.policyRate, Math.max(this.policyRate, spread));
  }

  /** Advances the 100 ms buckets to now, clearing the ones that fell out of the last second. */
  private tick(): number {
    const epoch = Math.floor(this.now() / 100);
    if (epoch - this.bucketEpoch >= 10) this.buckets.fill(0);
    else for (let e = this.bucketEpoch + 1; e <= epoch; e++) this.buckets[e % 10] = 0;
    this.bucketEpoch = Math.max(this.bucketEpoch, epoch);
    return epoch;
  }

  /**
   * Completions per second over the last second. When the run is younger than that, over the time
   * since it started — but never less than the server's wait, which is the best guess of its
   * rate-limit window (200 answers in the first 150 ms of a 1 s window mean 200/s, not 1,333/s).
   */
  private completionRate(windowHintMs: number): number {
    this.tick();
    const count = this.buckets.reduce((a, b) => a + b, 0);
    const covered = Math.min(1000, Math.max(20, this.now() - this.runStartedAt, Math.min(1000, windowHintMs)));
    return (count * 1000) / covered;
  }

  /** The service's cap on requests in flight, once a 429 told it, and the 429s that did. */
  get inFlightCap(): number | undefined {
    return this.cap.cap;
  }

  get inFlightRefusals(): number {
    return this.cap.refusals;
  }

  /**
   * How long before the retry of a request refused over the in-flight cap its slot is taken back
   * (so that the retry finds one free): twice the time a request takes (Little's law: `active`
   * over the completions of the last second), at least 250 ms.
   */
  slotLeadMs(active: number): number {
    const rate = this.completionRate(0);
    return Math.max(250, rate > 0 ? (2000 * active) / rate : 0);
  }

  /**
   * The service refused a request (a 429) and asked to wait `waitMs`. `at`: where the request
   * stood, to tell a refusal over an in-flight cap (the concurrency comes down, the rate stays)
   * from one over a rate window (slow down). Returns which it was.
   */
  throttle(waitMs: number, at?: RefusalContext): RefusalKind {
    this.throttles++;
    if (this.cap.explains(at, waitMs > 1000 || this.windowMs > 1000)) {
      if (this.pace !== undefined) this.bucket.take(); // its retry, as below
      this.limit = Math.max(this.floor, this.cap.refused(at as RefusalContext, this.limit, this.now()));
      this.minLimitSeen = Math.min(this.minLimitSeen, this.limit);
      return 'in_flight';
    }
    this.rateRefusal(waitMs);
    return 'rate';
  }

  private rateRefusal(waitMs: number): void {
    this.throttlesSinceEvent++;
    // The throttled request will be sent again: charge it to the rate cap, so that retries and
    // new starts together stay under the cap.
    if (this.pace !== undefined) this.bucket.take();
    const t = this.now();
    const long = waitMs > 1000 || this.windowMs > 1000;
    if (this.sameCongestion(t, waitMs, long)) return;
    this.lastCongestion = t;
    this.congestionEvents++;
    this.limit = Math.max(this.floor, Math.floor(this.limit / 2));
    this.cap.touched(t);
    if (long) {
      this.learnLongWindow(t, waitMs);
      return;
    }
    this.minLimitSeen = Math.min(this.minLimitSeen, this.limit);
    const measured = this.completionRate(waitMs);
    if (this.rate === undefined) {
      // Nothing finished yet: no basis for a rate; the halved concurrency and the pause must do.
      if (measured > 0) {
        this.ceilingRate = measured;
        this.rate = Math.max(1, measured * 0.9);
      }
    } else {
      // The cap we were sending at is what hit the limit; the measured rate (which lags) only
      // matters when it is well below the cap (the cap was not what limited us). Many 429s since
      // the last event (over 5% of the answers): the cap was far off, trust the measured rate.
      const storm = this.throttlesSinceEvent > 0.05 * (this.throttlesSinceEvent + this.successesSinceEvent);
      const base = storm && measured > 0 ? Math.min(this.rate, measured) : Math.min(this.rate, Math.max(measured, this.rate * 0.9));
      this.ceilingRate = base;
      this.rate = Math.max(1, base * 0.95);
    }
    this.bucket.empty(t);
    this.lastRateIncrease = t;
    this.successesSinceIncrease = 0;
    this.throttlesSinceEvent = 0;
    this.successesSinceEvent = 0;
    if (this.pauseOnThrottle && waitMs > 0 && this.rate === undefined) this.pausedUntil = Math.max(this.pausedUntil, t + waitMs);
  }

  /**
   * A refusal that starts no new congestion event. A window longer than a second is closed until
   * the wait is over: nobody starts into it, and the refusals of requests sent before it closed
   * are the same congestion, however late they come. A 429 that newly closes a window for more
   * than a second is news however soon after a shorter window's 429s: learned now, not skipped for
   * their cooldown (then nothing was learned, and its later refusals in its last second, a 1-s
   * wait, passed for a one-second window's, measured over the hold: half the rate). Other
   * refusals, 1-s waits included: one event per cooldown.
   */
  private sameCongestion(t: number, waitMs: number, long: boolean): boolean {
    if (long && waitMs > 0) {
      if (this.closeWindow(t, waitMs)) return true;
      if (waitMs > 1000) return false;
    }
    return t - this.lastCongestion < this.cooldownMs;
  }

  /** A 429 closed a long window: starts held until it reopens. True: it was closed already. */
  private closeWindow(t: number, waitMs: number): boolean {
    const until = this.closed.until;
    const holding = until !== undefined && this.pausedUntil === until;
    const hold = this.closed.close(t, waitMs);
    this.pausedUntil = holding && hold.until <= (until as number) ? hold.until : Math.max(this.pausedUntil, hold.until);
    return hold.same;
  }

  /**
   * A 429 from a long window, without usable headers: what finished since the first request (or
   * the last such wait) is what the window let through until it reopens. Worked out now, and
   * again when the wait is over (the requests in flight at the 429 have finished by then).
   */
  private learnLongWindow(t: number, waitMs: number): void {
    this.windowMs = Math.max(this.windowMs, waitMs);
    // No window counted anything before the run's first request.
    const since = this.longBaseAt ?? this.firstStartAt ?? this.runStartedAt;
    // A rate set by one-second rules (a burst window) says nothing of the long window's.
    const before = this.learnedLong ? this.rate : undefined;
    this.learning = { since, count: this.longBaseCount, before };
    const span = Math.max(1, Math.max(t, this.closed.reopensAt(this.pausedUntil)) - since);
    this.applyLearned((this.successes - this.longBaseCount) * 1000, span, before);
    this.learnedLong = true;
    this.bucket.empty(Math.max(t, this.pausedUntil));
    this.lastRateIncrease = t;
    this.successesSinceIncrease = 0;
    this.throttlesSinceEvent = 0;
    this.successesSinceEvent = 0;
  }

  private applyLearned(countMs: number, span: number, before: number | undefined): void {
    const learned = countMs / span;
    if (before === undefined) {
      if (learned <= 0) return;
      this.ceilingRate = learned;
      this.rate = Math.max(0.01, learned * 0.97);
      return;
    }
    // Later 429s: the rate we were sending at was just too high (the measure, which spans the
    // waits, only lowers it by so much); back to just under it, probed up again from there.
    this.ceilingRate = before;
    this.ceilingMet = true;
    this.rate = Math.max(0.01, Math.min(before * 0.97, Math.max(learned, before * 0.9)));
  }

  /** The wait of a long-window 429 is over: learn again from every request it counted. */
  private finishLearning(t: number): void {
    const l = this.learning;
    if (l === undefined || t < this.pausedUntil) return;
    this.learning = undefined;
    const end = Math.max(this.closed.reopensAt(this.pausedUntil), l.since + 1);
    if (l.before === undefined) this.applyLearned((this.successes - l.count) * 1000, end - l.since, undefined);
    this.longBaseAt = t;
    this.longBaseCount = this.successes;
    this.bucket.empty(t);
  }

  /** A task finished without being throttled: probe back up. `sentAt`: in flight when it was sent, itself included. */
  success(sentAt?: number): void {
    this.successes++;
    const epoch = this.tick();
    this.buckets[epoch % 10] = (this.buckets[epoch % 10] ?? 0) + 1;
    this.successesSinceEvent++;
    const t = this.now();
    this.limit = this.cap.succeeded(sentAt, this.limit, this.ceiling, t);
    if (t - this.lastCongestion < this.cooldownMs) return;
    this.successesSinceIncrease++;
    const top = Math.min(this.ceiling, this.cap.cap ?? this.ceiling);
    if (this.limit < top && this.successesSinceIncrease >= this.limit) {
      this.limit++;
      this.successesSinceIncrease = 0;
    }
    if (this.rate !== undefined && t - this.lastRateIncrease >= 250) {
      // Back quickly to just under the rate at which the service pushed back, then probe beyond
      // it gently; the longer it stays quiet, the faster the probe grows.
      const quietSeconds = (t - this.lastCongestion) / 1000;
      const near = this.ceilingRate !== undefined && this.rate >= this.ceilingRate * 0.97;
      // Near a long window's rate the probe is slower the longer the window (about 1% per window:
      // a quiet spell says less), and a quarter of that around a rate a 429 met (a plateau).
      const plateau = this.ceilingMet && this.ceilingRate !== undefined && this.rate >= this.ceilingRate * 0.99 ? 4 : 1;
      // Near a long window's learned rate the step doubles every two windows of quiet: a rate learned
      // in a slow start (early 429s) is soon left behind; a real window's 429s keep the probe gentle.
      const quietWindows = (quietSeconds * 1000) / Math.max(1000, this.windowMs);
      const gentle = this.learnedLong
        ? Math.min(0.1, (0.0025 / plateau / Math.max(1, this.windowMs / 1000)) * 2 ** Math.floor(quietWindows / 2))
        : 0.0025 * 2 ** Math.floor(quietSeconds / 4);
      const step = near ? gentle : 0.03;
      this.rate *= 1 + Math.min(1, step);
      this.lastRateIncrease = t;
    }
  }

  /** Milliseconds to wait before the next start is allowed by pause and rate cap (0 = go). */
  startDelay(): number {
    const t = this.now();
    if (this.pausedUntil > t) {
      this.bucket.held();
      return this.pausedUntil - t;
    }
    if (this.learning !== undefined) this.finishLearning(t);
    const rate = this.pace;
    if (rate === undefined) return 0;
    // The bucket holds 50 ms of starts on one-second windows; on longer ones (or paced by headers) 250 ms.
    const burst = this.windowMs > 1000 || this.source === 'headers' ? Math.max(1, Math.floor(rate * 0.25)) : Math.max(1, rate * 0.05);
    return this.bucket.delay(t, rate, burst);
  }

  /** An item starts: it takes a token from the rate cap (when there is one). */
  started(): void {
    this.firstStartAt ??= this.now();
    if (this.pace !== undefined) this.bucket.take();
  }
}
