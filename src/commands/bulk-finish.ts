/**
 * The end of every bulk run, whatever the verb: the report, the rejects file and the journal
 * closed (the journal removed when nothing is left to do), then the summary, and the exit: a
 * fatal stop (its error, after how to resume), a run failing mid-way (exit 1 with how to go on),
 * an interruption (130), or rows rejected or failed (listed, exit 4).
 */
import type { Journal } from '../bulk/journal.js';
import type { Outcome, RowResult, Summary } from '../bulk/outcome.js';
import type { RejectsWriter } from '../bulk/rejects.js';
import type { ReportWriter } from '../bulk/report.js';
import type { BulkRunResult } from '../bulk/run.js';
import type { Context } from '../context.js';
import { CliError, EXIT, Interrupted, PartialFailure } from '../errors.js';
import type { ImportInput } from './bulk-import.js';
import { type RejectsNote, rejectsNote, sayRejects } from './bulk-rejects.js';
import { reportHint } from './report-hint.js';

/**
 * Runs an import job to its end and turns the result into the command's exit: the report and the
 * journal closed (removed when the run finished), the summary printed, then a fatal stop (its
 * error, after how to resume), a run failing mid-way (exit 1 with the summary and how to go on),
 * an interruption (130), or rows rejected, failed or unmatched (listed, exit 4; the journal kept
 * for the failed and unmatched ones, which --resume sends again).
 */
export async function finishImport<O extends string = Outcome>(args: {
  ctx: Context;
  run: () => Promise<BulkRunResult<O>>;
  stopProgress: () => void;
  input: Pick<ImportInput, 'journalPath' | 'fromStdin'>;
  /** The summary lists the problem rows itself (they are not listed again after it). */
  listsProblems?: boolean;
  report?: ReportWriter<string>;
  reportPath?: string;
  rejects?: RejectsWriter;
  /** The command that imports a (fixed) rejects file with this run's request-shaping options (with `rejects`). */
  reimportCommand?: (file: string) => string;
  journal?: Journal;
  resumeCommand: string;
  printSummary: (reportPath: string | undefined, interrupted: boolean, rejects?: RejectsNote) => void;
}): Promise<number> {
  const { ctx, report, journal, input, reportPath } = args;
  const { journalPath, fromStdin } = input;
  let result: BulkRunResult<O>;
  try {
    result = await args.run();
  } catch (err) {
    args.stopProgress();
    await journal?.close().catch(() => undefined);
    report?.close({ complete: false });
    args.rejects?.close();
    throw err;
  }
  args.stopProgress();
  const complete = !result.interrupted && result.fatal === undefined && result.failure === undefined;
  let failure = result.failure;
  try {
    report?.close({ complete });
  } catch (err) {
    failure ??= err;
  }
  try {
    args.rejects?.close();
  } catch (err) {
    failure ??= err;
  }
  const note = args.rejects && args.reimportCommand ? rejectsNote(args.rejects, args.reimportCommand) : undefined;
  // Failed and unmatched rows keep the journal: --resume sends them (and only them) again.
  const s = result.summary as unknown as Summary;
  const unmatched = s.unmatched ?? 0;
  const failedKept = complete && failure === undefined && (s.failed > 0 || unmatched > 0) && journal !== undefined;
  if (complete && failure === undefined && !failedKept) await journal?.remove();
  else
    await journal?.close().catch((err: unknown) => {
      failure ??= err;
    });

  if (result.fatal !== undefined) {
    ctx.out.info(`stopped after ${result.summary.rows} row(s): every further row would fail the same way`);
    if (journalPath) ctx.out.info(`progress saved; once fixed, continue with: ${args.resumeCommand}`);
    throw result.fatal;
  }
  if (failure !== undefined && !result.interrupted) {
    // The run itself failed (a full disk for the report or journal, an unreadable input): what
    // was done is counted and saved; say so, then how to go on.
    args.printSummary(undefined, false, note);
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new CliError(`the import stopped after ${result.summary.rows} finished row(s): ${reason}`, {
      exitCode: EXIT.failure,
      code:
        ({ OutputError: 'output_error', OutageExceededError: 'service_unreachable' } as Record<string, string>)[(failure as Error).name] ??
        'run_failed',
      hint: journalPath
        ? `progress saved in ${journalPath}; once fixed, continue with: ${args.resumeCommand}`
        : 'the rows above were sent; a piped input cannot be resumed: import a file to be able to continue',
      cause: failure,
    });
  }
  args.printSummary(reportPath, result.interrupted, note);
  if (note) sayRejects(ctx, note);
  if (result.interrupted) {
    throw new Interrupted(
      `interrupted after ${result.summary.rows} finished row(s)${journalPath ? `; progress saved in ${journalPath}` : ''}`,
      journalPath
        ? `continue with: ${args.resumeCommand}`
        : `${fromStdin ? 'stdin' : 'a pipe or device'} cannot be resumed: import a file to be able to continue an interrupted run`,
    );
  }
  const problemRows = s.rejected + s.failed + unmatched;
  if (problemRows > 0 && !ctx.settings.json && !args.listsProblems) {
    // Loaded here: string-width (its Intl.Segmenter and emoji expressions) costs some 0.1 s of
    // CPU to load, which every bulk run paid although only this listing measures text.
    const { stderrWidth, wrapHanging } = await import('../io/wrap.js');
    for (const p of result.problems) for (const line of wrapHanging(describeProblem(p), stderrWidth(ctx.io), '  ')) ctx.out.info(line);
    const more = problemRows - result.problems.length;
    if (more > 0) ctx.out.info(`  … and ${more} more`);
  }
  if (problemRows > 0) {
    const rejectsHint = note && note.count > 0 ? `; the rows to fix are in ${note.path}` : '';
    const counts =
      unmatched > 0
        ? `${s.rejected} row(s) rejected, ${s.failed} failed and ${unmatched} unmatched`
        : `${s.rejected} row(s) rejected and ${s.failed} failed`;
    throw new PartialFailure(
      `${counts} out of ${s.rows}${reportPath ? `; see ${reportPath}` : ''}${rejectsHint}`,
      failedKept && journalPath
        ? `${sendAgainWhy(s.failed, result.failedMaybeApplied, unmatched)}; progress saved in ${journalPath}: send only those again with: ${args.resumeCommand}`
        : reportHint(result.problems as RowResult[], s, reportPath !== undefined || rejectsHint !== ''),
    );
  }
  return EXIT.ok;
}

/**
 * Why the rows --resume sends again are not done: failed before reaching the service or refused
 * by it (not taken), failed after being sent (a timeout, a 5xx: may have been applied; the writes
 * are idempotent, so sending them again is safe) and unmatched (not known).
 */
function sendAgainWhy(failed: number, maybeApplied: number, unmatched: number): string {
  const parts: string[] = [];
  const notTaken = failed - maybeApplied;
  if (notTaken > 0) parts.push(`${notTaken} row(s) failed (the service did not take them)`);
  if (maybeApplied > 0)
    parts.push(`${maybeApplied} row(s) failed after they were sent (no answer or a server error: the service may have applied them)`);
  if (unmatched > 0)
    parts.push(`${unmatched} row(s) unmatched (the answer could not be tied to the row: whether the service stored it is unknown)`);
  return parts.join('; ');
}

function describeProblem(p: RowResult<string>): string {
  return `line ${p.line}${p.id ? ` (${p.id})` : ''}: ${p.outcome}${p.status ? ` ${p.status}` : ''}${p.errorCode ? ` ${p.errorCode}` : ''}: ${p.message ?? ''}`;
}
