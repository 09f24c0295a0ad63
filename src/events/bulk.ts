/**
 * Sends every event of an NDJSON stream with bounded concurrency. Lines are read only as fast as
 * requests finish, so memory stays flat whatever the file size. Prints nothing: each line's
 * result goes to `onResult`, the totals come back as a BulkSummary.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import { isFatalForRun } from '../bulk/classify.js';
import { createScheduler } from '../bulk/scheduler.js';
import type { CallOptions, RetryInfo } from '../client/types.js';
import type { EventAccepted, EventInput } from '../contract/types.js';
import { type LineOptions, loadNormalizePhone, type ParsedLine, parseEventLine, type RawLine } from './ndjson.js';
import { classifyFatalError, classifySendError, type LineResult } from './outcome.js';

/** The one client call the bulk sender needs (ApiClient satisfies it). */
export interface EventSender {
  sendEvent(event: EventInput, opts?: CallOptions): Promise<{ status: number; body: EventAccepted; uncertain: boolean }>;
}

export interface BulkOptions {
  client: EventSender;
  /** The input's lines, a batch at a time (ndjson.ts readLineBatches). */
  lines: AsyncIterable<RawLine[]>;
  concurrency: number;
  defaultCountry?: CountryCode;
  /** Stops reading new lines; the requests in flight finish and are counted. */
  signal?: AbortSignal;
  /** Called once per counted line (blank lines are not counted), in completion order; `seq` numbers counted lines from 1. */
  onResult?: (result: LineResult, raw: RawLine, seq: number) => void;
  onRetry?: (info: RetryInfo, line: number) => void;
  /**
   * Read each event's id from its answer (LineResult.id, the report's id column); default true.
   * Without a report nothing reads it, and the answer's body is then never decoded or parsed.
   */
  ids?: boolean;
}

export interface BulkSummary {
  rows: number;
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
  /** Line numbers of unconfirmed events, ascending. */
  unconfirmedLines: number[];
  rejectedLines: number[];
  failedLines: number[];
  /** The run stopped early (signal): lines after `lastLine` were not sent. */
  interrupted: boolean;
  /**
   * The run stopped early because of an error that concerns every event (credentials revoked,
   * scope missing): the lines it hit are counted `failed` (certainly not processed), lines after
   * `lastLine` were not sent. The caller reports the summary, then this error.
   */
  stoppedBy?: unknown;
  /**
   * The run itself failed while going (the report or --unconfirmed-out could not be written, the
   * input could not be read): it stopped sending; the lines in flight settled and are counted;
   * lines after `lastLine` were not sent.
   */
  failure?: unknown;
  /** Every line of the input was read (internal: an interruption after that has nothing left to say). */
  inputEnded?: boolean;
  /** The last line read; after an interruption or a stop, the last line settled (every earlier one settled too). */
  lastLine: number;
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
    if (isFatalForRun(err)) throw err;
    return { line, eventType: event.event_type, ...classifySendError(err) };
  }
}

function resultOfInvalid(parsed: Extract<ParsedLine, { kind: 'invalid' }>, line: number): LineResult {
  return { line, eventType: parsed.eventType, outcome: 'rejected', errorCode: parsed.code, message: parsed.message };
}

/** One counted input line on its way through the scheduler. */
interface Item {
  seq: number;
  raw: RawLine;
  parsed: Exclude<ParsedLine, { kind: 'blank' } | { kind: 'needs_phone' }>;
}

/**
 * The next line, or `undefined` once the signal is aborted: a source that waits for input (a
 * terminal, or a pipe from a slow producer) must not keep a Ctrl-C waiting for its next line.
 */
