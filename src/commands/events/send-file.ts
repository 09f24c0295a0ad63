/**
 * svc events send --file: every line of an NDJSON file (or stdin) through the events adapter of
 * the bulk engine (importer/events.ts), with a report, a rejects file, the unconfirmed lines
 * collected, and the exact commands to send the rest.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import { describeInvalid, findInvalidUtf8, type InputEncoding, parseEncoding } from '../../bulk/decode.js';
import { InputError } from '../../bulk/errors.js';
import { sizeYoungGeneration } from '../../bulk/heap.js';
import { openInput } from '../../bulk/input.js';
import { LineWriter } from '../../bulk/line-writer.js';
import { readLineBatches } from '../../bulk/ndjson-source.js';
import { checkRunPaths, type PathUse } from '../../bulk/paths.js';
import { RejectsWriter } from '../../bulk/rejects.js';
import { openReport } from '../../bulk/report.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { type EventSendSummary as BulkSummary, createEventSend } from '../../importer/events.js';
import { shellQuote } from '../../io/shell-quote.js';
import { checkRejectsOptions, type RejectsNote, rejectsNote, sayRejects } from '../bulk-rejects.js';
import { showProgress } from '../progress.js';
import { checkEventLines } from './send-file-dry-run.js';
import { ACCEPTED_NOTE, DEFAULT_CONCURRENCY, kebab, logRetry, type SendOptions } from './shared.js';

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
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  // Nothing is opened before every output is known not to be the input or another output.
  const outputs: PathUse[] = [];
  if (opts.report !== undefined) outputs.push({ what: '--report', path: opts.report });
  if (opts.unconfirmedOut !== undefined) outputs.push({ what: '--unconfirmed-out', path: opts.unconfirmedOut });
  if (opts.rejects !== undefined) outputs.push({ what: '--rejects', path: opts.rejects });
  checkRunPaths(file === '-' ? [] : [{ what: '--file', path: file }], outputs);
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
  const report = opts.report !== undefined ? openReport<string>(opts.report, { idColumn: REPORT_ID_COLUMN }) : undefined;
  let unconfirmedOut: LineWriter | undefined;
  let rejects: RejectsWriter | undefined;
  let input: Readable;
  // The input's line end is known once its first line is read: the rejects file learns it then.
  const read: { bytes: number; lineEnd?: '\n' | '\r\n' } = { bytes: 0 };
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
    input = await openEventsInput(file, ctx);
  } catch (err) {
    report?.close({ complete: false });
    unconfirmedOut?.close();
    rejects?.close();
    throw err;
  }

  if (opts.dryRun) return checkEventLines(ctx, { input, read, encoding, country, report, rejects, opts });

  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  // A bulk run allocates fast and keeps little: fewer scavenges with a larger new space (bulk/heap.ts).
  sizeYoungGeneration();
  const human = !ctx.settings.json;
  let listed = 0;
  let unlisted = 0;
  const job = createEventSend({
    outage: { maxOutageMs: ctx.settings.maxOutageMs },
    client,
    lines: readLineBatches(input, encoding, read),
    concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
    defaultCountry: country,
    signal: ctx.signal,
    report,
    rejects,
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
  // What the progress line shows, as the lines settle (the summary comes at the end).
  const p = job.progress;
  const stopProgress = await showProgress(
    ctx,
    {
      done: () => p.summary.rows,
      resumed: () => 0,
      bytesRead: () => read.bytes,
      rateLimited: () => p.rateLimited,
      outage: () => p.outage(),
      counts: () =>
        `${p.summary.accepted} accepted, ${p.summary.rejected} rejected, ${p.summary.failed} failed, ${p.summary.unconfirmed} unconfirmed`,
    },
    { unit: 'lines', totalBytes: file !== '-' && statSync(file).isFile() ? statSync(file).size : undefined, starting: 'sending events…' },
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
  }
  const note = rejects ? rejectsNote(rejects, (f) => reimportCommand(f, opts)) : undefined;

  if (summary.failure !== undefined) {
    // The run itself failed (a full disk for the report, an unreadable input): what was sent is
    // counted; say so, then how to send the rest.
    printSummary(ctx, summary, opts, file, unlisted, note);
    const reason = summary.failure instanceof Error ? summary.failure.message : String(summary.failure);
    throw new CliError(`the run stopped after line ${summary.lastLine}: ${reason}`, {
      exitCode: EXIT.failure,
      code: (summary.failure as { name?: string }).name === 'OutputError' ? 'output_error' : 'run_failed',
      hint: restHint(summary, file),
      cause: summary.failure,
    });
  }

  // Stopped by the credentials before anything could have been stored: a plain credential error
  // (the whole input can be sent again as it is once they are fixed).
  if (summary.stoppedBy !== undefined && summary.accepted + summary.unconfirmed === 0) throw summary.stoppedBy;
  printSummary(ctx, summary, opts, file, unlisted, note);
  if (summary.stoppedBy !== undefined) {
    // The credentials stopped working mid-run: the summary above says what was sent; say how to
    // send the rest once they are fixed, then fail with the credential error itself (exit 3).
    if (!ctx.settings.json) ctx.out.warn(`stopped after line ${summary.lastLine}: ${restHint(summary, file)}`);
    throw summary.stoppedBy;
  }
  if (summary.interrupted) {
    throw new Interrupted(
      `interrupted after line ${summary.lastLine}: the events up to it are settled (see the summary); later lines were not sent`,
      file !== '-' ? `to send the rest: tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -` : undefined,
    );
  }
  if (summary.rejected > 0 || summary.failed > 0) {
    throw new PartialFailure(
      `${summary.rejected} line(s) rejected and ${summary.failed} failed out of ${summary.rows}${opts.report ? `; see ${opts.report}` : ''}`,
      // Not "rerun with --report": events are not idempotent, a rerun sends the accepted ones again.
      opts.report
        ? undefined
        : 'the lines are listed above; --report FILE writes each line next time (a rerun of this file would send its accepted events again)',
    );
  }
  return EXIT.ok;
}

/**
 * After a stop for bad credentials: the lines to send again once they are fixed, in words, and
 * the command that sends them when there is one (not for stdin).
 */
