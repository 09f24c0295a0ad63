/**
 * Outages waited out (bulk runs only): once the address is known to be the service's (a row had
 * its answer; the client had any HTTP answer from the address, a retried 429 or 503 included; or
 * an earlier run's journal records answers from that address), a request that certainly did not
 * reach it (connection refused, host name not found, network down: the client's NetworkError with
 * `sent` false) does not fail its row. The gate holds the row's request; while the service is
 * unreachable one request at a time probes it (at most `probeIntervalMs` apart), the others wait;
 * the first answer ends the outage and every held request goes again. An outage longer than
 * `maxOutageMs` ends the run instead (OutageExceededError): its rows are not finished, the journal
 * keeps them for --resume. Before the address is known, such a failure fails its row once the
 * client's retries give up (a wrong address must not wait 15 minutes).
 *
 * Outage time is measured on a monotonic clock (`now`), and one step of it counts at most
 * `maxStepMs`: a laptop that sleeps and wakes continues instead of finding its outage exceeded.
 * Prints nothing: `state` is read by the progress display.
 */
import { NetworkError } from '../client/errors.js';
import type { ResumeState } from './journal.js';

export interface OutageState {
  /** Wall-clock time (epoch ms) when the service stopped answering. */
  sinceEpochMs: number;
  /** Outage time counted so far (ms, monotonic, clock jumps capped). */
  elapsedMs: number;
}

export interface OutageOptions {
  /** Longest outage waited out (ms). */
  maxOutageMs: number;
  /** Longest time between two probes while down (default 2 s; at most 5 s). */
  probeIntervalMs?: number;
  /** Most one step of the monotonic clock counts (default 30 s): a longer one is a sleeping machine. */
  maxStepMs?: number;
  /**
   * Whether the address is known to be the service's before a row's first answer: `true` (an
   * earlier run's journal records answers from it: `answeredBefore`), or a promise that resolves
   * true once the client has had any HTTP answer from it (ApiClient.serviceAnswered), counted from
   * then on. Without it an outage is waited out only after a row's answer.
   */
  serviceKnown?: boolean | Promise<boolean>;
  /** Monotonic clock (ms). */
  now?: () => number;
  /** Wall clock (epoch ms), for the "since" shown. */
  wallNow?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The outage began (state) or ended (undefined). */
  onChange?: (state: OutageState | undefined) => void;
  /** The outage outlasted the limit: called before any held request throws. */
  onExceeded?: (err: OutageExceededError) => void;
}

/** The service stayed unreachable longer than --max-outage: the run stops, its rows kept to resume. */
export class OutageExceededError extends Error {
  constructor(
    readonly sinceEpochMs: number,
    readonly maxOutageMs: number,
    cause: unknown,
  ) {
    super(`cannot reach the service for longer than --max-outage (${Math.round(maxOutageMs / 1000)} s)`, { cause });
    this.name = 'OutageExceededError';
  }
}

/**
 * A failure that says the service cannot be reached now: the last attempt found no connection
 * (refused, host name not found; a timeout or network error of a request never sent). `err.sent`
 * says whether an EARLIER attempt may have reached it (see OutageGate.call's `repeatable`).
 */
export function isUnreachable(err: unknown): err is NetworkError {
  if (!(err instanceof NetworkError)) return false;
  return err.kind === 'refused' || err.kind === 'dns' || (!err.sent && (err.kind === 'timeout' || err.kind === 'other'));
}

