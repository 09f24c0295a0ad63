/**
 * Runs the items of a bulk command with bounded concurrency, key affinity and the pace set by the
 * rate controller (rate-controller.ts). Shared by `orders import`, `events send --file` and the
 * `--ids-file` verbs of contacts.
 *
 * - The source is pulled lazily: never more than `maxBuffered` pulled-but-unstarted items (plus the
 *   rest of the batch being read), so memory stays bounded whatever its size. `runBatches` takes a
 *   source that yields what it has at hand as one array: one await per batch instead of one per
 *   item, a measurable share of the CPU of a bulk run of small requests (docs/performance.md).
 * - A task that reports a server-directed wait through its ctx.throttle gives its slot back for
 *   that wait (it may briefly exceed the limit when it resumes), and its coming retry is charged
 *   to the rate cap, so that retries and new starts together stay under the cap. A refusal over
 *   the service's in-flight cap (rate-controller.ts tells it) takes its slot back shortly before
 *   its retry (twice a request's time, at least 250 ms): the retry comes back into a slot of its
 *   own rather than over the cap again.
 * - Key affinity: two items sharing a key of `keyOf(item)` (one key, or several: a contact's email
 *   and phone) are never in flight together; later ones wait (parked, not counted as in flight)
 *   and run in input order after the earlier ones settled. Each key has a queue of the items that
 *   hold it, in input order; an item starts when it heads every queue it is in (no deadlock: all
 *   queues follow the one input order).
 * - Abort (options.signal): no new item starts; the worker sees the same signal; run() resolves
 *   once the tasks in flight have settled (their errors reach onSettled) with stats.aborted true.
 * - onSettled is called in completion order and awaited (back-pressure for slow sinks); if it
 *   (or beforeStart, or the source) throws, the run stops starting new items and run() rejects
 *   with that error after the tasks in flight settled.
 */
import type { HeaderBag } from '../client/response.js';
import { type PaceSource, RateController } from './rate-controller.js';
import { readRateHeaders } from './rate-headers.js';
import { Signal, sleep } from './wake-signal.js';

export interface WorkerContext {
  /** Aborted when the run is aborted. */
  signal: AbortSignal;
  /** Tells the scheduler the service asked to wait (429/503 with Retry-After). */
  throttle(waitMs: number): void;
  /** An answer's rate-limit headers (the client's onRateHeaders): they set the pace. */
  rateHeaders(headers: HeaderBag): void;
}

