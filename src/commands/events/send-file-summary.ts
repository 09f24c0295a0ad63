/**
 * The end of `events send --file` in words: the summary (table, tab lines or one JSON document),
 * the unconfirmed lines and how to resend just those once checked, and the commands that send
 * what a stopped run left (the journal's --resume for a file; `sed`/`tail` for the rest).
 */

import type { EventSendSummary as BulkSummary } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { shellQuote } from '../../io/shell-quote.js';
import { type RejectsNote, sayRejects } from '../bulk-rejects.js';
import { ACCEPTED_NOTE, type SendOptions } from './shared.js';

/** The journal of a run that keeps one, and the command that continues it. */
export interface EventsResume {
  journalPath: string;
  command: string;
}

/**
 * After a stop for bad credentials: the lines to send again once they are fixed, in words, and
 * the command that sends them when there is one (not for stdin).
 */
export function restOf(summary: BulkSummary, file: string): { hint: string; command?: string } {
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

export function restHint(summary: BulkSummary, file: string): string {
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

/**
 * The command that sends another file (a fixed rejects file) with this run's line-shaping
 * options, or (`resume`) continues this run with its outputs too.
 */
export function eventsCommand(file: string, opts: SendOptions, resume: boolean): string {
  const parts = ['svc', 'events', 'send', '--file', shellQuote(file)];
  if (resume) parts.push('--resume');
  if (opts.defaultCountry) parts.push('--default-country', opts.defaultCountry);
  if (opts.encoding) parts.push('--encoding', shellQuote(opts.encoding));
  if (opts.concurrency) parts.push('--concurrency', String(opts.concurrency));
  if (resume) {
    if (opts.report) parts.push('--report', shellQuote(opts.report));
    if (opts.rejects) parts.push('--rejects', shellQuote(opts.rejects));
    if (opts.rejectsIncludeFailed) parts.push('--rejects-include-failed');
    if (opts.unconfirmedOut) parts.push('--unconfirmed-out', shellQuote(opts.unconfirmedOut));
    if (opts.journal) parts.push('--journal', shellQuote(opts.journal));
  }
  return parts.join(' ');
}

export function printSummary(
  ctx: Context,
  summary: BulkSummary,
  opts: SendOptions,
  file: string,
  unlisted: number,
  rejects: RejectsNote | undefined,
  kept?: EventsResume,
): void {
  const counts = {
    rows: summary.rows,
    accepted: summary.accepted,
    rejected: summary.rejected,
    failed: summary.failed,
    unconfirmed: summary.unconfirmed,
    // Only when there are such lines: otherwise the summary is the contract's.
    ...(summary.unmatched > 0 ? { unmatched: summary.unmatched } : {}),
  };
  if (ctx.settings.json) {
    ctx.out.json(summaryDocument(summary, counts, opts, file, rejects, kept));
    return;
  }
  if (unlisted > 0) ctx.out.warn(`… and ${unlisted} more line(s) not accepted${opts.report ? `: see ${opts.report}` : ''}`);
  const entries = Object.entries(counts) as Array<[string, number]>;
  if (summary.resumed > 0) entries.push(['resumed', summary.resumed]);
  if (ctx.policy.humanStdout) ctx.out.record(entries);
  else ctx.out.stdout(entries.map(([k, v]) => `${k}\t${v}`).join('\n') + '\n');
  if (summary.unconfirmed > 0) warnUnconfirmed(ctx, summary, opts, file);
  if (summary.accepted > 0) ctx.out.info(`note: ${ACCEPTED_NOTE}`);
  if (rejects) sayRejects(ctx, rejects);
}

/** --json: the counts, the lines by outcome, and what to run next (resend, resume, the rest). */
function summaryDocument(
  summary: BulkSummary,
  counts: Record<string, number>,
  opts: SendOptions,
  file: string,
  rejects: RejectsNote | undefined,
  kept: EventsResume | undefined,
): Record<string, unknown> {
  const doc: Record<string, unknown> = {
    ...counts,
    resumed: summary.resumed,
    unconfirmed_lines: summary.unconfirmedLines,
    rejected_lines: summary.rejectedLines,
    failed_lines: summary.failedLines,
    ...(summary.unmatched > 0 ? { unmatched_lines: summary.unmatchedLines } : {}),
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
  if (kept) Object.assign(doc, { journal: kept.journalPath, resume_command: kept.command });
  if (summary.stoppedBy !== undefined) {
    doc.stopped_after_line = summary.lastLine;
    const rest = restOf(summary, file);
    doc.rest_hint = rest.hint;
    if (rest.command !== undefined) doc.rest_command = rest.command;
  }
  return doc;
}

/** The unconfirmed lines (the first 50), why they were not resent, and how to resend them. */
function warnUnconfirmed(ctx: Context, summary: BulkSummary, opts: SendOptions, file: string): void {
  const shown = summary.unconfirmedLines.slice(0, 50).join(', ');
  const more = summary.unconfirmedLines.length > 50 ? `, … (${summary.unconfirmedLines.length - 50} more)` : '';
  ctx.out.warn(
    `${summary.unconfirmed} event(s) unconfirmed (lines ${shown}${more}): the connection ended or the service answered 5xx after they were sent, so they may or may not have been stored. They were NOT resent.`,
  );
  ctx.out.info(`hint: ${resendOf(summary, opts, file).hint}`);
}
