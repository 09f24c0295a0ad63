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

type KeysOf<T> = (item: T) => string | readonly string[] | undefined;
type Sink<T, R> = (item: T, result: Settled<R>) => void | Promise<void>;

export function createScheduler<T, R>(worker: (item: T, ctx: WorkerContext) => Promise<R>, options: SchedulerOptions<T>): Scheduler<T, R> {
  return new PacedScheduler(worker, options);
}

/** The state all runs of a scheduler share: the pace, the counters, the wake-up signal. */
class PacedScheduler<T, R> implements Scheduler<T, R> {
  readonly maxBuffered: number;
  readonly signal: AbortSignal;
  readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly pace: RateController;
  private readonly clock: () => number;
  started = 0;
  settled = 0;
  inFlight = 0;
  /** Of those, tasks refused over the service's in-flight cap, waiting in their slot to retry. */
  held = 0;
  /** RateLimit-Remaining of the answer being handled, until the next microtask (a 429's onRetry follows its headers at once). */
  answerRemaining: number | undefined;
  private clearQueued = false;
  readonly changed = new Signal();

  constructor(
    readonly worker: (item: T, ctx: WorkerContext) => Promise<R>,
    readonly options: SchedulerOptions<T>,
  ) {
    const ceiling = Math.max(1, Math.floor(options.concurrency));
    this.maxBuffered = options.maxBuffered ?? Math.max(64, ceiling * 8);
    this.signal = options.signal ?? new AbortController().signal;
    this.wait = options.sleep ?? sleep;
    this.clock = options.now ?? Date.now;
    this.pace = new RateController({
      ceiling,
      floor: options.minConcurrency ?? 1,
      cooldownMs: options.cooldownMs ?? 1000,
      pauseOnThrottle: options.pauseOnThrottle ?? true,
      now: this.clock,
    });
  }

  stats(): SchedulerStats {
    const pace = this.pace;
    return {
      started: this.started,
      settled: this.settled,
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
      inFlight: this.inFlight,
      aborted: this.signal.aborted,
    };
  }

  throttle(waitMs: number): void {
    this.pace.throttle(waitMs);
  }

  /** One function for every task's ctx.rateHeaders (a task takes it, it makes none). */
  readonly rateHeaders = (headers: HeaderBag): void => {
    const reading = readRateHeaders(headers, this.clock());
    if (!reading) return;
    this.pace.observe(reading, this.inFlight - this.held);
    this.answerRemaining = reading.remaining;
    if (!this.clearQueued) {
      this.clearQueued = true;
      queueMicrotask(this.clearRemaining);
    }
  };

  private readonly clearRemaining = (): void => {
    this.answerRemaining = undefined;
    this.clearQueued = false;
  };

  run(source: AsyncIterable<T>, onSettled?: Sink<T, R>): Promise<SchedulerStats> {
    return this.runBatches(singles(source), onSettled);
  }

  runBatches(source: AsyncIterable<readonly T[]>, onSettled?: Sink<T, R>): Promise<SchedulerStats> {
    return new SchedulerRun(this, source[Symbol.asyncIterator](), onSettled).execute();
  }
}

/** What the run loop does when it has no item to start. */
const WAIT = Symbol('wait for a change');
const READ = Symbol('read the next batch');
const DONE = Symbol('done');
type Step = typeof WAIT | typeof READ | typeof DONE;

/** One call of runBatches: its source, its items waiting for their keys, its sink. */
class SchedulerRun<T, R> {
  readonly queue: KeyedQueue<T>;
  private readonly cursor: BatchCursor<T>;
  private sinkError: { error: unknown } | undefined;
  /** Tasks not finished yet (their onSettled included). */
  private running = 0;

  constructor(
    readonly s: PacedScheduler<T, R>,
    iterator: AsyncIterator<readonly T[]>,
    private readonly onSettled: Sink<T, R> | undefined,
  ) {
    this.queue = new KeyedQueue(s.options);
    this.cursor = new BatchCursor(iterator);
  }

  async execute(): Promise<SchedulerStats> {
    const s = this.s;
    s.pace.startRun();
    const onAbort = () => s.changed.wake();
    s.signal.addEventListener('abort', onAbort, { once: true });
    await this.startAll();
    s.signal.removeEventListener('abort', onAbort);
    while (this.running > 0) await s.changed.wait();
    await this.cursor.close();
    if (this.sinkError) throw this.sinkError.error;
    return s.stats();
  }

