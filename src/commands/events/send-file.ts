/**
 * svc events send --file: every line of an NDJSON file (or stdin) through the events adapter of
 * the bulk engine (bulk/adapters/events.ts), with a report, a rejects file, the unconfirmed lines
 * collected, and the exact commands to send the rest.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import { type EventSendSummary as BulkSummary, createEventSend } from '../../bulk/adapters/events.js';
import { sizeYoungGeneration } from '../../bulk/heap.js';
import { fileFingerprint } from '../../bulk/journal.js';
import { LineWriter } from '../../bulk/line-writer.js';
import { checkRunPaths, type PathUse } from '../../bulk/paths.js';
import { RejectsWriter } from '../../bulk/rejects.js';
import { openReport, type ReportWriter } from '../../bulk/report.js';
import { describeInvalid, findInvalidUtf8, type InputEncoding, parseEncoding } from '../../bulk/sources/decode.js';
import { readLineBatches } from '../../bulk/sources/ndjson-source.js';
import { NetworkError } from '../../client/errors.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { InputError } from '../../importer/errors.js';
import { shellQuote } from '../../io/shell-quote.js';
import { openInput } from '../../util/open-input.js';
import { JOURNAL_PATH_RULES, journalOf, journalOutput, openJournalAndReport, outageOptions, showImportProgress } from '../bulk-import.js';
import { checkRejectsOptions, rejectsNote } from '../bulk-rejects.js';
import { checkEventLines } from './send-file-dry-run.js';
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

export async function sendFile(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<number> {
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
  checkRejectsOptions(opts);
  const { journalPath } = journalOf(file, file === '-', '--file', opts, ctx, 'events');
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  // Nothing is opened before every output is known not to be the input or another output.
  const outputs: PathUse[] = [];
  if (opts.report !== undefined) outputs.push({ what: '--report', path: opts.report });
  if (opts.unconfirmedOut !== undefined) outputs.push({ what: '--unconfirmed-out', path: opts.unconfirmedOut });
  if (opts.rejects !== undefined) outputs.push({ what: '--rejects', path: opts.rejects });
  outputs.push(...journalOutput(journalPath, opts));
  checkRunPaths(file === '-' ? [] : [{ what: '--file', path: file }], outputs, {
    ...JOURNAL_PATH_RULES,
    standard: ctx.io.standardFiles?.(),
  });
  if (file !== '-' && (encoding ?? 'utf-8') === 'utf-8' && statSync(file).isFile()) {
    // Before anything is sent: bytes that are not UTF-8 would otherwise become U+FFFD in events.
    const bad = await findInvalidUtf8(file, ctx.signal);
    if (bad) throw new InputError(`--file ${file}: ${describeInvalid(bad)}`);
    // findInvalidUtf8 leaves a UTF-16 file (its byte-order mark) to the reader; NDJSON is UTF-8.
    const bom = utf16Mark(file);
    if (bom)
      throw new InputError(
        `--file ${file} is ${bom} (it starts with its byte-order mark): NDJSON is UTF-8`,
        `give --encoding ${bom.toLowerCase()}, or save the file as UTF-8`,
      );
  }
  const openReportFile = () => (opts.report !== undefined ? openReport<string>(opts.report, { idColumn: REPORT_ID_COLUMN }) : undefined);
  // The input's line end is known once its first line is read: the rejects file learns it then.
  const read: { bytes: number; lineEnd?: '\n' | '\r\n' } = { bytes: 0 };
  if (opts.dryRun) {
    const report = openReportFile();
    const { input, rejects } = await openOutputs(opts, ctx, file, encoding, read, report);
    return checkEventLines(ctx, { input, read, encoding, country, report, rejects, opts });
  }

  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  // Credentials first: a run that cannot send leaves no journal behind.
  const opened = await openJournalAndReport({
    ctx,
    journalPath,
    resume: opts.resume === true,
    openReport: openReportFile,
    identity: () => ({
      kind: 'events',
      file: fileFingerprint(file),
      options: { default_country: country ?? null, ...(encoding !== undefined ? { encoding } : {}) },
    }),
  });
  const { journal, resume, report } = opened;
  let streams: Awaited<ReturnType<typeof openOutputs>>;
  try {
    streams = await openOutputs(opts, ctx, file, encoding, read, report);
  } catch (err) {
    await journal?.close().catch(() => undefined);
    throw err;
  }
  const { input, rejects, unconfirmedOut } = streams;
  // A bulk run allocates fast and keeps little: fewer scavenges with a larger new space (bulk/heap.ts).
  sizeYoungGeneration();
  const human = !ctx.settings.json;
  let listed = 0;
  let unlisted = 0;
  const job = createEventSend({
    outage: outageOptions(ctx, client, resume),
    client,
    lines: readLineBatches(input, encoding, read),
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    defaultCountry: country,
    signal: ctx.signal,
    report,
    rejects,
    journal,
    resume,
    redact: (text) => ctx.redactor.redact(text),
    // The ids go to the report only: without one, answers are not parsed.
    ids: report !== undefined,
    onRetry: (info, line) => logRetry(ctx, info, line),
    onResult(result, work) {
      if (result.outcome === 'unconfirmed') unconfirmedOut?.write(work.raw.text);
      if (human && result.outcome !== 'accepted') {
        if (listed < MAX_LISTED) {
          listed++;
          const status = result.status !== undefined ? ` (HTTP ${result.status})` : '';
          ctx.out.warn(`line ${result.line}: ${result.outcome}${status}: ${result.message ?? result.errorCode ?? ''}`);
        } else unlisted++;
      }
    },
  });
  const p = job.progress;
  const stopProgress = await showImportProgress(
    ctx,
    Object.assign(p, { bytesRead: () => read.bytes }),
    file !== '-' && statSync(file).isFile() ? statSync(file).size : undefined,
    () =>
      `${p.summary.accepted} accepted, ${p.summary.rejected} rejected, ${p.summary.failed} failed, ${p.summary.unconfirmed} unconfirmed`,
    { unit: 'lines', starting: 'sending events…', file: journalPath !== undefined ? file : undefined },
  );
  let summary: BulkSummary | undefined;
  try {
    summary = await job.run();
  } finally {
    // After Ctrl-C or a stop, a read may still wait for input (a terminal, a slow pipe): release it,
    // or the process would not exit.
    if (!input.readableEnded) input.destroy();
    stopProgress();
    unconfirmedOut?.close();
    try {
      report?.close({ complete: summary !== undefined && !summary.interrupted && summary.failure === undefined });
    } catch (err) {
      // Without a summary an error is already on its way out; this one would only hide it.
      if (summary) summary.failure ??= err;
    }
    try {
      rejects?.close();
    } catch (err) {
      if (summary) summary.failure ??= err;
    }
    if (!summary) await journal?.close().catch(() => undefined);
  }
  const note = rejects ? rejectsNote(rejects, (f) => eventsCommand(f, opts, false)) : undefined;
  // Stopped by the credentials before anything could have been stored: a plain credential error
  // (the whole input can be sent again as it is once they are fixed), and no journal to resume.
  // A failing proxy keeps its journal even then: --resume through a working proxy goes on.
  const refused =
    summary.stoppedBy !== undefined &&
    !isProxyFailure(summary.stoppedBy) &&
    summary.accepted + summary.unconfirmed + summary.unmatched === 0;
  const complete = !summary.interrupted && summary.failure === undefined && summary.stoppedBy === undefined;
  // Failed lines (certainly not processed) keep the journal: --resume sends them, and only them, again.
  let kept: EventsResume | undefined;
  if (journal && journalPath && (refused || (complete && summary.failed === 0))) await journal.remove();
  else if (journal && journalPath) {
    await journal.close().catch((err: unknown) => {
      (summary as BulkSummary).failure ??= err;
    });
    kept = { journalPath, command: eventsCommand(file, opts, true) };
  }

  if (summary.failure !== undefined) {
    // The run itself failed (a full disk for the report, an unreadable input, an outage longer
    // than --max-outage): what was sent is counted; say so, then how to send the rest.
    printSummary(ctx, summary, opts, file, unlisted, note, kept);
    const reason = summary.failure instanceof Error ? summary.failure.message : String(summary.failure);
    const name = (summary.failure as { name?: string }).name ?? '';
    throw new CliError(`the run stopped after line ${summary.lastLine}: ${reason}`, {
      exitCode: EXIT.failure,
      code: ({ OutputError: 'output_error', OutageExceededError: 'service_unreachable' } as Record<string, string>)[name] ?? 'run_failed',
      hint: kept ? `progress saved in ${kept.journalPath}; once fixed, continue with: ${kept.command}` : restHint(summary, file),
      cause: summary.failure,
    });
  }

  if (refused) throw summary.stoppedBy;
  printSummary(ctx, summary, opts, file, unlisted, note, kept);
  if (summary.stoppedBy !== undefined) {
    // The credentials or the proxy stopped working: the summary above says what was sent; say how
    // to send the rest once fixed, then fail with the error itself (exit 3, or 1 for the proxy).
    const what = isProxyFailure(summary.stoppedBy) ? 'the proxy is' : 'the credentials are';
    const how = kept
      ? `progress saved in ${kept.journalPath}; once ${what} fixed, continue with: ${kept.command}`
      : restHint(summary, file);
    if (!ctx.settings.json) ctx.out.warn(`stopped after line ${summary.lastLine}: ${how}`);
    throw summary.stoppedBy;
  }
  if (summary.interrupted) {
    throw new Interrupted(
      `interrupted after line ${summary.lastLine}: the events up to it are settled (see the summary); later lines were not sent${kept ? `; progress saved in ${kept.journalPath}` : ''}`,
      kept
        ? `continue with: ${kept.command}`
        : file !== '-'
          ? `to send the rest: tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -`
          : undefined,
    );
  }
  if (summary.unmatched > 0) {
    throw new PartialFailure(
      `${summary.rejected} line(s) rejected, ${summary.failed} failed and ${summary.unmatched} unmatched out of ${summary.rows}${opts.report ? `; see ${opts.report}` : ''}`,
      `${summary.unmatched} line(s) unmatched (lines ${summary.unmatchedLines.slice(0, 20).join(', ')}${summary.unmatchedLines.length > 20 ? ', …' : ''}): the answer could not be tied to the event, so whether it was stored is unknown; they were not resent (check them before sending them again)`,
    );
  }
  if (summary.rejected > 0 || summary.failed > 0) {
    const hint =
      kept && summary.failed > 0
        ? `${summary.failed} line(s) failed (certainly not processed); progress saved in ${kept.journalPath}: send only those again with: ${kept.command}`
        : opts.report
          ? undefined
          : // Not "rerun with --report": events are not idempotent, a rerun sends the accepted ones again.
            `the lines are ${ctx.settings.json ? "in the summary's rejected_lines on stdout" : 'listed above'}; --report FILE writes each line next time (a rerun of this file would send its accepted events again)`;
    throw new PartialFailure(
      `${summary.rejected} line(s) rejected and ${summary.failed} failed out of ${summary.rows}${opts.report ? `; see ${opts.report}` : ''}`,
      hint,
    );
  }
  return EXIT.ok;
}

/**
 * The outputs other than the report and journal, then the input: --unconfirmed-out, the rejects
 * file (in the input's format), the NDJSON stream. When one cannot be opened, those opened are
 * closed (the report as incomplete).
 */
