/**
 * Sends every event of an NDJSON stream with bounded concurrency. Lines are read only as fast as
 * requests finish, so memory stays flat whatever the file size. Prints nothing: each line's
 * result goes to `onResult`, the totals come back as a BulkSummary.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import type { CallOptions, RetryInfo } from '../client/types.js';
import type { EventAccepted, EventInput } from '../contract/types.js';
import { type ParsedLine, parseEventLine, type RawLine } from './ndjson.js';
import { classifySendError, isFatalSendError, type LineResult } from './outcome.js';

/** The one client call the bulk sender needs (ApiClient satisfies it). */
export interface EventSender {
  sendEvent(event: EventInput, opts?: CallOptions): Promise<{ status: number; body: EventAccepted; uncertain: boolean }>;
}

export interface BulkOptions {
  client: EventSender;
  lines: AsyncIterable<RawLine>;
  concurrency: number;
  defaultCountry?: CountryCode;
  /** Stops reading new lines; the requests in flight finish and are counted. */
  signal?: AbortSignal;
  /** Called once per counted line (blank lines are not counted), in completion order. */
  onResult?: (result: LineResult, raw: RawLine) => void;
  onRetry?: (info: RetryInfo, line: number) => void;
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
  /** The run stopped early (signal): lines after `lastLine` were not read. */
  interrupted: boolean;
  /** The last line number read from the input. */
  lastLine: number;
}

/** Sends one event and turns any answer into its line's result. Rethrows fatal (credential) errors. */
export async function sendOne(client: EventSender, event: EventInput, line: number, callOpts: CallOptions = {}): Promise<LineResult> {
  try {
    const res = await client.sendEvent(event, callOpts);
    if (res.uncertain) {
      return {
        line,
        eventType: event.event_type,
        outcome: 'unconfirmed',
        status: res.status,
        id: res.body.id,
        errorCode: 'retried_after_uncertain',
        message: 'accepted, but an earlier attempt ended without an answer: it may have been stored twice',
      };
    }
    return { line, eventType: event.event_type, outcome: 'accepted', status: res.status, id: res.body.id };
  } catch (err) {
    if (isFatalSendError(err)) throw err;
    return { line, eventType: event.event_type, ...classifySendError(err) };
  }
}

function resultOfInvalid(parsed: Extract<ParsedLine, { kind: 'invalid' }>, line: number): LineResult {
  return { line, eventType: parsed.eventType, outcome: 'rejected', errorCode: parsed.code, message: parsed.message };
}

/**
 * Runs the NDJSON stream through `concurrency` workers that share one line iterator. A fatal
 * error stops every worker from taking new lines and is rethrown once the others have settled.
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
  const iterator = opts.lines[Symbol.asyncIterator]();
  let fatal: { error: unknown } | undefined;
  let done = false;
  // One reader at a time: async generators queue next() calls anyway, this keeps the order plain.
  let reading: Promise<unknown> = Promise.resolve();

  const nextLine = async (): Promise<RawLine | undefined> => {
    const turn = reading.then(async () => {
      if (done || fatal || opts.signal?.aborted) {
        if (opts.signal?.aborted && !done) summary.interrupted = true;
        return undefined;
      }
      const r = await iterator.next();
      if (r.done) {
        done = true;
        return undefined;
      }
      summary.lastLine = r.value.line;
      return r.value;
    });
    reading = turn.catch(() => undefined);
    return turn;
  };

  const record = (result: LineResult, raw: RawLine) => {
    summary.rows++;
    summary[result.outcome]++;
    if (result.outcome === 'unconfirmed') summary.unconfirmedLines.push(result.line);
    else if (result.outcome === 'rejected') summary.rejectedLines.push(result.line);
    else if (result.outcome === 'failed') summary.failedLines.push(result.line);
    opts.onResult?.(result, raw);
  };

  const worker = async () => {
    for (;;) {
      const raw = await nextLine();
      if (!raw) return;
      const parsed = parseEventLine(raw, { defaultCountry: opts.defaultCountry });
      if (parsed.kind === 'blank') continue;
      if (parsed.kind === 'invalid') {
        record(resultOfInvalid(parsed, raw.line), raw);
        continue;
      }
      const onRetry = opts.onRetry ? (info: RetryInfo) => opts.onRetry?.(info, raw.line) : undefined;
      try {
        // No abort signal: a request in flight is left to finish so that its outcome is known.
        record(await sendOne(opts.client, parsed.event, raw.line, { onRetry }), raw);
      } catch (err) {
        fatal ??= { error: err };
        return;
      }
    }
  };

  const workers = Array.from({ length: Math.max(1, opts.concurrency) }, () => worker());
  await Promise.all(workers);
  if (!done) await iterator.return?.(undefined);
  if (fatal) throw fatal.error;
  summary.unconfirmedLines.sort((a, b) => a - b);
  summary.rejectedLines.sort((a, b) => a - b);
  summary.failedLines.sort((a, b) => a - b);
  return summary;
}