function restOf(summary: BulkSummary, file: string): { hint: string; command?: string } {
  const failed = summary.failedLines.length;
  const what = `lines after ${summary.lastLine} were not sent${failed > 0 ? `, and ${failed} line(s) failed unprocessed (listed as failed)` : ''}`;
  if (file === '-')
    return {
      hint: `${what}; once the credentials are fixed, send those again (not the whole input: the accepted events would be stored twice)`,
    };
  if (summary.failedLines.length <= 50) {
    const script = [...summary.failedLines.map((n) => `${n}p`), `${summary.lastLine + 1},$p`].join(';');
    const command = `sed -n '${script}' ${shellQuote(file)} | svc events send --file -`;
    return { hint: `${what}; once the credentials are fixed, send just those: ${command}`, command };
  }
  const command = `tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -`;
  return { hint: `${what}; once the credentials are fixed, send the failed lines of the report and the rest: ${command}`, command };
}

function restHint(summary: BulkSummary, file: string): string {
  return restOf(summary, file).hint;
}

/**
 * How to resend just the unconfirmed lines, once the user has checked they did not arrive: in
 * words, and the command alone when there is one (their --unconfirmed-out file, or a `sed` of up
 * to 50 lines of a file).
 */
function resendOf(summary: BulkSummary, opts: SendOptions, file: string): { hint: string; command?: string } {
  if (opts.unconfirmedOut) {
    const command = `svc events send --file ${shellQuote(opts.unconfirmedOut)}`;
    return {
      hint: `they are in ${opts.unconfirmedOut}; once you have checked they were not stored, resend just those: ${command}`,
      command,
    };
  }
  if (file !== '-' && summary.unconfirmedLines.length <= 50) {
    const script = summary.unconfirmedLines.map((n) => `${n}p`).join(';');
    const command = `sed -n '${script}' ${shellQuote(file)} | svc events send --file -`;
    return { hint: `once you have checked they were not stored, resend just those: ${command}`, command };
  }
  return { hint: 'rerun with --unconfirmed-out FILE next time to collect them; the --report lists them with outcome "unconfirmed"' };
}

/** The command that sends a (fixed) rejects file with this run's line-shaping options. */
function reimportCommand(file: string, opts: SendOptions): string {
  const parts = ['svc', 'events', 'send', '--file', shellQuote(file)];
  if (opts.defaultCountry) parts.push('--default-country', opts.defaultCountry);
  if (opts.encoding) parts.push('--encoding', shellQuote(opts.encoding));
  if (opts.concurrency) parts.push('--concurrency', String(opts.concurrency));
  return parts.join(' ');
}

function printSummary(
  ctx: Context,
  summary: BulkSummary,
  opts: SendOptions,
  file: string,
  unlisted: number,
  rejects: RejectsNote | undefined,
): void {
  const counts = {
    rows: summary.rows,
    accepted: summary.accepted,
    rejected: summary.rejected,
    failed: summary.failed,
    unconfirmed: summary.unconfirmed,
  };
  if (ctx.settings.json) {
    const doc: Record<string, unknown> = {
      ...counts,
      unconfirmed_lines: summary.unconfirmedLines,
      rejected_lines: summary.rejectedLines,
      failed_lines: summary.failedLines,
    };
    if (summary.unconfirmed > 0) {
      // The line numbers are data (unconfirmed_lines); the command to run is given alone, beside
      // the sentence that explains it (resend_hint, kept as it was).
      const resend = resendOf(summary, opts, file);
      doc.resend_hint = resend.hint;
      if (resend.command !== undefined) doc.resend_command = resend.command;
    }
    if (opts.report) doc.report = opts.report;
    if (opts.unconfirmedOut) doc.unconfirmed_out = opts.unconfirmedOut;
    if (summary.interrupted) doc.interrupted_after_line = summary.lastLine;
    if (rejects) Object.assign(doc, rejects.fields);
    if (summary.stoppedBy !== undefined) {
      doc.stopped_after_line = summary.lastLine;
      const rest = restOf(summary, file);
      doc.rest_hint = rest.hint;
      if (rest.command !== undefined) doc.rest_command = rest.command;
    }
    ctx.out.json(doc);
    return;
  }
  if (unlisted > 0) ctx.out.warn(`… and ${unlisted} more line(s) not accepted${opts.report ? `: see ${opts.report}` : ''}`);
  const entries = Object.entries(counts) as Array<[string, number]>;
  if (ctx.policy.humanStdout) ctx.out.record(entries);
  else ctx.out.stdout(entries.map(([k, v]) => `${k}\t${v}`).join('\n') + '\n');
  if (summary.unconfirmed > 0) {
    const shown = summary.unconfirmedLines.slice(0, 50).join(', ');
    const more = summary.unconfirmedLines.length > 50 ? `, … (${summary.unconfirmedLines.length - 50} more)` : '';
    ctx.out.warn(
      `${summary.unconfirmed} event(s) unconfirmed (lines ${shown}${more}): the connection ended or the service answered 5xx after they were sent, so they may or may not have been stored. They were NOT resent.`,
    );
    ctx.out.info(`hint: ${resendOf(summary, opts, file).hint}`);
  }
  if (summary.accepted > 0) ctx.out.info(`note: ${ACCEPTED_NOTE}`);
  if (rejects) sayRejects(ctx, rejects);
}
