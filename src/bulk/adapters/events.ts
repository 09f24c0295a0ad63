/**
 * The events adapter of the bulk engine (`events send --file`): NDJSON lines (bulk/sources/ndjson-source.ts)
 * → events (event-lines.ts) → one POST /v1/events each on the one run (bulk/run.ts) → accepted,
 * rejected, failed or unconfirmed (event-outcome.ts). Lines are read only as fast as requests
 * finish, so memory stays flat whatever the file size. A request in flight is never aborted (its
 * outcome must be known: events are not idempotent); a fatal error (credentials, scope) counts the
 * lines it hit as failed and stops new starts. Prints nothing.
 */

import type { CountryCode } from 'libphonenumber-js/max';
import type { CallOptions, RetryInfo } from '../../client/types.js';
import type { EventAccepted, EventInput } from '../../contract/types.js';
import { isFatalForRun } from '../classify.js';
import { dryRunRows } from '../dry-run.js';
import { OutageExceededError } from '../outage.js';
import type { RowResult } from '../outcome.js';
import type { RejectsWriter } from '../rejects.js';
import type { ReportWriter } from '../report.js';
import { type BulkProgress, createBulkRun, type RunWiring, type WorkItem, wiringOf } from '../run.js';
import type { RawLine } from '../sources/ndjson-source.js';
import { type LineOptions, loadNormalizePhone, type ParsedLine, parseEventLine } from './event-lines.js';
import { classifyFatalError, classifySendError, EVENT_OUTCOMES, type EventOutcome, type LineResult } from './event-outcome.js';

/** The one client call the events adapter needs (ApiClient satisfies it). */
export interface EventSender {
  sendEvent(event: EventInput, opts?: CallOptions): Promise<{ status: number; body: EventAccepted; uncertain: boolean }>;
}

/** Sends one event and turns any answer into its line's result. Rethrows fatal (credential) errors. */
export async function sendOne(
  client: EventSender,
  event: EventInput,
  line: number,
  callOpts: CallOptions = {},
  ids = true,
): Promise<LineResult> {
  try {
    const res = await client.sendEvent(event, callOpts);
    if (res.uncertain) {
      return {
        line,
        eventType: event.event_type,
        outcome: 'unconfirmed',
        status: res.status,
        id: ids ? res.body.id : undefined,
        errorCode: 'retried_after_uncertain',
        message: 'accepted, but an earlier attempt ended without an answer: it may have been stored twice',
      };
    }
    return { line, eventType: event.event_type, outcome: 'accepted', status: res.status, id: ids ? res.body.id : undefined };
  } catch (err) {
    // A fatal error, or an outage longer than --max-outage (the line is not finished: resumed later).
    if (isFatalForRun(err) || err instanceof OutageExceededError) throw err;
    return { line, eventType: event.event_type, ...classifySendError(err) };
  }
}

/** One counted line (blank lines are not rows) on its way through the run. */
export interface EventWork extends WorkItem {
  raw: RawLine;
  event?: EventInput;
}

/** A counted line as the engine's row: its event, or why it has none. */
function eventWork(
  raw: RawLine,
  parsed: Exclude<ParsedLine, { kind: 'blank' | 'needs_phone' }>,
  seq: number,
  keepOriginal: boolean,
): EventWork {
  const work: EventWork = { seq, line: raw.line, lines: 1, id: '', raw };
  // An oversized line is kept only in part: it cannot be written back.
  if (keepOriginal && !raw.oversize) work.original = { text: raw.text };
  if (parsed.kind === 'event') work.event = parsed.event;
  else work.problem = { code: parsed.code, message: parsed.message, field: parsed.field };
  return work;
}

/** The counted lines of the input as the engine's rows, a batch (one chunk read) at a time. */
async function* readEventBatches(
  lines: AsyncIterable<RawLine[]>,
  defaultCountry: CountryCode | undefined,
  keepOriginal: boolean,
  seen: { lastLine: number },
): AsyncGenerator<EventWork[]> {
  let seq = 0;
  const lineOptions: LineOptions = { defaultCountry };
  for await (const batch of lines) {
    const out: EventWork[] = [];
    for (const raw of batch) {
      seen.lastLine = raw.line;
      let parsed = parseEventLine(raw, lineOptions);
      if (parsed.kind === 'needs_phone') {
        lineOptions.normalizePhone = await loadNormalizePhone();
        parsed = parseEventLine(raw, lineOptions);
      }
      if (parsed.kind === 'blank' || parsed.kind === 'needs_phone') continue;
      out.push(eventWork(raw, parsed, ++seq, keepOriginal));
    }
    if (out.length > 0) yield out;
  }
}

/** The run's wiring (RunWiring: the signal stops reading new lines, outputs, journal) and what events need. */
export interface EventSendOptions extends RunWiring {
  client: EventSender;
  /** The input's lines, a batch at a time (ndjson-source.ts readLineBatches). */
  lines: AsyncIterable<RawLine[]>;
  concurrency: number;
  defaultCountry?: CountryCode;
  /** Called once per counted line, in completion order. */
  onResult?: (result: RowResult<EventOutcome>, work: EventWork) => void;
  onRetry?: (info: RetryInfo, line: number) => void;
  /**
   * Read each event's id from its answer (the report's id column); default true. Without a report
   * nothing reads it, and the answer's body is then never decoded or parsed.
   */
  ids?: boolean;
}