async function nextOrAbort<T>(iterator: AsyncIterator<T>, signal: AbortSignal | undefined): Promise<IteratorResult<T> | undefined> {
  if (!signal) return iterator.next();
  if (signal.aborted) return undefined;
  const pending = iterator.next();
  let onAbort = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const next = await Promise.race([pending, aborted]);
    // The read left pending ends when the caller destroys the input; its outcome no longer matters.
    if (next === undefined) pending.catch(() => {});
    return next;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The counted lines, a batch (the lines of one chunk read) at a time. */
async function* items(
  lines: AsyncIterable<RawLine[]>,
  defaultCountry: CountryCode | undefined,
  summary: BulkSummary,
  signal: AbortSignal | undefined,
): AsyncGenerator<Item[]> {
  let seq = 0;
  const lineOptions: LineOptions = { defaultCountry };
  const iterator = lines[Symbol.asyncIterator]();
  for (;;) {
    const next = await nextOrAbort(iterator, signal);
    if (next === undefined) return;
    if (next.done) {
      summary.inputEnded = true;
      return;
    }
    const out: Item[] = [];
    for (const raw of next.value) {
      summary.lastLine = raw.line;
      let parsed = parseEventLine(raw, lineOptions);
      if (parsed.kind === 'needs_phone') {
        lineOptions.normalizePhone = await loadNormalizePhone();
        parsed = parseEventLine(raw, lineOptions);
      }
      if (parsed.kind === 'blank' || parsed.kind === 'needs_phone') continue;
      seq++;
      out.push({ seq, raw, parsed });
    }
    if (out.length > 0) yield out;
  }
}

/**
 * Runs the NDJSON stream through the importer's scheduler (bounded concurrency, slowing down on
 * 429/503). A fatal error (credentials, scope) stops new starts; once the requests in flight
 * settled, the summary comes back with `stoppedBy` set, so the caller can say what was sent. On abort, no new line starts and the requests in flight finish, so their outcome is known.
 */
export async function sendEventLines(opts: BulkOptions): Promise<BulkSummary> {
  const summary: BulkSummary = {
    rows: 0,
    accepted: 0,
    rejected: 0,
    failed: 0,
    unconfirmed: 0,
    unconfirmedLines: [],
    rejectedLines: [],
    failedLines: [],
    interrupted: false,
    lastLine: 0,
  };
  // Lines start in input order, so after an abort the settled lines are exactly those up to here.
  let settledUpTo = 0;
  const drained = items(opts.lines, opts.defaultCountry, summary, opts.signal);

  const scheduler = createScheduler<Item, LineResult>(
    async (item, { throttle, rateHeaders }) => {
      const { parsed, raw } = item;
      if (parsed.kind === 'invalid') return resultOfInvalid(parsed, raw.line);
      const onRetry = (info: RetryInfo) => {
        // Only a rate limit says "slow down"; a 503 is an outage of one request, retried on its own.
        if (info.status === 429) throttle(info.delayMs);
        opts.onRetry?.(info, raw.line);
      };
      // No abort signal: a request in flight is left to finish so that its outcome is known.
      return sendOne(opts.client, parsed.event, raw.line, { onRetry, onRateHeaders: rateHeaders }, opts.ids !== false);
    },
    { concurrency: opts.concurrency, signal: opts.signal },
  );

  const count = (result: LineResult, raw: RawLine, seq: number) => {
    settledUpTo = Math.max(settledUpTo, result.line);
    summary.rows++;
    summary[result.outcome]++;
    if (result.outcome === 'unconfirmed') summary.unconfirmedLines.push(result.line);
    else if (result.outcome === 'rejected') summary.rejectedLines.push(result.line);
    else if (result.outcome === 'failed') summary.failedLines.push(result.line);
    opts.onResult?.(result, raw, seq);
  };
  try {
    await scheduler.runBatches(drained, (item, settled) => {
      if (settled.ok) return count(settled.value, item.raw, item.seq);
      if (!isFatalForRun(settled.error)) throw settled.error;
      // Refused before processing (401/403, credentials): this line failed; so will every later
      // one, so stop here. The lines in flight settle and are counted, so the summary says
      // exactly which lines were sent.
      const eventType = item.parsed.kind === 'event' ? item.parsed.event.event_type : undefined;
      count({ line: item.raw.line, eventType, ...classifyFatalError(settled.error) }, item.raw, item.seq);
      throw settled.error;
    });
  } catch (err) {
    if (isFatalForRun(err)) summary.stoppedBy = err;
    else summary.failure = err;
  }
  const stopped = summary.stoppedBy !== undefined || summary.failure !== undefined;
  summary.interrupted = !stopped && !summary.inputEnded && opts.signal?.aborted === true;
  if (summary.interrupted || stopped) summary.lastLine = settledUpTo;
  summary.unconfirmedLines.sort((a, b) => a - b);
  summary.rejectedLines.sort((a, b) => a - b);
  summary.failedLines.sort((a, b) => a - b);
  return summary;
}