async function openOutputs(
  opts: SendOptions,
  ctx: Context,
  file: string,
  encoding: InputEncoding | undefined,
  read: { lineEnd?: '\n' | '\r\n' },
  report: ReportWriter<string> | undefined,
): Promise<{ input: Readable; rejects?: RejectsWriter; unconfirmedOut?: LineWriter }> {
  let unconfirmedOut: LineWriter | undefined;
  let rejects: RejectsWriter | undefined;
  try {
    unconfirmedOut = opts.unconfirmedOut !== undefined ? new LineWriter(opts.unconfirmedOut, '--unconfirmed-out') : undefined;
    if (opts.rejects !== undefined) {
      const format = {
        kind: 'ndjson' as const,
        encoding: encoding ?? 'utf-8',
        get lineEnd() {
          return read.lineEnd ?? '\n';
        },
      };
      rejects = new RejectsWriter(opts.rejects, format, { includeFailed: opts.rejectsIncludeFailed === true });
    }
    return { input: await openEventsInput(file, ctx), rejects, unconfirmedOut };
  } catch (err) {
    report?.close({ complete: false });
    unconfirmedOut?.close();
    rejects?.close();
    throw err;
  }
}

function isProxyFailure(err: unknown): boolean {
  return err instanceof NetworkError && err.kind === 'proxy';
}
