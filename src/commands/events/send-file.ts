/**
 * svc events send --file: every line of an NDJSON file (or stdin) through the events adapter of
 * the bulk engine (bulk/adapters/events.ts), with a report, a rejects file, the unconfirmed lines
 * collected, and the exact commands to send the rest.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import {
  type BulkProgress,
  type EventSendSummary as BulkSummary,
  checkJobPaths,
  checkRejectsOptions,
  createEventSend,
  describeInvalid,
  dryRunEvents,
  dryRunJob,
  type EventOutcome,
  fileFingerprint,
  findInvalidUtf8,
  type InputEncoding,
  type JobEnv,
  type JobOutputs,
  type JobResult,
  journalOf,
  type LineResult,
  LineWriter,
  openReport,
  outageOptions,
  parseEncoding,
  RejectsWriter,
  type ReportWriter,
  type RunEnd,
  readLineBatches,
  runBulkJob,
  type StartedRun,
  sizeYoungGeneration,
} from '../../bulk/index.js';
import { NetworkError } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { Context } from '../../context.js';
import { EXIT, Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { InputError } from '../../importer/errors.js';
import { shellQuote } from '../../io/shell-quote.js';
import { openInput } from '../../util/open-input.js';
import { runFailed } from '../bulk-finish.js';
import { rejectsNote } from '../bulk-rejects.js';
import { jobEnv } from '../job-env.js';
import { showImportProgress } from '../progress.js';
import { printEventsDryRun } from './send-file-dry-run.js';
import { type EventsResume, eventsCommand, printSummary, restHint } from './send-file-summary.js';
import { DEFAULT_CONCURRENCY, kebab, logRetry, type SendOptions } from './shared.js';

/** The report's second column: the accepted event's id (`ev_…`), empty for other outcomes. */
const REPORT_ID_COLUMN = 'id';

/** How many problem lines the human output lists on stderr before pointing at --report. */
const MAX_LISTED = 20;

