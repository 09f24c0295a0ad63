/**
 * The one run of every bulk verb (orders import, contacts import, events send --file, the
 * --ids-file verbs): rows in from a source, through the scheduler (key affinity, AIMD), one
 * request each (the verb's adapter: `send`), out to the summary, the report (input order), the
 * rejects file and the resume journal. Rows an earlier run finished come from the journal and are
 * not sent again; a fatal error (credentials, scope) stops new starts and the run ends with it
 * set. Prints nothing: the command reads `progress` and the result.
 */

import { setMaxListeners } from 'node:events';
import { statusKind } from '../client/errors.js';
import type { HeaderBag } from '../client/response.js';
import type { RetryInfo } from '../client/types.js';
import { classifyError, isFatalForRun } from './classify.js';
import type { Journal, ResumeState } from './journal.js';
import { OutageGate, type OutageOptions, type OutageState } from './outage.js';
import { countOutcome, emptyRunSummary, OUTCOMES, type Outcome, type RowResult, type RunSummary } from './outcome.js';
import { RecentRate } from './rate-window.js';
import type { RejectsWriter } from './rejects.js';
import type { ReportWriter } from './report.js';
import { createScheduler, type Scheduler, type SchedulerStats, type WorkerContext } from './scheduler.js';
import { rejectedRow, type WorkItem } from './work-item.js';

export { type RowProblem, rejectedRow, type WorkItem } from './work-item.js';

/** What a row's request may use: the run's abort signal and a retry callback that feeds AIMD. */
export interface SendContext {
  signal: AbortSignal;
  onRetry(info: RetryInfo): void;
  /** Hand to the client's CallOptions: answers' rate-limit headers set the run's pace. */
  onRateHeaders(headers: HeaderBag): void;
  /**
   * Runs the row's request through the outage gate (bulk/outage.ts): once the run has had
   * answers, a request that cannot reach the service waits for it to come back. `repeatable`
   * (default true): the request may go again after an attempt that may have been applied.
   */
  reach<T>(request: () => Promise<T>, repeatable?: boolean): Promise<T>;
  /**
   * An attempt of this row's request that may have reached the service without an answer came
   * before the one `reach` returns (an outage waited out: the service killed while it wrote): a
   * 200 is then `unconfirmed`, not `updated`, as after the client's own retries.
   */
  mayHaveApplied(): boolean;
}

/** The physical lines of the rows with each outcome a user must look at (in finishing order; sort to print). */
export interface OutcomeLines {
  rejected: number[];
  failed: number[];
  unconfirmed: number[];
  unmatched: number[];
}

export interface BulkProgress<O extends string = Outcome> {
  summary: RunSummary<O>;
  /** The line where each rejected, failed, unconfirmed or unmatched row starts (resumed rows included). */
  lines: OutcomeLines;
  /** Requests answered 429 so far (each retry counts). */
  rateLimited: number;
  /** Requests sent, retries included. */
  requests: number;
  scheduler(): SchedulerStats | undefined;
  /** Time since the run started (to its end once it ended), in ms; 0 before it starts. */
  elapsedMs(): number;
  /** This run's recent rate in rows per second (rate-window.ts: the ETA's rate); undefined before it is known. */
  sentRate(): number | undefined;
  /** Rows read from the input so far (resumed and rejected ones included), and whether that is all of them. */
  rowsRead: number;
  /** The line where the last row read starts (with rowsRead: the rows per line of the input so far). */
  lastLine: number;
  inputDone: boolean;
  /** The outage being waited out, if any. */
  outage(): OutageState | undefined;
}

/** Rows finished by this run (resumed ones excluded) per second of its time, one decimal. */
export function rowsPerSecond(p: BulkProgress): number {
  const ms = p.elapsedMs();
  return ms > 0 ? Math.round(((p.summary.rows - p.summary.resumed) * 10000) / ms) / 10 : 0;
}

