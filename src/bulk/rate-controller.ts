/**
 * How fast a bulk run may go: the concurrency limit and the start-rate cap, adapted to the
 * service's rate limits by AIMD. Pure arithmetic over an injected clock: no timers, no I/O, so
 * every rule below is testable without sleeping. The runner (scheduler.ts) asks it when the next
 * item may start and tells it what happened.
 *
 * - A throttle (429 with its wait) starts a "congestion event" (at most one per `cooldownMs`, so a
 *   burst of 429s from the requests already in flight counts once): the concurrency limit is
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
 */

export interface RateControllerOptions {
  /** Highest concurrency limit (the AIMD ceiling). */
  ceiling: number;
  /** Lowest concurrency limit AIMD may go down to. */
  floor: number;
  /** Minimum time between two congestion events. */
  cooldownMs: number;
  /** Pause new starts for the server's wait when there is no rate to cap yet. */
  pauseOnThrottle: boolean;
  now: () => number;
}

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
  /** The completion rate measured at the last congestion event: what the service allowed then. */
  private ceilingRate: number | undefined;
  private lastRateIncrease = 0;
  private successesSinceIncrease = 0;
  private lastCongestion = Number.NEGATIVE_INFINITY;
  private throttlesSinceEvent = 0;
  private successesSinceEvent = 0;
  private pausedUntil = 0;
  private runStartedAt: number;
  /** Token bucket for the rate cap. */
  private tokens = 1;
  private tokensAt: number;
  /** Completions in the last second, in 100 ms buckets, to measure the rate the service allows. */
  private readonly buckets = new Array<number>(10).fill(0);
  private bucketEpoch: number;

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
    this.tokensAt = t;
    this.bucketEpoch = Math.floor(t / 100);
  }

  /** The run starts now (rates measured before are over a shorter time). */
  startRun(): void {
    this.runStartedAt = this.now();
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

  /** The service asked to wait `waitMs` (a 429): slow down. */
  throttle(waitMs: number): void {
    this.throttles++;
    this.throttlesSinceEvent++;
    // The throttled request will be sent again: charge it to the rate cap, so that retries and
    // new starts together stay under the cap.
    if (this.rate !== undefined) this.tokens -= 1;
    const t = this.now();
    if (t - this.lastCongestion < this.cooldownMs) return;
    this.lastCongestion = t;
    this.congestionEvents++;
    this.limit = Math.max(this.floor, Math.floor(this.limit / 2));
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
    this.tokens = Math.min(this.tokens, 0);
    this.tokensAt = t;
    this.lastRateIncrease = t;
    this.successesSinceIncrease = 0;
    this.throttlesSinceEvent = 0;
    this.successesSinceEvent = 0;
    if (this.pauseOnThrottle && waitMs > 0 && this.rate === undefined) this.pausedUntil = Math.max(this.pausedUntil, t + waitMs);
  }

  /** A task finished without being throttled: probe back up. */
  success(): void {
    const epoch = this.tick();
    this.buckets[epoch % 10] = (this.buckets[epoch % 10] ?? 0) + 1;
    this.successesSinceEvent++;
    const t = this.now();
    if (t - this.lastCongestion < this.cooldownMs) return;
    this.successesSinceIncrease++;
    if (this.limit < this.ceiling && this.successesSinceIncrease >= this.limit) {
      this.limit++;
      this.successesSinceIncrease = 0;
    }
    if (this.rate !== undefined && t - this.lastRateIncrease >= 250) {
      // Back quickly to just under the rate at which the service pushed back, then probe beyond
      // it gently; the longer it stays quiet, the faster the probe grows.
      const quietSeconds = (t - this.lastCongestion) / 1000;
      const near = this.ceilingRate !== undefined && this.rate >= this.ceilingRate * 0.97;
      const step = near ? 0.0025 * 2 ** Math.floor(quietSeconds / 4) : 0.03;
      this.rate *= 1 + Math.min(1, step);
      this.lastRateIncrease = t;
    }
  }

  /** Milliseconds to wait before the next start is allowed by pause and rate cap (0 = go). */
  startDelay(): number {
    const t = this.now();
    if (this.pausedUntil > t) return this.pausedUntil - t;
    const rate = this.rate;
    if (rate === undefined) return 0;
    const burst = Math.max(1, rate * 0.05);
    this.tokens = Math.min(burst, this.tokens + ((t - this.tokensAt) * rate) / 1000);
    this.tokensAt = t;
    if (this.tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / rate));
  }

  /** An item starts: it takes a token from the rate cap (when there is one). */
  started(): void {
    if (this.rate !== undefined) this.tokens -= 1;
  }
}