  /** Starts items at the pace allowed until the source is done or the run stops. */
  private async startAll(): Promise<void> {
    const s = this.s;
    while (!this.stopped()) {
      const next = s.inFlight >= s.pace.limit ? WAIT : (this.queue.take() ?? this.pull());
      if (next === DONE) return;
      if (next === WAIT || next === READ) {
        await this.waitFor(next as typeof WAIT | typeof READ);
        continue;
      }
      // A released item (from `ready`) keeps its keys marked busy until it settles.
      const delay = s.pace.startDelay();
      if (delay > 0) {
        this.queue.putBack(next as T);
        await s.wait(delay, s.signal);
        continue;
      }
      s.pace.started();
      const before = this.beforeStart(next as T);
      if (before) await before;
      if (this.stopped()) {
        this.queue.putBack(next as T);
        return;
      }
      this.launch(next as T);
    }
  }

  /** The next item of the source whose keys are free (those that wait are parked), or what to do first. */
  private pull(): T | Step {
    const { cursor, queue, s } = this;
    for (;;) {
      if (cursor.exhausted) return s.inFlight === 0 && queue.idle ? DONE : WAIT;
      if (queue.buffered >= s.maxBuffered) return WAIT;
      if (!cursor.hasItem()) return READ;
      const value = cursor.take();
      if (queue.admit(value)) return value;
    }
  }

  /** Waits for a change (a slot, a key, a settled task) or reads the next batch. */
  private waitFor(step: typeof WAIT | typeof READ): Promise<void> {
    return step === READ ? this.readBatch() : this.s.changed.wait();
  }

  private async readBatch(): Promise<void> {
    // The source failed (an unreadable input): like a failing sink, stop starting and let the
    // tasks in flight settle, so that their outcome is known and counted.
    const failed = await this.cursor.read();
    if (failed) this.sinkError ??= failed;
  }