export interface BulkRunOptions<W extends WorkItem, O extends string = Outcome> {
  /** The verb's outcome words (default the upsert imports'): the summary counts each. */
  outcomes?: readonly O[];
  /** The rows, a batch at a time. */
  rows: AsyncIterable<W[]>;
  /**
   * Sends one row and returns its result. Throws only for what is not the row's own outcome:
   * an abort, or a fatal error (bulk/classify.ts) that stops the run.
   */
  send(work: W, ctx: SendContext): Promise<RowResult<O>>;
  /**
   * The outcome of a row whose request met the fatal error (events: `failed`, certainly not
   * processed). Without it such a row is not finished (it is sent again by --resume).
   */
  fatalResult?: (work: W, err: unknown) => RowResult<O>;
  /**
   * A verb that must never send a row twice (events: not idempotent). Each row's start is on disk
   * before it is sent (bulk/journal.ts markStartedExact), and on --resume a row the earlier run
   * may have sent without recording its answer is not sent again: it finishes with this result
   * (`unconfirmed`). Without it such a row is sent again (an upsert may be repeated).
   */
  possiblySent?: (work: W) => RowResult<O>;
  /**
   * Start marks exactly as for possiblySent, without its rule: a resumed run knows which rows the
   * earlier one may have sent (the --ids-file verbs: a DELETE answered 404 then was our own).
   */
  exactMarks?: boolean;
  /** Rows sharing a key (one, or several: a contact's email and phone) are never in flight together; file order wins. */
  keyOf?: (work: W) => string | readonly string[] | undefined;
  /** Called for every finished row, resumed ones included (a command's own counts beside the outcomes). */
  tally?: (result: RowResult<O>, work: W) => void;
  concurrency: number;
  signal: AbortSignal;
  /** Count `lines` in the summary (rows that span several lines). */
  countLines?: boolean;
  report?: ReportWriter<string>;
  /** The rejects file (--rejects): every finished row goes past it. */
  rejects?: RejectsWriter;
  journal?: Journal;
  resume?: ResumeState;
  /** Outages waited out (--max-outage; default 15 min). */
  outage?: Partial<Omit<OutageOptions, 'onExceeded'>>;
  /**
   * Masks secrets in the words of a row's outcome (the run's redactor): a service may echo a
   * request's Authorization header in its error message, which then goes to the journal, the
   * report, the rejects file and every line a command prints about the row.
   */
  redact?: (text: string) => string;
}

/** What every adapter hands the run unchanged: the stop signal, the outputs and the journal. */
export type RunWiring = Pick<BulkRunOptions<WorkItem>, 'outage' | 'signal' | 'report' | 'rejects' | 'journal' | 'resume' | 'redact'>;

/** The run's wiring out of an adapter's options (the fields of RunWiring, nothing else). */
export function wiringOf(opts: RunWiring): RunWiring {
  const { outage, signal, report, rejects, journal, resume, redact } = opts;
  return { outage, signal, report, rejects, journal, resume, redact };
}

/** The longest outage a bulk run waits out by default. */
export const DEFAULT_MAX_OUTAGE_MS = 15 * 60_000;

export interface BulkRunResult<O extends string = Outcome> {
  summary: RunSummary<O>;
  interrupted: boolean;
  /** Every row of the source was read. */
  inputEnded: boolean;
  /** An error that stops every row (authentication, scope): the run stopped early. */
  fatal?: unknown;
  /**
   * The run itself failed while going (the report or journal could not be written, the input
   * could not be read): it stopped sending; the rows in flight settled and are counted.
   */
  failure?: unknown;
  stats: SchedulerStats;
  rateLimited: number;
  requests: number;
  /** The first rejected, failed or unmatched rows (input order), for a short listing. */
  problems: RowResult<O>[];
  failedMaybeApplied: number; // `failed` rows whose request may have reached the service
}

/**
 * The next batch, or `undefined` once the signal is aborted: the read left pending ends when the
 * caller destroys the input; its outcome no longer matters.
 */