function timer(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Whether an earlier run's journal (being resumed) says the service at `service` answered: it was
 * made against that address and records a row answered with an HTTP status.
 */
export function answeredBefore(resume: Pick<ResumeState, 'done' | 'service'> | undefined, service: string): boolean {
  if (resume?.service !== service) return false;
  for (const row of resume.done.values()) if (row.status !== undefined) return true;
  return false;
}

export class OutageGate {
  /** The address is known to be the service's: a row had its answer (or the client or a journal says so). */
  private answered = false;
  private down: { sinceEpochMs: number; elapsedMs: number; lastTick: number; lastProbe: number } | undefined;
  private exceeded: OutageExceededError | undefined;
  /** A request is probing the service now. */
  private probing = false;
  private waiters: Array<() => void> = [];
  private readonly probeIntervalMs: number;
  private readonly maxStepMs: number;
  private readonly now: () => number;
  private readonly wallNow: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly opts: OutageOptions) {
    this.probeIntervalMs = Math.min(5000, opts.probeIntervalMs ?? 2000);
    this.maxStepMs = opts.maxStepMs ?? 30_000;
    this.now = opts.now ?? (() => performance.now());
    this.wallNow = opts.wallNow ?? Date.now;
    this.sleep = opts.sleep ?? timer;
    const known = opts.serviceKnown;
    if (known === true) this.answered = true;
    else if (known)
      known.then(
        (yes) => {
          if (yes) this.answered = true;
        },
        () => undefined,
      );
  }

  /** The outage in progress, or undefined. */
  state(): OutageState | undefined {
    return this.down ? { sinceEpochMs: this.down.sinceEpochMs, elapsedMs: this.down.elapsedMs } : undefined;
  }

  /** Set once the outage outlasted --max-outage. */
  get stoppedBy(): OutageExceededError | undefined {
    return this.exceeded;
  }

  /**
   * Runs `request` until it gets through, the outage outlasts the limit (OutageExceededError) or
   * the signal aborts (the request's own error). A request that may have reached the service in
   * an earlier attempt goes again only when `repeatable` (idempotent); otherwise its error is
   * thrown (the row is unconfirmed), though the outage it found still holds the others.
   */
  async call<T>(request: () => Promise<T>, signal: AbortSignal, repeatable = true): Promise<T> {
    for (;;) {
      if (this.exceeded) throw this.exceeded;
      const probe = this.down !== undefined;
      if (probe && !(await this.takeProbeTurn(signal))) {
        // Aborted while held (Ctrl-C during an outage): the row is not sent. Going round again
        // would find the same aborted signal at once, a loop of microtasks that never yields.
        if (signal.aborted) throw signal.reason;
        continue;
      }
      try {
        const value = await request();
        this.reachable();
        return value;
      } catch (err) {
        this.afterFailure(err, signal, repeatable);
      } finally {
        if (probe) this.endProbeTurn();
      }
    }
  }

  /** A request failed: throws what ends it; returns when it is to go again (the service unreachable). */
  private afterFailure(err: unknown, signal: AbortSignal, repeatable: boolean): void {
    if (!isUnreachable(err)) {
      // The service answered (an error status) or the failure says nothing of reachability.
      if (!(err instanceof NetworkError)) this.reachable();
      throw err;
    }
    if (!this.answered || signal.aborted) throw err;
    this.unreachable(err);
    if (this.exceeded) throw this.exceeded;
    if (err.sent && !repeatable) throw err;
  }

  /**
   * A request found no connection and its client retries it (`retry`: its RetryInfo): once the
   * address is known to be the service's, the outage begins now (said at once) even before any request gives up, and
   * while it lasts the client's backoff is shortened to the probe interval, so the service is
   * tried that often however long the backoff has grown (a run that never reached the service
   * keeps the client's own retries).
   */
  noticeUnreachable(retry?: { delayMs: number }): void {
    if (this.answered && this.down === undefined) this.unreachable(undefined);
    if (retry && this.down) retry.delayMs = Math.min(retry.delayMs, this.probeIntervalMs);
  }

  /** Waits to be the one probing request (true) or for the outage to end (false: go at once). */
  private async takeProbeTurn(signal: AbortSignal): Promise<boolean> {
    while (this.probing && this.down && !this.exceeded && !signal.aborted) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    if (!this.down || this.exceeded || signal.aborted) return false;
    this.probing = true;
    const down = this.down;
    const wait = down.lastProbe + this.probeIntervalMs - this.now();
    if (wait > 0) await this.sleep(wait, signal);
    this.tick();
    if (this.exceeded || !this.down || signal.aborted) {
      this.endProbeTurn();
      return false;
    }
    down.lastProbe = this.now();
    return true;
  }

  private endProbeTurn(): void {
    if (!this.probing) return;
    this.probing = false;
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiters.shift()?.();
  }

  private wakeAll(): void {
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) w();
  }

  /** Counts the time since the last tick (a jump counts at most maxStepMs); stops past the limit. */
  private tick(cause?: unknown): void {
    const down = this.down;
    if (!down) return;
    const t = this.now();
    down.elapsedMs += Math.min(Math.max(0, t - down.lastTick), this.maxStepMs);
    down.lastTick = t;
    if (down.elapsedMs > this.opts.maxOutageMs && !this.exceeded) {
      this.exceeded = new OutageExceededError(down.sinceEpochMs, this.opts.maxOutageMs, cause);
      this.opts.onExceeded?.(this.exceeded);
      this.wakeAll();
    }
  }

  private unreachable(cause: unknown): void {
    if (this.down === undefined) {
      const t = this.now();
      this.down = { sinceEpochMs: this.wallNow(), elapsedMs: 0, lastTick: t, lastProbe: t };
      this.opts.onChange?.(this.state());
      return;
    }
    this.tick(cause);
  }

  private reachable(): void {
    this.answered = true;
    if (this.down === undefined) return;
    this.down = undefined;
    this.opts.onChange?.(undefined);
    this.wakeAll();
  }
}
