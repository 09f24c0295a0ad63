/**
 * The bulk job: the whole life cycle every bulk verb (orders import, contacts import, events send
 * --file, the --ids-file verbs) runs through once its input is checked. The outputs opened in a
 * safe order (bulk/job-outputs.ts), the verb's adapter started on them, the run, the outputs
 * closed, the journal removed or kept, and the ending decided: a result value the command prints.
 * Prints nothing: the command passes its progress display in (`watch`) and reads the result.
 */
import type { JobEnv } from './job-env.js';
import { openAfter, openJournalAndReport } from './job-outputs.js';
import type { Journal, JournalIdentity, ResumeState } from './journal.js';
import type { RejectsWriter } from './rejects.js';
import type { ReportWriter } from './report.js';

/** The outputs a verb's adapter writes to. */
export interface JobOutputs {
  report?: ReportWriter<string>;
  rejects?: RejectsWriter;
  journal?: Journal;
  resume?: ResumeState;
  redact: (text: string) => string;
}

/** A verb's adapter started on the job's outputs: its progress (read while it runs) and its run. */
export interface StartedRun<P, R> {
  progress: P;
  run(): Promise<R>;
  /** Closes what the verb opened beside the job's outputs (its input, --unconfirmed-out). */
  close?(): void;
}

/** What a verb's result says about how its run ended. */
export interface RunEnd {
  interrupted: boolean;
  /** An error that stopped every row (the credentials, the scope, the proxy). */
  stoppedBy?: unknown;
  /** The run itself failed while going (an output not written, the input not read). */
  failure?: unknown;
  /** Rows the journal keeps for --resume to send again (failed, unmatched). */
  sendAgain: number;
  /** Rows rejected, failed or unmatched: the run ends with exit 4. */
  problems: number;
  /** Stopped before anything could have been stored: nothing to resume, the journal goes. */
  refused?: boolean;
  /** Whether the report is whole (default: the run completed). */
  reportComplete?: boolean;
}

/**
 * How the job ended, in the order a command answers: `failed` (the run's own failure),
 * `stopped` (`stoppedBy`), `interrupted`, `problems` (rows to look at) or `ok`.
 */
export type JobStatus = 'failed' | 'stopped' | 'interrupted' | 'problems' | 'ok';

/** One bulk verb's job, as its command describes it. */
export interface BulkJob<P, R> {
  env: JobEnv;
  /** The input as the continuing command names it. */
  file: string;
  /** Where the journal goes (none for stdin, a pipe or a dry run). */
  journalPath?: string;
  resume: boolean;
  /** The journal's kind, file and the options that shape requests (a resume must match them). */
  identity: () => Omit<JournalIdentity, 'service'>;
  openReport: () => ReportWriter<string> | undefined;
  openRejects: () => RejectsWriter | undefined;
  /** The verb's adapter on the outputs (it may open its input and further outputs here). */
  start: (outputs: JobOutputs) => StartedRun<P, R> | Promise<StartedRun<P, R>>;
  /** The command's progress display, shown while the run goes; returns how to stop it. */
  watch?: (progress: P) => Promise<() => void>;
  ended: (result: R) => RunEnd;
  /** The command that continues this run (`resume`) or sends another file (a fixed rejects file). */
  command: (file: string, resume: boolean) => string;
}

/** The result value of a job: what happened, what was written, and how to go on. */
export interface JobResult<P, R> {
  result: R;
  progress: P;
  end: RunEnd;
  status: JobStatus;
  /** Not interrupted, stopped nor failed, every output closed. */
  complete: boolean;
  /** The run's own failure, or an output that could not be closed. */
  failure?: unknown;
  /** The journal, kept for --resume (its path), or none (removed, or never kept). */
  journalKept?: string;
  journalPath?: string;
  /** The command that continues the run (meaningful with a journal). */
  resumeCommand: string;
  reportPath?: string;
  /** The rejects file written, and the command that sends it once fixed (when it holds rows). */
  rejects?: { path: string; count: number; reimportCommand?: string };
}

/** Closes an output; its error becomes the run's failure unless one is already known. */
function closing(failure: unknown, close: () => void): unknown {
  try {
    close();
  } catch (err) {
    return failure ?? err;
  }
  return failure;
}

