/**
 * A generic bounded-concurrency scheduler with key affinity and AIMD adaptation to rate limits.
 * Shared by the orders importer and `events send --file`.
 *
 * Rules:
 * - A task that reports a server-directed wait through its ctx.throttle gives its slot back for
 *   that wait (it may briefly exceed the limit when it resumes), and its coming retry is charged
 *   to the rate cap, so that retries and new starts together stay under the cap.
 * - Key affinity: two items with the same `keyOf(item)` are never in flight together; later ones
 *   wait (parked, not counted as in flight) and run in input order after the earlier one settled.
 * - AIMD: a throttle starts a "congestion event" (at most one per `cooldownMs`, so a burst of
 *   429s from the requests already in flight counts once): the concurrency limit is halved and a
 *   start-rate cap is set to 90% of the completion rate measured over the last second (later
 *   events: 95% of the cap in force, or of the measured rate when that is well below the cap or
 *   when over 5% of the answers since the last event were throttled). New starts pause for the server's wait
 *   only when no rate could be measured yet; otherwise the cap does the job (the throttled
 *   requests themselves wait as told; pausing at every event would waste the rest of a fixed
 *   rate-limit window each time). Each success without a throttle probes back up: +1 to the
 *   concurrency limit per `limit` successes; the rate cap grows 3% per 250 ms up to 97% of the
 *   rate measured at the last event, then 0.25% per 250 ms, that step doubling every 4 s of
 *   quiet. The rate cap matters when the service limits requests per second while answering
 *   fast: a concurrency limit alone cannot go below one request in flight.
 * - Abort (options.signal): no new item starts; the worker sees the same signal; run() resolves
 *   once the tasks in flight have settled (their errors reach onSettled) with stats.aborted true.
 * - onSettled is called in completion order and awaited (back-pressure for slow sinks); if it
 *   (or beforeStart) throws, the run stops starting new items and run() rejects with that error after the tasks in
 *   flight settled.
 */

export interface WorkerContext {
  /** Aborted when the run is aborted. */
  signal: AbortSignal;
  /** Tells the scheduler the service asked to wait (429/503 with Retry-After). */
  throttle(waitMs: number): void;
}

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface SchedulerOptions<T> {
  /** Highest number of tasks in flight (the AIMD ceiling). */
  concurrency: number;
  /** Lowest concurrency limit AIMD may go down to (default 1). */
  minConcurrency?: number;
  /** Key for affinity; undefined = no affinity for that item. */
  keyOf?: (item: T) => string | undefined;
  signal?: AbortSignal;
  /** Most items pulled from the source but not started yet (default max(64, concurrency × 8)). */
  maxBuffered?: number;
  /** Called and awaited before an item starts (e.g. to record it durably as "maybe sent"). */
  beforeStart?: (item: T) => void | Promise<void>;
  /** Pause new starts for the server's wait on a congestion event (default true). */
  pauseOnThrottle?: boolean;
  /** Minimum time between two congestion events (default 1000 ms). */
  cooldownMs?: number;
  now?: () => number;
}

export interface SchedulerStats {
  started: number;
  settled: number;
  /** Throttle reports received (every 429/503 retry), and congestion events acted upon. */
  throttles: number;
  congestionEvents: number;
  /** Current concurrency limit and the lowest it went. */
  limit: number;
  minLimitSeen: number;
  /** Current start-rate cap in items/s (undefined until the first congestion event). */
  rate: number | undefined;
  inFlight: number;
  aborted: boolean;
}

export interface Scheduler<T, R> {
  run(source: AsyncIterable<T>, onSettled?: (item: T, result: Settled<R>) => void | Promise<void>): Promise<SchedulerStats>;
  runBatches(
    source: AsyncIterable<readonly T[]>,
    onSettled?: (item: T, result: Settled<R>) => void | Promise<void>,
  ): Promise<SchedulerStats>;
  throttle(waitMs: number): void;
  stats(): SchedulerStats;
}

