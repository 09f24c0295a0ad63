/**
 * A CSV import (orders, contacts) handed to the bulk job (bulk/job.ts), with what the command
 * adds around it: the progress line while it runs, and the ending printed from its result
 * (bulk-finish.ts). A verb gives what differs: its journal identity, its report, its adapter,
 * its counts and summary, and the command that continues or re-imports.
 */
import {
  type BulkProgress,
  type BulkRunResult,
  type CsvSource,
  dryRunJob,
  fileFingerprint,
  type ImportInput,
  type ImportIoOptions,
  type JobOutputs,
  openCsvRejects,
  type RejectsWriter,
  type ReportWriter,
  runBulkJob,
  type Summary,
} from '../bulk/index.js';
import type { Context } from '../context.js';
import { EXIT } from '../errors.js';
import { shellQuote } from '../io/shell-quote.js';
import { endImport, importEnd } from './bulk-finish.js';
import { type RejectsNote, rejectsNote, sayRejects } from './bulk-rejects.js';
import { jobEnv } from './job-env.js';
import { showImportProgress } from './progress.js';

export async function runCsvImport<P extends BulkProgress & { bytesRead(): number }>(args: {
  ctx: Context;
  input: ImportInput;
  opts: ImportIoOptions;
  source: CsvSource;
  totalBytes: number | undefined;
  /** The journal's kind and the options that shape requests (a resume must match them). */
  identity: { kind: string; options: Record<string, unknown> };
  openReport: () => ReportWriter<string> | undefined;
  start: (outputs: JobOutputs) => { progress: P; run(): Promise<BulkRunResult> };
  counts: (s: Summary) => string;
  /** The command that continues this import (`resume`) or imports a fixed rejects file. */
  command: (file: string, resume: boolean) => string;
  printSummary: (progress: P, reportPath: string | undefined, interrupted: boolean, note?: RejectsNote) => void;
}): Promise<number> {
  const { ctx, input, opts } = args;
  const job = await runBulkJob({
    env: jobEnv(ctx),
    file: input.file,
    journalPath: input.journalPath,
    resume: opts.resume === true,
    identity: () => ({ kind: args.identity.kind, file: fileFingerprint(input.file), options: args.identity.options }),
    openReport: args.openReport,
    openRejects: () => openCsvRejects(opts, args.source),
    start: args.start,
    watch: (progress) =>
      showImportProgress(ctx, progress, args.totalBytes, () => args.counts(progress.summary), {
        file: input.resumable ? input.file : undefined,
      }),
    ended: importEnd,
    command: args.command,
  });
  return endImport(ctx, job, {
    fromStdin: input.fromStdin,
    printSummary: (reportPath, interrupted, note) => args.printSummary(job.progress, reportPath, interrupted, note),
  });
}

/**
 * The arguments every CSV import repeats in the command that continues it (`resume`: its outputs
 * too) or imports a fixed rejects file with the same options.
 */
export function importArgs(
  opts: ImportIoOptions & { defaultCountry?: string; delimiter?: string; concurrency?: number },
  resume: boolean,
): string[] {
  const parts: string[] = [];
  if (opts.defaultCountry) parts.push('--default-country', opts.defaultCountry);
  if (opts.delimiter) parts.push('--delimiter', shellQuote(opts.delimiter));
  if (opts.encoding) parts.push('--encoding', shellQuote(opts.encoding));
  if (opts.concurrency) parts.push('--concurrency', String(opts.concurrency));
  if (!resume) return parts;
  if (opts.report) parts.push('--report', shellQuote(opts.report));
  if (opts.rejects) parts.push('--rejects', shellQuote(opts.rejects));
  if (opts.rejectsIncludeFailed) parts.push('--rejects-include-failed');
  if (opts.journal) parts.push('--journal', shellQuote(opts.journal));
  return parts;
}

/**
 * A CSV import's --dry-run on the job (bulk/job.ts dryRunJob): the verb's check, its result
 * printed, then the rejects file named; exit 4 when a row would be rejected.
 */
export async function dryRunImport<R extends { summary: { rejected: number } }>(args: {
  ctx: Context;
  opts: ImportIoOptions;
  source: CsvSource;
  openReport: () => ReportWriter<string> | undefined;
  check: (report: ReportWriter<string> | undefined, rejects: RejectsWriter | undefined) => Promise<R>;
  print: (result: R) => void;
}): Promise<number> {
  const done = await dryRunJob({
    openReport: args.openReport,
    openRejects: () => openCsvRejects(args.opts, args.source),
    check: args.check,
  });
  args.print(done.result);
  if (done.rejects) sayRejects(args.ctx, rejectsNote(done.rejects, true));
  return done.result.summary.rejected > 0 ? EXIT.partial : EXIT.ok;
}