async function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T> | undefined> {
  if (signal.aborted) return undefined;
  const pending = iterator.next();
  let onAbort = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const next = await Promise.race([pending, aborted]);
    if (next === undefined) pending.catch(() => {});
    return next;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Rejected, failed and unmatched rows kept for the end-of-run message (the report has all of them). */
const MAX_PROBLEMS_KEPT = 10;

/** Outcomes whose lines a user must look at (BulkProgress.lines). */
function isListed(o: string): o is keyof OutcomeLines {
  return o === 'rejected' || o === 'failed' || o === 'unconfirmed' || o === 'unmatched';
}

/** Outcomes kept for the end-of-run message (BulkRunResult.problems). */
function isProblem(o: string): boolean {
  return o === 'rejected' || o === 'failed' || o === 'unmatched';
}

/**
 * One run: the rows read, sent through the scheduler, and finished into the summary and the
 * outputs. Its handlers are made once per run, never per row.
 */
class BulkRun<W extends WorkItem, O extends string> {
  readonly summary: RunSummary<O>;
  readonly progress: BulkProgress<O>;
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  private readonly gate: OutageGate;
  private readonly scheduler: Scheduler<W, RowResult<O>>;
  private readonly recentRate = new RecentRate();
  private readonly problems: RowResult<O>[] = [];
  private fatal: unknown;
  private lines = 0;
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private inputEnded = false;
  private outageStop: unknown;
  // A start mark that could not be written (possiblySent verbs): the run stops, nothing more is sent.
  private markFailure: unknown;
  private failedMaybeApplied = 0;

  constructor(private readonly opts: BulkRunOptions<W, O>) {
    const summary = emptyRunSummary<O>(opts.outcomes ?? (OUTCOMES as unknown as readonly O[]));
    this.summary = summary;
    this.signal = AbortSignal.any([opts.signal, this.stop.signal]);
    // Every request in flight listens to it (the default limit of 10 would warn at concurrency > 10).
    setMaxListeners(0, this.signal);
    this.gate = new OutageGate({
      maxOutageMs: DEFAULT_MAX_OUTAGE_MS,
      ...opts.outage,
      onExceeded: (err) => {
        this.outageStop ??= err;
        this.stop.abort();
      },
    });
    const now = () => this.endedAt ?? performance.now();
    this.progress = {
      summary,
      lines: { rejected: [], failed: [], unconfirmed: [], unmatched: [] },
      rateLimited: 0,
      requests: 0,
      scheduler: () => this.scheduler.stats(),
      elapsedMs: () => (this.startedAt === undefined ? 0 : now() - this.startedAt),
      sentRate: () => this.recentRate.at(summary.rows - summary.resumed, now(), this.scheduler.stats().windowMs),
      rowsRead: 0,
      lastLine: 0,
      inputDone: false,
      outage: () => this.gate.state(),
    };
    if (opts.countLines) summary.lines = 0;
    const exact = opts.possiblySent || opts.exactMarks;
    this.scheduler = createScheduler<W, RowResult<O>>((work, ctx) => this.send(work, ctx), {
      concurrency: opts.concurrency,
      keyOf: opts.keyOf,
      signal: this.signal,
      beforeStart: exact ? undefined : (w) => opts.journal?.markStarted(w.seq),
    });
  }

  /** A row's end: counted, listed, and written to the journal, the report and the rejects file. */
  private finish(r: RowResult<O>, work: W, fromJournal: boolean): void {
    const { opts, summary } = this;
    if (opts.redact !== undefined) {
      if (r.message !== undefined) r.message = opts.redact(r.message);
      if (r.errorField !== undefined) r.errorField = opts.redact(r.errorField);
    }
    countOutcome(summary, r.outcome);
    const o: string = r.outcome;
    if (isListed(o)) this.progress.lines[o].push(r.line);
    opts.tally?.(r, work);
    if (isProblem(o) && this.problems.length < MAX_PROBLEMS_KEPT) this.problems.push(r);
    if (o === 'failed' && r.maybeApplied) this.failedMaybeApplied++;
    this.lines += work.lines;
    if (summary.lines !== undefined) summary.lines = this.lines;
    if (fromJournal) summary.resumed++;
    else this.recentRate.first(performance.now());
    // The journal first: it is what --resume trusts; a report that cannot be written must not
    // keep a finished row out of it.
    try {
      if (!fromJournal) opts.journal?.markDone(r);
    } finally {
      opts.report?.add(r);
      opts.rejects?.add(r, work.original);
    }
  }

  /** What a row's request may use (SendContext): its retries feed the run's counts and pace. */
  private sendContext(ctx: WorkerContext): SendContext {
    const { progress, gate } = this;
    let maybeApplied = false;
    return {
      signal: ctx.signal,
      onRetry(info) {
        progress.requests++;
        const rateLimited = info.status !== undefined && statusKind(info.status) === 'rate_limited';
        if (rateLimited) progress.rateLimited++;
        if (info.error === 'refused' || info.error === 'dns') gate.noticeUnreachable(info);
        // Only a rate limit (429) slows the whole run down. A 503 is one request the service
        // did not process: that request waits for its Retry-After in its own slot; throttling
        // every slot on it collapsed a run with 10% 503s to about one row per second.
        if (rateLimited) ctx.throttle(info.delayMs);
      },
      onRateHeaders: ctx.rateHeaders,
      reach: (request, repeatable) => {
        // The gate sends the request afresh after an outage: the client's own note that an
        // earlier attempt may have been applied would be lost with the attempt that failed.
        const noted = () =>
          request().catch((err: unknown) => {
            if (classifyError(err).maybeApplied) maybeApplied = true;
            throw err;
          });
        return gate.call(noted, ctx.signal, repeatable ?? true);
      },
      mayHaveApplied: () => maybeApplied,
    };
  }

  /** The scheduler's send: the row's start mark first when the verb wants it exact, then its request. */
  private send(work: W, ctx: WorkerContext): Promise<RowResult<O>> {
    const { opts } = this;
    const sendCtx = this.sendContext(ctx);
    const exact = (opts.possiblySent || opts.exactMarks) && opts.journal;
    let sent: Promise<RowResult<O>>;
    if (exact) {
      let marked: void | Promise<void>;
      try {
        marked = exact.markStartedExact(work.seq);
      } catch (err) {
        marked = Promise.reject(err);
      }
      sent = marked ? marked.then(() => opts.send(work, sendCtx), this.markFailed) : opts.send(work, sendCtx);
    } else sent = opts.send(work, sendCtx);
    // then() rather than an async function: one frame less per row.
    return sent.then(this.answered, this.threw);
  }

  /** A start mark that could not be written stops the run (one handler for every row). */
  private readonly markFailed = (err: unknown): never => {
    this.markFailure ??= err;
    this.stop.abort();
    throw err;
  };

  private readonly answered = (result: RowResult<O>): RowResult<O> => {
    this.progress.requests++;
    if (result.status !== undefined && statusKind(result.status) === 'rate_limited') this.progress.rateLimited++;
    return result;
  };

  private readonly threw = (err: unknown): never => {
    this.progress.requests++;
    if (!this.signal.aborted && isFatalForRun(err)) {
      this.fatal ??= err;
      this.stop.abort();
    }
    throw err;
  };

  /**
   * Finishes a row that is not sent: one an earlier run finished (unless it is to be sent again),
   * one already rejected, or one this verb must not send twice. False: the row is to be sent.
   */
  private settledWithoutSending(work: W): boolean {
    const { opts } = this;
    const previous = opts.resume?.done.get(work.seq);
    // An earlier run's row is sent again when it failed, or is `unmatched` and the verb may resend (not events).
    if (previous && !(previous.outcome === 'failed' || (previous.outcome === 'unmatched' && !opts.possiblySent))) {
      opts.resume?.done.delete(work.seq);
      this.finish(previous as RowResult<O>, work, true);
      return true;
    }
    if (work.problem) {
      this.finish(rejectedRow(work, work.problem) as RowResult<O>, work, false);
      return true;
    }
    if (!previous && opts.possiblySent && opts.resume && work.seq <= opts.resume.maybeSentUpTo) {
      this.finish(opts.possiblySent(work), work, false);
      return true;
    }
    return false;
  }

  /** The rows to send, a batch at a time; the others are finished on the way. */
  private async *sendable(): AsyncGenerator<W[]> {
    const rows = this.opts.rows[Symbol.asyncIterator]();
    const progress = this.progress;
    for (;;) {
      // A source waiting for input (a terminal, a slow pipe) must not keep Ctrl-C waiting.
      const next = await nextOrAbort(rows, this.signal);
      if (next === undefined) return;
      if (next.done) {
        this.inputEnded = true;
        progress.inputDone = true;
        return;
      }
      progress.rowsRead += next.value.length;
      progress.lastLine = next.value[next.value.length - 1]?.line ?? progress.lastLine;
      const out: W[] = [];
      for (const work of next.value) {
        if (!this.settledWithoutSending(work)) out.push(work);
      }
      if (out.length > 0) yield out;
    }
  }

  async run(): Promise<BulkRunResult<O>> {
    const { opts } = this;
    let failure: unknown;
    this.startedAt = performance.now();
    await this.scheduler
      .runBatches(this.sendable(), (work, settled) => {
        if (settled.ok) this.finish(settled.value, work, false);
        else if (opts.fatalResult && isFatalForRun(settled.error)) this.finish(opts.fatalResult(work, settled.error), work, false);
        // Otherwise a rejected promise means an abort (Ctrl-C or a fatal error): the row is not finished.
      })
      .catch((err: unknown) => {
        failure = err;
      });
    await opts.journal?.flush().catch((err: unknown) => {
      failure ??= err;
    });
    this.endedAt = performance.now();
    // An outage longer than --max-outage stopped the run: its rows in flight are not finished.
    if (this.outageStop !== undefined) failure ??= this.outageStop;
    if (this.markFailure !== undefined) failure ??= this.markFailure;
    const stats = this.scheduler.stats();
    this.problems.sort((a, b) => a.seq - b.seq);
    return {
      summary: this.summary,
      interrupted: opts.signal.aborted,
      inputEnded: this.inputEnded,
      fatal: this.fatal,
      failure,
      stats,
      rateLimited: this.progress.rateLimited,
      requests: this.progress.requests,
      problems: this.problems,
      failedMaybeApplied: this.failedMaybeApplied,
    };
  }
}

/** Creates a run; `progress` can be read while `run()` works. */
export function createBulkRun<W extends WorkItem, O extends string = Outcome>(
  opts: BulkRunOptions<W, O>,
): { progress: BulkProgress<O>; run(): Promise<BulkRunResult<O>> } {
  const run = new BulkRun<W, O>(opts);
  return { progress: run.progress, run: () => run.run() };
}