/** A promise that resolves when `wake()` is called (any number of waiters, one-shot per cycle). */
class Signal {
  private waiters: Array<() => void> = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function createScheduler<T, R>(worker: (item: T, ctx: WorkerContext) => Promise<R>, options: SchedulerOptions<T>): Scheduler<T, R> {
  const ceiling = Math.max(1, Math.floor(options.concurrency));
  const floor = Math.max(1, Math.min(ceiling, options.minConcurrency ?? 1));
  const maxBuffered = options.maxBuffered ?? Math.max(64, ceiling * 8);
  const cooldownMs = options.cooldownMs ?? 1000;
  const pauseOnThrottle = options.pauseOnThrottle ?? true;
  const now = options.now ?? Date.now;
  const signal = options.signal ?? new AbortController().signal;

  let limit = ceiling;
  let minLimitSeen = ceiling;
  let rate: number | undefined;
  /** The completion rate measured at the last congestion event: what the service allowed then. */
  let ceilingRate: number | undefined;
  let lastRateIncrease = 0;
  let successesSinceIncrease = 0;
  let lastCongestion = Number.NEGATIVE_INFINITY;
  let throttlesSinceEvent = 0;
  let successesSinceEvent = 0;
  let pausedUntil = 0;
  let started = 0;
  let settled = 0;
  let throttles = 0;
  let congestionEvents = 0;
  let inFlight = 0;
  let runStartedAt = now();
  // Token bucket for the rate cap.
  let tokens = 1;
  let tokensAt = now();
  // Completions in the last second, in 100 ms buckets, to measure the rate the service allows.
  const buckets = new Array<number>(10).fill(0);
  let bucketEpoch = Math.floor(now() / 100);

  const changed = new Signal();

  /** Advances the 100 ms buckets to now, clearing the ones that fell out of the last second. */
  function tick(): number {
    const epoch = Math.floor(now() / 100);
    if (epoch - bucketEpoch >= 10) buckets.fill(0);
    else for (let e = bucketEpoch + 1; e <= epoch; e++) buckets[e % 10] = 0;
    bucketEpoch = Math.max(bucketEpoch, epoch);
    return epoch;
  }

  function recordCompletion(): void {
    const epoch = tick();
    buckets[epoch % 10] = (buckets[epoch % 10] ?? 0) + 1;
  }

  /**
   * Completions per second over the last second. When the run is younger than that, over the time
   * since it started — but never less than the server's wait, which is the best guess of its
   * rate-limit window (200 answers in the first 150 ms of a 1 s window mean 200/s, not 1,333/s).
   */
  function completionRate(windowHintMs: number): number {
    tick();
    const count = buckets.reduce((a, b) => a + b, 0);
    const covered = Math.min(1000, Math.max(20, now() - runStartedAt, Math.min(1000, windowHintMs)));
    return (count * 1000) / covered;
  }

  function throttle(waitMs: number): void {
    throttles++;
    throttlesSinceEvent++;
    // The throttled request will be sent again: charge it to the rate cap, so that retries and
    // new starts together stay under the cap.
    if (rate !== undefined) tokens -= 1;
    const t = now();
    if (t - lastCongestion < cooldownMs) return;
    lastCongestion = t;
    congestionEvents++;
    limit = Math.max(floor, Math.floor(limit / 2));
    minLimitSeen = Math.min(minLimitSeen, limit);
    const measured = completionRate(waitMs);
    // Nothing finished yet: no basis for a rate; the halved concurrency and the pause must do.
    if (rate === undefined) {
      if (measured > 0) {
        ceilingRate = measured;
        rate = Math.max(1, measured * 0.9);
      }
    } else {
      // The cap we were sending at is what hit the limit; the measured rate (which lags) only
      // matters when it is well below the cap (the cap was not what limited us).
      // Many 429s since the last event (over 5% of the answers): the cap was far off, trust the
      // measured rate of successes instead.
      const storm = throttlesSinceEvent > 0.05 * (throttlesSinceEvent + successesSinceEvent);
      const base = storm && measured > 0 ? Math.min(rate, measured) : Math.min(rate, Math.max(measured, rate * 0.9));
      ceilingRate = base;
      rate = Math.max(1, base * 0.95);
    }
    tokens = Math.min(tokens, 0);
    tokensAt = t;
    lastRateIncrease = t;
    successesSinceIncrease = 0;
    throttlesSinceEvent = 0;
    successesSinceEvent = 0;
    // Pause for the server's wait only when there is no basis for a rate cap yet. Otherwise the
    // lowered cap does the job (the throttled requests themselves wait as told, and a cap that is
    // still too high is cut again one cooldown later); a pause would waste the rest of a
    // fixed rate-limit window at every event.
    if (pauseOnThrottle && waitMs > 0 && rate === undefined) pausedUntil = Math.max(pausedUntil, t + waitMs);
  }

  function onSuccess(): void {
    recordCompletion();
    successesSinceEvent++;
    const t = now();
    if (t - lastCongestion < cooldownMs) return;
    successesSinceIncrease++;
    if (limit < ceiling && successesSinceIncrease >= limit) {
      limit++;
      successesSinceIncrease = 0;
    }
    if (rate !== undefined && t - lastRateIncrease >= 250) {
      // Back quickly to just under the rate at which the service pushed back, then probe beyond
      // it gently; the longer it stays quiet, the faster the probe grows.
      const quietSeconds = (t - lastCongestion) / 1000;
      const near = ceilingRate !== undefined && rate >= ceilingRate * 0.97;
      const step = near ? 0.0025 * 2 ** Math.floor(quietSeconds / 4) : 0.03;
      rate *= 1 + Math.min(1, step);
      lastRateIncrease = t;
    }
  }

  /** Milliseconds to wait before the next start is allowed by pause and rate cap (0 = go). */
  function startDelay(): number {
    const t = now();
    if (pausedUntil > t) return pausedUntil - t;
    if (rate === undefined) return 0;
    const burst = Math.max(1, rate * 0.05);
    tokens = Math.min(burst, tokens + ((t - tokensAt) * rate) / 1000);
    tokensAt = t;
    if (tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - tokens) * 1000) / rate));
  }

  function stats(): SchedulerStats {
    return {
      started,
      settled,
      throttles,
      congestionEvents,
      limit,
      minLimitSeen,
      rate,
      inFlight,
      aborted: signal.aborted,
    };
  }

  function run(source: AsyncIterable<T>, onSettled?: (item: T, result: Settled<R>) => void | Promise<void>): Promise<SchedulerStats> {
    return runBatches(singles(source), onSettled);
  }

  async function runBatches(
    source: AsyncIterable<readonly T[]>,
    onSettled?: (item: T, result: Settled<R>) => void | Promise<void>,
  ): Promise<SchedulerStats> {
    runStartedAt = now();
    const iterator = source[Symbol.asyncIterator]();
    let exhausted = false;
    /** The batch being read and the index of its next item. */
    let batch: readonly T[] = [];
    let nextInBatch = 0;
    /** Items whose key is free, in input order, ready to start. */
    const ready: T[] = [];
    /** Key → items waiting for the task with that key in flight (presence = key busy). */
    const busy = new Map<string, T[]>();
    let buffered = 0;
    let sinkError: { error: unknown } | undefined;
    /** Tasks not finished yet (their onSettled included). */
    let running = 0;
    const onAbort = () => changed.wake();
    signal.addEventListener('abort', onAbort, { once: true });

    const launch = (item: T) => {
      started++;
      inFlight++;
      // A task told by the server to wait does not hold its slot meanwhile: it loads nobody, and
      // with a halved limit a few such tasks would otherwise stall the whole run.
      let parked: ReturnType<typeof setTimeout> | undefined;
      const unpark = () => {
        if (parked === undefined) return;
        clearTimeout(parked);
        parked = undefined;
        inFlight++;
      };
      const ctx: WorkerContext = {
        signal,
        throttle(waitMs) {
          throttle(waitMs);
          if (parked !== undefined || waitMs <= 0) return;
          inFlight--;
          parked = setTimeout(unpark, waitMs);
          changed.wake();
        },
      };
      running++;
      void (async () => {
        let result: Settled<R>;
        try {
          result = { ok: true, value: await worker(item, ctx) };
          onSuccess();
        } catch (error) {
          result = { ok: false, error };
        }
        unpark();
        inFlight--;
        settled++;
        const key = options.keyOf?.(item);
        if (key !== undefined) {
          const waiting = busy.get(key);
          const next = waiting?.shift();
          if (next !== undefined) {
            buffered--;
            ready.push(next);
          } else busy.delete(key);
        }
        try {
          // Awaited only when the sink returns a promise: a microtask per row adds up.
          const sunk = onSettled?.(item, result);
          if (sunk) await sunk;
        } catch (error) {
          sinkError ??= { error };
        }
        running--;
        changed.wake();
      })();
    };

    const stopped = () => signal.aborted || sinkError !== undefined;

    while (!stopped()) {
      if (inFlight >= limit) {
        await changed.wait();
        continue;
      }
      let item = ready.shift();
      if (item === undefined) {
        if (exhausted) {
          if (inFlight === 0 && busy.size === 0) break;
          await changed.wait();
          continue;
        }
        if (buffered >= maxBuffered) {
          await changed.wait();
          continue;
        }
        if (nextInBatch >= batch.length) {
          const next = await iterator.next();
          if (next.done) exhausted = true;
          else {
            batch = next.value;
            nextInBatch = 0;
          }
          continue;
        }
        const value = batch[nextInBatch++] as T;
        const key = options.keyOf?.(value);
        if (key !== undefined) {
          const waiting = busy.get(key);
          if (waiting) {
            waiting.push(value);
            buffered++;
            continue;
          }
          busy.set(key, []);
        }
        item = value;
      }
      // A released item (from `ready`) keeps its key marked busy until it settles.
      const delay = startDelay();
      if (delay > 0) {
        ready.unshift(item);
        await sleep(delay, signal);
        continue;
      }
      tokens -= rate === undefined ? 0 : 1;
      try {
        const before = options.beforeStart?.(item);
        if (before) await before;
      } catch (error) {
        sinkError ??= { error };
      }
      if (stopped()) {
        ready.unshift(item);
        break;
      }
      launch(item);
    }
    signal.removeEventListener('abort', onAbort);
    while (running > 0) await changed.wait();
    if (!exhausted) await iterator.return?.();
    if (sinkError) throw sinkError.error;
    return stats();
  }

  return { run, runBatches, throttle, stats };
}

/** A source of items as a source of one-item batches. */
async function* singles<T>(source: AsyncIterable<T>): AsyncGenerator<readonly T[]> {
  for await (const item of source) yield [item];
}