  /** options.beforeStart: its promise when it returns one (its failure stops the run). */
  private beforeStart(item: T): Promise<void> | undefined {
    try {
      const before = this.s.options.beforeStart?.(item);
      return before ? before.then(undefined, this.fail) : undefined;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  private readonly fail = (error: unknown): void => {
    this.sinkError ??= { error };
  };

  private stopped(): boolean {
    return this.s.signal.aborted || this.sinkError !== undefined;
  }

  private launch(item: T): void {
    const s = this.s;
    s.started++;
    s.inFlight++;
    this.running++;
    new Task(this, item).start();
  }

  /** A task settled: its keys are released and onSettled told. */
  settle(item: T, result: Settled<R>): void {
    this.queue.releaseAll(item);
    let sunk: unknown;
    try {
      sunk = this.onSettled?.(item, result);
    } catch (error) {
      this.fail(error);
    }
    // Waited for only when the sink returns a promise: a microtask per row adds up.
    if (sunk) {
      (sunk as Promise<void>).then(this.finished, (error: unknown) => {
        this.fail(error);
        this.finished();
      });
    } else this.finished();
  }

  private readonly finished = (): void => {
    this.running--;
    this.s.changed.wake();
  };
}

/**
 * One started item: its worker context (it is the ctx the worker gets) and its settling. A class
 * rather than closures and an async function: an import starts a million of them.
 */
class Task<T, R> implements WorkerContext {
  readonly signal: AbortSignal;
  readonly rateHeaders: (headers: HeaderBag) => void;
  // A task told by the server to wait does not hold its slot meanwhile: it loads nobody, and
  // with a halved limit a few such tasks would otherwise stall the whole run.
  private parked: ReturnType<typeof setTimeout> | undefined;
  /** Parked in its slot (refused over the in-flight cap, its retry near) rather than out of it. */
  private holding = false;
  /** Requests in flight when its request was (last) sent, itself included. */
  sentAt = 0;

  constructor(
    private readonly run: SchedulerRun<T, R>,
    private readonly item: T,
  ) {
    this.signal = run.s.signal;
    this.rateHeaders = run.s.rateHeaders;
  }

  /** An own property, not a method: workers may take it out of the context (`{ throttle }`). */
  readonly throttle = (waitMs: number): void => {
    const s = this.run.s;
    const parked = this.parked !== undefined;
    const kind = s.pace.throttle(waitMs, {
      sentAt: this.sentAt,
      active: s.inFlight - s.held - (parked ? 0 : 1),
      remaining: s.answerRemaining,
    });
    if (parked || waitMs <= 0) return;
    s.inFlight--;
    s.changed.wake();
    if (kind === 'in_flight') {
      // The slot is free until shortly before the retry, then taken back for it: a retry
      // coming back to a full set of slots would only be refused again.
      const lead = Math.min(waitMs, s.pace.slotLeadMs(s.inFlight - s.held));
      this.parked = setTimeout(() => this.retake(lead), waitMs - lead);
    } else this.parked = setTimeout(() => this.unpark(), waitMs);
  };

  private retake(lead: number): void {
    const s = this.run.s;
    s.inFlight++;
    s.held++;
    this.holding = true;
    this.parked = setTimeout(() => this.unpark(), lead);
  }

  private unpark(): void {
    if (this.parked === undefined) return;
    const s = this.run.s;
    clearTimeout(this.parked);
    this.parked = undefined;
    if (this.holding) {
      s.held--;
      this.holding = false;
    } else s.inFlight++;
    this.sentAt = s.inFlight - s.held;
  }

  start(): void {
    const s = this.run.s;
    this.sentAt = s.inFlight - s.held;
    s.worker(this.item, this).then(
      (value) => {
        s.pace.success(this.sentAt);
        this.settle({ ok: true, value });
      },
      (error: unknown) => this.settle({ ok: false, error }),
    );
  }

  private settle(result: Settled<R>): void {
    this.unpark();
    const s = this.run.s;
    s.inFlight--;
    s.settled++;
    this.run.settle(this.item, result);
  }
}

/**
 * Key affinity: key → the items holding it in input order; the first is started or ready, the
 * rest wait. An item is ready when it heads the queue of every key it has.
 */
class KeyedQueue<T> {
  /** Items whose keys are free, in input order, ready to start. */
  private readonly ready: T[] = [];
  private readonly busy = new Map<string, T[]>();
  /** Items pulled from the source that wait for a key. */
  buffered = 0;

  constructor(private readonly options: { keyOf?: KeysOf<T> }) {}

  get idle(): boolean {
    return this.busy.size === 0;
  }

  take(): T | undefined {
    return this.ready.shift();
  }

  putBack(item: T): void {
    this.ready.unshift(item);
  }

  /** Marks the item's keys busy; false when an earlier item holds one of them (the item waits). */
  admit(item: T): boolean {
    // An item's keys: most items have one (a string), so no array is made for them.
    const k = this.options.keyOf?.(item);
    let blocked = false;
    if (typeof k === 'string') blocked = this.claim(k, item);
    else if (k !== undefined) for (const key of k) blocked = this.claim(key, item) || blocked;
    if (blocked) this.buffered++;
    return !blocked;
  }

  /** The keys of a settled item are released: the next items waiting for them may become ready. */
  releaseAll(item: T): void {
    const k = this.options.keyOf?.(item);
    if (typeof k === 'string') this.release(k);
    else if (k !== undefined) for (const key of k) this.release(key);
  }

  /** Marks the key busy; true when an earlier item holds it (the item waits). */
  private claim(key: string, value: T): boolean {
    const queue = this.busy.get(key);
    if (queue === undefined) {
      this.busy.set(key, [value]);
      return false;
    }
    if (queue[queue.length - 1] === value) return false;
    queue.push(value);
    return true;
  }

  private release(key: string): void {
    const queue = this.busy.get(key);
    if (!queue) return;
    queue.shift();
    const next = queue[0];
    if (next === undefined) this.busy.delete(key);
    else if (this.headsAll(next)) {
      this.buffered--;
      this.ready.push(next);
    }
  }

  private headsAll(item: T): boolean {
    const k = this.options.keyOf?.(item);
    if (k === undefined) return true;
    if (typeof k === 'string') return this.busy.get(k)?.[0] === item;
    return k.every((key) => this.busy.get(key)?.[0] === item);
  }
}

/** The source read a batch at a time: one await per batch, not per item. */
class BatchCursor<T> {
  exhausted = false;
  private batch: readonly T[] = [];
  private next = 0;

  constructor(private readonly iterator: AsyncIterator<readonly T[]>) {}

  hasItem(): boolean {
    return this.next < this.batch.length;
  }

  take(): T {
    return this.batch[this.next++] as T;
  }

  /** Reads the next batch; the source's error when it failed (it is then exhausted too). */
  async read(): Promise<{ error: unknown } | undefined> {
    let result: IteratorResult<readonly T[]>;
    try {
      result = await this.iterator.next();
    } catch (error) {
      this.exhausted = true;
      return { error };
    }
    if (result.done) this.exhausted = true;
    else {
      this.batch = result.value;
      this.next = 0;
    }
    return undefined;
  }

  /** Ends a source not read to its end. */
  async close(): Promise<void> {
    if (!this.exhausted) await this.iterator.return?.();
  }
}

/** A source of items as a source of one-item batches. */
async function* singles<T>(source: AsyncIterable<T>): AsyncGenerator<readonly T[]> {
  for await (const item of source) yield [item];
}