/** The run's end as `events send --file` words it. */
export interface EventSendSummary {
  rows: number;
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
  /** Lines whose answer could not be tied to them (exit 4; never resent). */
  unmatched: number;
  /** Lines an earlier, interrupted run had finished (--resume). */
  resumed: number;
  /** Line numbers of unconfirmed events, ascending. */
  unconfirmedLines: number[];
  unmatchedLines: number[];
  rejectedLines: number[];
  failedLines: number[];
  /** The run stopped early (signal): lines after `lastLine` were not sent. */
  interrupted: boolean;
  /** An error that concerns every event (credentials revoked, scope missing) stopped the run. */
  stoppedBy?: unknown;
  /** The run itself failed while going (an output could not be written, the input could not be read). */
  failure?: unknown;
  /** The last line read; after an interruption or a stop, the last line of the settled prefix. */
  lastLine: number;
}

/** What a dry run found: the lines' counts, and the rejected ones (input order). */
export interface EventDryRun {
  rows: number;
  valid: number;
  rejected: RowResult<string>[];
}

/** Reads and checks every line without sending (bulk/dry-run.ts; the report lists valid lines as `valid`). */
export async function dryRunEvents(opts: {
  lines: AsyncIterable<RawLine[]>;
  defaultCountry?: CountryCode;
  report?: ReportWriter<string>;
  rejects?: RejectsWriter;
}): Promise<EventDryRun> {
  const rows = readEventBatches(opts.lines, opts.defaultCountry, opts.rejects !== undefined, { lastLine: 0 });
  const r = await dryRunRows(rows, { report: opts.report, rejects: opts.rejects });
  return { rows: r.summary.rows, valid: r.summary.valid, rejected: r.rejected };
}

/** Creates the run; `progress` can be read while `run()` works. */
export function createEventSend(opts: EventSendOptions): { progress: BulkProgress<EventOutcome>; run(): Promise<EventSendSummary> } {
  const seen = { lastLine: 0 };
  // The lines settled in input order (rows finish out of order): after a stop, every line up to
  // `settledLine` is settled, so `tail -n +(settledLine + 1)` sends exactly the rest.
  const settled = { upTo: 0, line: 0, held: new Map<number, number>() };
  const ids = opts.ids !== false;
  const job = createBulkRun<EventWork, EventOutcome>({
    ...wiringOf(opts),
    outcomes: EVENT_OUTCOMES,
    rows: readEventBatches(opts.lines, opts.defaultCountry, opts.rejects !== undefined, seen),
    concurrency: opts.concurrency,
    // Events are not idempotent: a line an interrupted run may have sent is never sent again.
    possiblySent: (work) =>
      toRow(work, {
        line: work.line,
        outcome: 'unconfirmed',
        errorCode: 'unanswered_before_resume',
        message: 'sent by the interrupted run, whose answer was not recorded: it may or may not have been stored; not resent',
      }),
    send: async (work, ctx) => {
      const onRetry = (info: RetryInfo) => {
        ctx.onRetry(info);
        opts.onRetry?.(info, work.line);
      };
      // No abort signal: a request in flight is left to finish so that its outcome is known.
      const r = await sendOne(
        { sendEvent: (e, o) => ctx.reach(() => opts.client.sendEvent(e, o), false) },
        work.event as EventInput,
        work.line,
        { onRetry, onRateHeaders: ctx.onRateHeaders, patienceMs: Number.POSITIVE_INFINITY },
        ids,
      );
      return toRow(work, r);
    },
    fatalResult: (work, err) => toRow(work, { line: work.line, ...classifyFatalError(err) }),
    tally(r, work) {
      settled.held.set(work.seq, work.line);
      for (let l = settled.held.get(settled.upTo + 1); l !== undefined; l = settled.held.get(settled.upTo + 1)) {
        settled.held.delete(++settled.upTo);
        settled.line = l;
      }
      opts.onResult?.(r, work);
    },
  });
  async function run(): Promise<EventSendSummary> {
    const result = await job.run();
    const s = result.summary;
    const stopped = result.fatal !== undefined || result.failure !== undefined;
    const interrupted = !stopped && !result.inputEnded && opts.signal.aborted;
    const sorted = (l: number[]) => [...l].sort((a, b) => a - b);
    return {
      rows: s.rows,
      accepted: s.accepted,
      rejected: s.rejected,
      failed: s.failed,
      unconfirmed: s.unconfirmed,
      unmatched: s.unmatched,
      resumed: s.resumed,
      unconfirmedLines: sorted(job.progress.lines.unconfirmed),
      unmatchedLines: sorted(job.progress.lines.unmatched),
      rejectedLines: sorted(job.progress.lines.rejected),
      failedLines: sorted(job.progress.lines.failed),
      interrupted,
      stoppedBy: result.fatal,
      failure: result.failure,
      lastLine: interrupted || stopped ? settled.line : seen.lastLine,
    };
  }
  return { progress: job.progress, run };
}

function toRow(work: EventWork, r: LineResult & { errorField?: string }): RowResult<EventOutcome> {
  const row: RowResult<EventOutcome> = { seq: work.seq, line: work.line, id: r.id ?? '', outcome: r.outcome };
  if (r.status !== undefined) row.status = r.status;
  if (r.errorCode !== undefined) row.errorCode = r.errorCode;
  if (r.message !== undefined) row.message = r.message;
  if (r.errorField !== undefined) row.errorField = r.errorField;
  return row;
}
