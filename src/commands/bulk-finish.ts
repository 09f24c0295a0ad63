/**
 * The end of an import or --ids-file run as the person sees it, from the job's result value
 * (bulk/job.ts closed the outputs and settled the journal): the summary, then the exit: a fatal
 * stop (its error, after how to resume), a run failing mid-way (exit 1 with how to go on), an
 * interruption (130), or rows rejected or failed (listed, exit 4).
 */
import type { BulkRunResult, JobResult, Outcome, RowResult, RunEnd, Summary } from '../bulk/index.js';
import type { Context } from '../context.js';
import { CliError, EXIT, Interrupted, PartialFailure } from '../errors.js';
import { type RejectsNote, rejectsNote, sayRejects } from './bulk-rejects.js';
import { reportHint } from './report-hint.js';

/**
 * Turns an import job's result (bulk/job.ts) into the command's exit: the summary printed, then a
 * fatal stop (its error, after how to resume), a run failing mid-way (exit 1 with the summary and
 * how to go on), an interruption (130), or rows rejected, failed or unmatched (listed, exit 4; the
 * journal kept for the failed and unmatched ones, which --resume sends again).
 */
export async function endImport<O extends string = Outcome>(
  ctx: Context,
  job: JobResult<unknown, BulkRunResult<O>>,
  args: {
    fromStdin: boolean;
    /** The summary lists the problem rows itself (they are not listed again after it). */
    listsProblems?: boolean;
    printSummary: (reportPath: string | undefined, interrupted: boolean, rejects?: RejectsNote) => void;
  },
): Promise<number> {
  const { result } = job;
  const note = job.rejects ? rejectsNote(job.rejects) : undefined;
  if (result.fatal !== undefined) throw fatalStop(ctx, job, result.fatal);
  if (job.status === 'failed') {
    // The run itself failed (a full disk for the report or journal, an unreadable input): what
    // was done is counted and saved; say so, then how to go on.
    args.printSummary(undefined, false, note);
    throw runFailed(job, `the import stopped after ${result.summary.rows} finished row(s)`, failedHint(job));
  }
  args.printSummary(job.reportPath, result.interrupted, note);
  if (note) sayRejects(ctx, note);
  if (result.interrupted) throw interrupted(job, args.fromStdin);
  if (job.status === 'problems') await problemRows(ctx, job, note, args.listsProblems === true);
  return EXIT.ok;
}

/** An error that stops every row: said with how to resume, then the error itself. */
function fatalStop(ctx: Context, job: JobResult<unknown, BulkRunResult<string>>, fatal: unknown): unknown {
  ctx.out.info(`stopped after ${job.result.summary.rows} row(s): every further row would fail the same way`);
  if (job.journalPath) ctx.out.info(`progress saved; once fixed, continue with: ${job.resumeCommand}`);
  return fatal;
}

function failedHint(job: { journalPath?: string; resumeCommand: string }): string {
  return job.journalPath
    ? `progress saved in ${job.journalPath}; once fixed, continue with: ${job.resumeCommand}`
    : 'the rows above were sent; a piped input cannot be resumed: import a file to be able to continue';
}

function interrupted(job: JobResult<unknown, BulkRunResult<string>>, fromStdin: boolean): Interrupted {
  const { journalPath } = job;
  return new Interrupted(
    `interrupted after ${job.result.summary.rows} finished row(s)${journalPath ? `; progress saved in ${journalPath}` : ''}`,
    journalPath
      ? `continue with: ${job.resumeCommand}`
      : `${fromStdin ? 'stdin' : 'a pipe or device'} cannot be resumed: import a file to be able to continue an interrupted run`,
  );
}

/** The run's own failure (a full disk, an outage longer than --max-outage) as exit 1. */
export function runFailed(job: { failure?: unknown }, said: string, hint: string | undefined): CliError {
  const failure = job.failure;
  const reason = failure instanceof Error ? failure.message : String(failure);
  const name = (failure as { name?: string } | undefined)?.name ?? '';
  return new CliError(`${said}: ${reason}`, {
    exitCode: EXIT.failure,
    code: ({ OutputError: 'output_error', OutageExceededError: 'service_unreachable' } as Record<string, string>)[name] ?? 'run_failed',
    hint,
    cause: failure,
  });
}

/** The rows rejected, failed or unmatched: listed on stderr (a few), then exit 4 saying how to go on. */
async function problemRows<O extends string>(
  ctx: Context,
  job: JobResult<unknown, BulkRunResult<O>>,
  note: RejectsNote | undefined,
  listsProblems: boolean,
): Promise<never> {
  const { result, journalPath, reportPath } = job;
  const s = result.summary as unknown as Summary;
  const unmatched = s.unmatched ?? 0;
  if (!ctx.settings.json && !listsProblems) await listProblems(ctx, result.problems, s.rejected + s.failed + unmatched);
  const rejectsHint = note && note.count > 0 ? `; the rows to fix are in ${note.path}` : '';
  const counts =
    unmatched > 0
      ? `${s.rejected} row(s) rejected, ${s.failed} failed and ${unmatched} unmatched`
      : `${s.rejected} row(s) rejected and ${s.failed} failed`;
  throw new PartialFailure(
    `${counts} out of ${s.rows}${reportPath ? `; see ${reportPath}` : ''}${rejectsHint}`,
    job.journalKept && journalPath
      ? `${sendAgainWhy(s.failed, result.failedMaybeApplied, unmatched)}; progress saved in ${journalPath}: send only those again with: ${job.resumeCommand}`
      : reportHint(result.problems as RowResult[], s, reportPath !== undefined || rejectsHint !== ''),
  );
}

/** The first problem rows on stderr, wrapped to the terminal, then how many more. */
async function listProblems(ctx: Context, problems: RowResult<string>[], total: number): Promise<void> {
  // Loaded here: string-width (its Intl.Segmenter and emoji expressions) costs some 0.1 s of
  // CPU to load, which every bulk run paid although only this listing measures text.
  const { stderrWidth, wrapHanging } = await import('../io/wrap.js');
  for (const p of problems) for (const line of wrapHanging(describeProblem(p), stderrWidth(ctx.io), '  ')) ctx.out.info(line);
  const more = total - problems.length;
  if (more > 0) ctx.out.info(`  … and ${more} more`);
}

/** What an import's result says about its end, for the job (bulk/job.ts). */
export function importEnd(result: BulkRunResult<string>): RunEnd {
  const s = result.summary as unknown as Summary;
  const unmatched = s.unmatched ?? 0;
  return {
    interrupted: result.interrupted,
    stoppedBy: result.fatal,
    failure: result.failure,
    sendAgain: s.failed + unmatched,
    problems: s.rejected + s.failed + unmatched,
  };
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