/** The NDJSON input: stdin, or a file (a FIFO read so that a signal is honoured while it waits). */
async function openEventsInput(path: string, ctx: Context): Promise<Readable> {
  if (path === '-') {
    if (ctx.io.stdinIsTTY) ctx.out.info('reading NDJSON events from the terminal, one per line; end with Ctrl-D');
    return ctx.io.stdin;
  }
  try {
    return await openInput(path, { signal: ctx.signal, highWaterMark: 256 * 1024 });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new UsageError(`cannot read --file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** UTF-16LE or UTF-16BE when the file starts with that byte-order mark. */
function utf16Mark(path: string): 'UTF-16LE' | 'UTF-16BE' | undefined {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    if (readSync(fd, head, 0, 2, 0) < 2) return undefined;
    if (head[0] === 0xff && head[1] === 0xfe) return 'UTF-16LE';
    if (head[0] === 0xfe && head[1] === 0xff) return 'UTF-16BE';
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** --file takes none of a single event's options; the file exists and is not a folder. */
function checkFileOptions(opts: SendOptions): string {
  const conflicting = (['type', 'email', 'phone', 'contactId', 'prop', 'properties', 'occurredAt', 'eventId'] as const).filter(
    (k) => opts[k] !== undefined,
  );
  if (conflicting.length > 0) {
    throw new UsageError(
      `--file cannot be combined with ${conflicting.map((k) => `--${kebab(k)}`).join(', ')}`,
      'each NDJSON line carries its own event_type, contact and properties',
    );
  }
  const file = opts.file as string;
  if (file !== '-') {
    if (!existsSync(file)) throw new UsageError(`no such file: --file ${file}`);
    if (statSync(file).isDirectory()) throw new UsageError(`--file ${file} is a folder, not an NDJSON file`);
  }
  return file;
}

/** Before anything is sent: a regular file read as UTF-8 must be UTF-8 (bytes that are not would become U+FFFD in events). */
async function checkUtf8(file: string, encoding: InputEncoding | undefined, signal: AbortSignal): Promise<void> {
  if (file === '-' || (encoding ?? 'utf-8') !== 'utf-8' || !statSync(file).isFile()) return;
  const bad = await findInvalidUtf8(file, signal);
  if (bad) throw new InputError(`--file ${file}: ${describeInvalid(bad)}`);
  // findInvalidUtf8 leaves a UTF-16 file (its byte-order mark) to the reader; NDJSON is UTF-8.
  const bom = utf16Mark(file);
  if (bom)
    throw new InputError(
      `--file ${file} is ${bom} (it starts with its byte-order mark): NDJSON is UTF-8`,
      `give --encoding ${bom.toLowerCase()}, or save the file as UTF-8`,
    );
}

export async function sendFile(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<number> {
  const file = checkFileOptions(opts);
  checkRejectsOptions(opts);
  const env = jobEnv(ctx);
  const { journalPath } = journalOf(file, file === '-', '--file', opts, env, 'events');
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  // Nothing is opened before every output is known not to be the input or another output.
  checkJobPaths(
    env,
    file === '-' ? undefined : { what: '--file', path: file },
    [
      ['--report', opts.report],
      ['--unconfirmed-out', opts.unconfirmedOut],
      ['--rejects', opts.rejects],
    ],
    { path: journalPath, given: opts.journal },
  );
  await checkUtf8(file, encoding, ctx.signal);
  const openReportFile = () => (opts.report !== undefined ? openReport<string>(opts.report, { idColumn: REPORT_ID_COLUMN }) : undefined);
  // The input's line end is known once its first line is read: the rejects file learns it then.
  const read: { bytes: number; lineEnd?: '\n' | '\r\n' } = { bytes: 0 };
  if (opts.dryRun) return dryRunEventFile(ctx, opts, file, { encoding, country, read, openReport: openReportFile });

  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  // Credentials first: a run that cannot send leaves no journal behind.
  const listing = { listed: 0, unlisted: 0 };
  const job = await runBulkJob({
    env,
    file,
    journalPath,
    resume: opts.resume === true,
    openReport: openReportFile,
    openRejects: () => openEventRejects(opts, encoding, read),
    identity: () => ({
      kind: 'events',
      file: fileFingerprint(file),
      options: { default_country: country ?? null, ...(encoding !== undefined ? { encoding } : {}) },
    }),
    start: (outputs) => startEventSend({ ctx, env, client, opts, file, encoding, country, read, listing }, outputs),
    watch: (p) =>
      showImportProgress(
        ctx,
        Object.assign(p, { bytesRead: () => read.bytes }),
        file !== '-' && statSync(file).isFile() ? statSync(file).size : undefined,
        () =>
          `${p.summary.accepted} accepted, ${p.summary.rejected} rejected, ${p.summary.failed} failed, ${p.summary.unconfirmed} unconfirmed`,
        { unit: 'lines', starting: 'sending events…', file: journalPath !== undefined ? file : undefined },
      ),
    ended: eventsEnd,
    command: (f, resume) => eventsCommand(f, opts, resume),
  });
  return endEvents(ctx, job, opts, file, listing.unlisted);
}

/** What starting the events adapter needs from sendFile. */
interface EventSendSetup {
  ctx: Context;
  env: JobEnv;
  client: ApiClient;
  opts: SendOptions;
  file: string;
  encoding: InputEncoding | undefined;
  country: CountryCode | undefined;
  read: { bytes: number; lineEnd?: '\n' | '\r\n' };
  listing: { listed: number; unlisted: number };
}

/** The events adapter started on the job's outputs: --unconfirmed-out and the input opened first. */
async function startEventSend(setup: EventSendSetup, outputs: JobOutputs): Promise<StartedRun<BulkProgress<EventOutcome>, BulkSummary>> {
  const { ctx, opts } = setup;
  const { input, unconfirmedOut } = await openInputs(opts, ctx, setup.file);
  // A bulk run allocates fast and keeps little: fewer scavenges with a larger new space (bulk/heap.ts).
  sizeYoungGeneration();
  const run = createEventSend({
    ...outputs,
    outage: outageOptions(setup.env, setup.client, outputs.resume),
    client: setup.client,
    lines: readLineBatches(input, setup.encoding, setup.read),
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    defaultCountry: setup.country,
    signal: ctx.signal,
    // The ids go to the report only: without one, answers are not parsed.
    ids: outputs.report !== undefined,
    onRetry: (info, line) => logRetry(ctx, info, line),
    onResult: (result, work) => {
      if (result.outcome === 'unconfirmed') unconfirmedOut?.write(work.raw.text);
      listProblem(ctx, result, setup.listing);
    },
  });
  // After Ctrl-C or a stop, a read may still wait for input (a terminal, a slow pipe): release it,
  // or the process would not exit.
  const close = () => {
    if (!input.readableEnded) input.destroy();
    unconfirmedOut?.close();
  };
  return { progress: run.progress, run: run.run, close };
}

/** --dry-run: every line read and checked as it would be sent, nothing sent (bulk/job.ts dryRunJob). */
async function dryRunEventFile(
  ctx: Context,
  opts: SendOptions,
  file: string,
  args: Pick<EventSendSetup, 'encoding' | 'country' | 'read'> & { openReport: () => ReportWriter<string> | undefined },
): Promise<number> {
  const done = await dryRunJob({
    openReport: args.openReport,
    openRejects: () => openEventRejects(opts, args.encoding, args.read),
    reportComplete: false,
    check: async (report, rejects) => {
      const { input, unconfirmedOut } = await openInputs(opts, ctx, file);
      unconfirmedOut?.close();
      try {
        return await dryRunEvents({
          lines: readLineBatches(input, args.encoding, args.read),
          defaultCountry: args.country,
          report,
          rejects,
        });
      } finally {
        if (!input.readableEnded) input.destroy();
      }
    },
  });
  return printEventsDryRun(ctx, done, opts);
}

/** A line not accepted, on stderr (the first MAX_LISTED of them) for a person; counted beyond. */
function listProblem(ctx: Context, result: LineResult, listing: { listed: number; unlisted: number }): void {
  if (ctx.settings.json || result.outcome === 'accepted') return;
  if (listing.listed >= MAX_LISTED) {
    listing.unlisted++;
    return;
  }
  listing.listed++;
  const status = result.status !== undefined ? ` (HTTP ${result.status})` : '';
  ctx.out.warn(`line ${result.line}: ${result.outcome}${status}: ${result.message ?? result.errorCode ?? ''}`);
}

/**
 * What an events run's summary says about its end: stopped by the credentials before anything
 * could have been stored is `refused` (a plain credential error, no journal to resume; a failing
 * proxy keeps its journal even then: --resume through a working proxy goes on); failed lines
 * (certainly not processed) keep the journal, unmatched ones do not (they are not resent).
 */
function eventsEnd(summary: BulkSummary): RunEnd {
  return {
    interrupted: summary.interrupted,
    stoppedBy: summary.stoppedBy,
    failure: summary.failure,
    sendAgain: summary.failed,
    problems: summary.rejected + summary.failed + summary.unmatched,
    // The report is whole when every line read was settled, a stop by the credentials included.
    reportComplete: !summary.interrupted && summary.failure === undefined,
    refused:
      summary.stoppedBy !== undefined &&
      !isProxyFailure(summary.stoppedBy) &&
      summary.accepted + summary.unconfirmed + summary.unmatched === 0,
  };
}

/** The events run's ending printed from the job's result, and its exit. */
function endEvents(ctx: Context, job: JobResult<unknown, BulkSummary>, opts: SendOptions, file: string, unlisted: number): number {
  const summary = job.result;
  const note = job.rejects ? rejectsNote(job.rejects) : undefined;
  const kept: EventsResume | undefined = job.journalKept ? { journalPath: job.journalKept, command: job.resumeCommand } : undefined;
  if (job.failure !== undefined) {
    // The run itself failed (a full disk for the report, an unreadable input, an outage longer
    // than --max-outage): what was sent is counted; say so, then how to send the rest.
    summary.failure = job.failure;
    printSummary(ctx, summary, opts, file, unlisted, note, kept);
    throw runFailed(
      job,
      `the run stopped after line ${summary.lastLine}`,
      kept ? `progress saved in ${kept.journalPath}; once fixed, continue with: ${kept.command}` : restHint(summary, file),
    );
  }
  if (job.end.refused) throw summary.stoppedBy;
  printSummary(ctx, summary, opts, file, unlisted, note, kept);
  if (summary.stoppedBy !== undefined) throw stoppedBy(ctx, summary, file, kept);
  if (summary.interrupted) throw interrupted(summary, file, kept);
  if (summary.unmatched > 0 || summary.rejected > 0 || summary.failed > 0) throw problemLines(ctx, summary, opts, kept);
  return EXIT.ok;
}

/**
 * The credentials or the proxy stopped working: the summary says what was sent; say how to send
 * the rest once fixed, then fail with the error itself (exit 3, or 1 for the proxy).
 */
function stoppedBy(ctx: Context, summary: BulkSummary, file: string, kept: EventsResume | undefined): unknown {
  const what = isProxyFailure(summary.stoppedBy) ? 'the proxy is' : 'the credentials are';
  const how = kept ? `progress saved in ${kept.journalPath}; once ${what} fixed, continue with: ${kept.command}` : restHint(summary, file);
  if (!ctx.settings.json) ctx.out.warn(`stopped after line ${summary.lastLine}: ${how}`);
  return summary.stoppedBy;
}

function interrupted(summary: BulkSummary, file: string, kept: EventsResume | undefined): Interrupted {
  const rest =
    file !== '-' ? `to send the rest: tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -` : undefined;
  return new Interrupted(
    `interrupted after line ${summary.lastLine}: the events up to it are settled (see the summary); later lines were not sent${kept ? `; progress saved in ${kept.journalPath}` : ''}`,
    kept ? `continue with: ${kept.command}` : rest,
  );
}

/** Lines unmatched, rejected or failed: exit 4, saying which may be sent again and how. */
function problemLines(ctx: Context, summary: BulkSummary, opts: SendOptions, kept: EventsResume | undefined): PartialFailure {
  const see = opts.report ? `; see ${opts.report}` : '';
  if (summary.unmatched > 0) {
    const lines = `${summary.unmatchedLines.slice(0, 20).join(', ')}${summary.unmatchedLines.length > 20 ? ', …' : ''}`;
    return new PartialFailure(
      `${summary.rejected} line(s) rejected, ${summary.failed} failed and ${summary.unmatched} unmatched out of ${summary.rows}${see}`,
      `${summary.unmatched} line(s) unmatched (lines ${lines}): the answer could not be tied to the event, so whether it was stored is unknown; they were not resent (check them before sending them again)`,
    );
  }
  let hint: string | undefined;
  if (kept && summary.failed > 0)
    hint = `${summary.failed} line(s) failed (certainly not processed); progress saved in ${kept.journalPath}: send only those again with: ${kept.command}`;
  else if (!opts.report)
    // Not "rerun with --report": events are not idempotent, a rerun sends the accepted ones again.
    hint = `the lines are ${ctx.settings.json ? "in the summary's rejected_lines on stdout" : 'listed above'}; --report FILE writes each line next time (a rerun of this file would send its accepted events again)`;
  return new PartialFailure(`${summary.rejected} line(s) rejected and ${summary.failed} failed out of ${summary.rows}${see}`, hint);
}

/** The rejects file of an events run (--rejects), in the input's format: it learns the line end once the first line is read. */
function openEventRejects(
  opts: SendOptions,
  encoding: InputEncoding | undefined,
  read: { lineEnd?: '\n' | '\r\n' },
): RejectsWriter | undefined {
  if (opts.rejects === undefined) return undefined;
  const format = {
    kind: 'ndjson' as const,
    encoding: encoding ?? 'utf-8',
    get lineEnd() {
      return read.lineEnd ?? '\n';
    },
  };
  return new RejectsWriter(opts.rejects, format, { includeFailed: opts.rejectsIncludeFailed === true });
}

/** --unconfirmed-out, then the NDJSON stream; when the stream cannot be opened, the first is closed. */
async function openInputs(opts: SendOptions, ctx: Context, file: string): Promise<{ input: Readable; unconfirmedOut?: LineWriter }> {
  const unconfirmedOut = opts.unconfirmedOut !== undefined ? new LineWriter(opts.unconfirmedOut, '--unconfirmed-out') : undefined;
  try {
    return { input: await openEventsInput(file, ctx), unconfirmedOut };
  } catch (err) {
    unconfirmedOut?.close();
    throw err;
  }
}

function isProxyFailure(err: unknown): boolean {
  return err instanceof NetworkError && err.kind === 'proxy';
}