export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface SchedulerOptions<T> {
  /** Highest number of tasks in flight (the AIMD ceiling). */
  concurrency: number;
  /** Lowest concurrency limit AIMD may go down to (default 1). */
  minConcurrency?: number;
  /** Key(s) for affinity; undefined (or none) = no affinity for that item. */
  keyOf?: (item: T) => string | readonly string[] | undefined;
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
  /** Waits `ms` or until the signal aborts (injected by tests; default a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
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
  /** The service's cap on requests in flight, once a 429 told it, and the 429s that did. */
  inFlightCap: number | undefined;
  inFlightRefusals: number;
  /** The start rate in force (from the service's headers, or learned from its 429s), and where it comes from. */
  pace: number | undefined;
  paceSource: PaceSource;
  /** Starts are held until then (a window the service said is closed), or 0. */
  heldUntil: number;
  /** The longest rate-limit window known (ms), 0 when none. */
  windowMs: number;
  /** The slowest window of the service's RateLimit-Policy, once known. */
  steadyWindow: { limit: number; windowMs: number } | undefined;
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

export function createScheduler<T, R>(worker: (item: T, ctx: WorkerContext) => Promise<R>, options: SchedulerOptions<T>): Scheduler<T, R> {
  const ceiling = Math.max(1, Math.floor(options.concurrency));
  const maxBuffered = options.maxBuffered ?? Math.max(64, ceiling * 8);
  const signal = options.signal ?? new AbortController().signal;
  const wait = options.sleep ?? sleep;
  const pace = new RateController({
    ceiling,
    floor: options.minConcurrency ?? 1,
    cooldownMs: options.cooldownMs ?? 1000,
    pauseOnThrottle: options.pauseOnThrottle ?? true,
    now: options.now ?? Date.now,
  });
  let started = 0;
  let settled = 0;
  let inFlight = 0;
  /** Of those, tasks refused over the service's in-flight cap, waiting in their slot to retry. */
  let held = 0;
  /** RateLimit-Remaining of the answer being handled, until the next microtask (a 429's onRetry follows its headers at once). */
  let answerRemaining: number | undefined;
  let clearQueued = false;
  const clearRemaining = () => {
    answerRemaining = undefined;
    clearQueued = false;
  };

  const changed = new Signal();

  function stats(): SchedulerStats {
    return {
      started,
      settled,
      throttles: pace.throttles,
      congestionEvents: pace.congestionEvents,
      limit: pace.limit,
      minLimitSeen: pace.minLimitSeen,
      rate: pace.rate,
      inFlightCap: pace.inFlightCap,
      inFlightRefusals: pace.inFlightRefusals,
      pace: pace.pace,
      paceSource: pace.source,
      heldUntil: pace.heldUntil,
      windowMs: pace.windowMs,
      steadyWindow: pace.steadyWindow,
      inFlight,
      aborted: signal.aborted,
    };
  }

  const throttle = (waitMs: number) => {
    pace.throttle(waitMs);
  };
  const clock = options.now ?? Date.now;
  const rateHeaders = (headers: HeaderBag) => {
    const reading = readRateHeaders(headers, clock());
    if (!reading) return;
    pace.observe(reading, inFlight - held);
    answerRemaining = reading.remaining;
    if (!clearQueued) {
      clearQueued = true;
      queueMicrotask(clearRemaining);
    }
  };

  function run(source: AsyncIterable<T>, onSettled?: (item: T, result: Settled<R>) => void | Promise<void>): Promise<SchedulerStats> {
    return runBatches(singles(source), onSettled);
  }

  async function runBatches(
    source: AsyncIterable<readonly T[]>,
    onSettled?: (item: T, result: Settled<R>) => void | Promise<void>,
  ): Promise<SchedulerStats> {
    pace.startRun();
    const iterator = source[Symbol.asyncIterator]();
    let exhausted = false;
    /** The batch being read and the index of its next item. */
    let batch: readonly T[] = [];
    let nextInBatch = 0;
    /** Items whose key is free, in input order, ready to start. */
    const ready: T[] = [];
    /** Key → the items holding it in input order: the first is started or ready, the rest wait. */
    const busy = new Map<string, T[]>();
    // An item's keys: most items have one (a string), so no array is made for them.
    const keysOf = (item: T): string | readonly string[] | undefined => options.keyOf?.(item);
    const heads = (item: T, key: string) => busy.get(key)?.[0] === item;
    const headsAll = (item: T) => {
      const k = keysOf(item);
      return k === undefined || (typeof k === 'string' ? heads(item, k) : k.every((key) => heads(item, key)));
    };
    /** The key is released by a settled item: the next item waiting for it may become ready. */
    const release = (key: string) => {
      const queue = busy.get(key);
      if (!queue) return;
      queue.shift();
      const next = queue[0];
      if (next === undefined) busy.delete(key);
      else if (headsAll(next)) {
        buffered--;
        ready.push(next);
      }
    };
    /** Marks the item's key busy; true when an earlier item holds it (the item waits). */
    const claim = (key: string, value: T): boolean => {
      const queue = busy.get(key);
      if (queue === undefined) {
        busy.set(key, [value]);
        return false;
      }
      if (queue[queue.length - 1] === value) return false;
      queue.push(value);
      return true;
    };
    let buffered = 0;
    let sinkError: { error: unknown } | undefined;
    /** Tasks not finished yet (their onSettled included). */
    let running = 0;
    const onAbort = () => changed.wake();
    signal.addEventListener('abort', onAbort, { once: true });

    /**
     * One started item: its worker context (it is the ctx the worker gets) and its settling. A class
     * rather than closures and an async function: an import starts a million of them.
     */
    class Task implements WorkerContext {
      readonly signal = signal;
      // A task told by the server to wait does not hold its slot meanwhile: it loads nobody, and
      // with a halved limit a few such tasks would otherwise stall the whole run.
      private parked: ReturnType<typeof setTimeout> | undefined;
      /** Parked in its slot (refused over the in-flight cap, its retry near) rather than out of it. */
      private holding = false;
      /** Requests in flight when its request was (last) sent, itself included. */
      sentAt = 0;

      constructor(private readonly item: T) {}

      readonly rateHeaders = rateHeaders;

      /** An own property, not a method: workers may take it out of the context (`{ throttle }`). */
      readonly throttle = (waitMs: number): void => {
        const parked = this.parked !== undefined;
        const kind = pace.throttle(waitMs, {
          sentAt: this.sentAt,
          active: inFlight - held - (parked ? 0 : 1),
          remaining: answerRemaining,
        });
        if (parked || waitMs <= 0) return;
        inFlight--;
        changed.wake();
        if (kind === 'in_flight') {
          // The slot is free until shortly before the retry, then taken back for it: a retry
          // coming back to a full set of slots would only be refused again.
          const lead = Math.min(waitMs, pace.slotLeadMs(inFlight - held));
          this.parked = setTimeout(() => this.retake(lead), waitMs - lead);
        } else this.parked = setTimeout(() => this.unpark(), waitMs);
      };

      private retake(lead: number): void {
        inFlight++;
        held++;
        this.holding = true;
        this.parked = setTimeout(() => this.unpark(), lead);
      }

      private unpark(): void {
        if (this.parked === undefined) return;
        clearTimeout(this.parked);
        this.parked = undefined;
        if (this.holding) {
          held--;
          this.holding = false;
        } else inFlight++;
        this.sentAt = inFlight - held;
      }

      start(): void {
        this.sentAt = inFlight - held;
        worker(this.item, this).then(
          (value) => {
            pace.success(this.sentAt);
            this.settle({ ok: true, value });
          },
          (error: unknown) => this.settle({ ok: false, error }),
        );
      }

      private settle(result: Settled<R>): void {
        this.unpark();
        inFlight--;
        settled++;
        const k = keysOf(this.item);
        if (typeof k === 'string') release(k);
        else if (k !== undefined) for (const key of k) release(key);
        let sunk: unknown;
        try {
          sunk = onSettled?.(this.item, result);
        } catch (error) {
          sinkError ??= { error };
        }
        // Waited for only when the sink returns a promise: a microtask per row adds up.
        if (sunk) {
          (sunk as Promise<void>).then(finished, (error: unknown) => {
            sinkError ??= { error };
            finished();
          });
        } else finished();
      }
    }
    const finished = () => {
      running--;
      changed.wake();
    };
    const launch = (item: T) => {
      started++;
      inFlight++;
      running++;
      new Task(item).start();
    };

    const stopped = () => signal.aborted || sinkError !== undefined;

    while (!stopped()) {
      if (inFlight >= pace.limit) {
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
          let next: IteratorResult<readonly T[]>;
          try {
            next = await iterator.next();
          } catch (error) {
            // The source failed (an unreadable input): like a failing sink, stop starting and let
            // the tasks in flight settle, so that their outcome is known and counted.
            sinkError ??= { error };
            exhausted = true;
            continue;
          }
          if (next.done) exhausted = true;
          else {
            batch = next.value;
            nextInBatch = 0;
          }
          continue;
        }
        const value = batch[nextInBatch++] as T;
        const k = keysOf(value);
        let blocked = false;
        if (typeof k === 'string') blocked = claim(k, value);
        else if (k !== undefined) for (const key of k) blocked = claim(key, value) || blocked;
        if (blocked) {
          buffered++;
          continue;
        }
        item = value;
      }
      // A released item (from `ready`) keeps its keys marked busy until it settles.
      const delay = pace.startDelay();
      if (delay > 0) {
        ready.unshift(item);
        await wait(delay, signal);
        continue;
      }
      pace.started();
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