function statusOf(end: RunEnd, failure: unknown): JobStatus {
  if (failure !== undefined && !end.interrupted) return 'failed';
  if (end.stoppedBy !== undefined) return 'stopped';
  if (end.interrupted) return 'interrupted';
  return end.problems > 0 ? 'problems' : 'ok';
}

/** Runs the started adapter; on a throw every output is closed as it was (the journal kept) and the error goes on. */
async function runOrClose<P, R>(started: StartedRun<P, R>, outputs: JobOutputs, stop: () => void): Promise<R> {
  try {
    return await started.run();
  } catch (err) {
    stop();
    started.close?.();
    await outputs.journal?.close().catch(() => undefined);
    outputs.report?.close({ complete: false });
    outputs.rejects?.close();
    throw err;
  }
}

/**
 * Runs a bulk job to its end: outputs opened (journal lock, report, journal, rejects), the verb
 * started on them, progress shown, the run, the outputs closed, the journal removed when nothing
 * is left to do (kept for failed rows, an interruption, a stop, a failure), and the result value.
 */
export async function runBulkJob<P, R>(job: BulkJob<P, R>): Promise<JobResult<P, R>> {
  const { env } = job;
  const opened = await openJournalAndReport({
    env,
    journalPath: job.journalPath,
    resume: job.resume,
    openReport: job.openReport,
    identity: job.identity,
  });
  const outputs: JobOutputs = { ...opened, redact: env.redact };
  outputs.rejects = await openAfter(opened, job.openRejects);
  const started = await openAfter(opened, async () => {
    try {
      return await job.start(outputs);
    } catch (err) {
      outputs.rejects?.close();
      throw err;
    }
  });
  const stop = (await job.watch?.(started.progress)) ?? (() => {});
  const result = await runOrClose(started, outputs, stop);
  stop();
  started.close?.();
  const end = job.ended(result);
  const complete = !end.interrupted && end.stoppedBy === undefined && end.failure === undefined;
  let failure = closing(end.failure, () => outputs.report?.close({ complete: end.reportComplete ?? complete }));
  failure = closing(failure, () => outputs.rejects?.close());
  const journalKept = await settleJournal(outputs.journal, job.journalPath, end, complete && failure === undefined, (err) => {
    failure ??= err;
  });
  return {
    result,
    progress: started.progress,
    end,
    status: statusOf(end, failure),
    complete: complete && failure === undefined,
    failure,
    journalKept,
    journalPath: job.journalPath,
    resumeCommand: job.command(job.file, true),
    reportPath: outputs.report?.path,
    rejects: rejectsOf(outputs.rejects, job.command),
  };
}

/** Removes the journal when nothing is left to do (or nothing was stored), else closes it to resume. */
async function settleJournal(
  journal: Journal | undefined,
  path: string | undefined,
  end: RunEnd,
  complete: boolean,
  failed: (err: unknown) => void,
): Promise<string | undefined> {
  if (!journal) return undefined;
  if (end.refused || (complete && end.sendAgain === 0)) {
    await journal.remove();
    return undefined;
  }
  await journal.close().catch(failed);
  return path;
}

function rejectsOf(
  rejects: RejectsWriter | undefined,
  command: (file: string, resume: boolean) => string,
): JobResult<unknown, unknown>['rejects'] {
  if (!rejects) return undefined;
  return { path: rejects.path, count: rejects.count, reimportCommand: rejects.count > 0 ? command(rejects.path, false) : undefined };
}

/**
 * A job's --dry-run: the report and the rejects file opened, the verb's check run on them, both
 * closed; nothing is sent and no journal kept.
 */
export async function dryRunJob<T>(args: {
  openReport: () => ReportWriter<string> | undefined;
  openRejects: () => RejectsWriter | undefined;
  /** Whether the report is complete after a check (the id lists' is not: nothing was done). */
  reportComplete?: boolean;
  check: (report: ReportWriter<string> | undefined, rejects: RejectsWriter | undefined) => Promise<T>;
}): Promise<{ result: T; rejects?: { path: string; count: number } }> {
  const report = args.openReport();
  const rejects = args.openRejects();
  let result: T;
  try {
    result = await args.check(report, rejects);
  } finally {
    report?.close(args.reportComplete === false ? { complete: false } : undefined);
    rejects?.close();
  }
  return { result, rejects: rejects ? { path: rejects.path, count: rejects.count } : undefined };
}
