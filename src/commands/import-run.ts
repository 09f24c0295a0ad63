/**
 * The send phase every CSV import shares, once its input, mapping and credentials are checked:
 * the journal (new or resumed, locked), the report and the rejects file opened in a safe order,
 * the verb's adapter started on them, the progress line, and the run's end (commands/bulk-finish.ts
 * finishImport). A verb gives what differs: its journal identity, its report, its adapter, its
 * counts and summary, and the command that continues or re-imports.
 */
import { fileFingerprint, type Journal, type ResumeState } from '../bulk/journal.js';
import type { Summary } from '../bulk/outcome.js';
import type { RejectsWriter } from '../bulk/rejects.js';
import type { ReportWriter } from '../bulk/report.js';
import type { BulkProgress, BulkRunResult } from '../bulk/run.js';
import type { CsvSource } from '../bulk/sources/csv-source.js';
import type { Context } from '../context.js';
import { shellQuote } from '../io/shell-quote.js';
import { finishImport } from './bulk-finish.js';
import {
  type ImportInput,
  type ImportIoOptions,
  openCsvRejects,
  openJournalAndReport,
  openRunRejects,
  showImportProgress,
} from './bulk-import.js';
import type { RejectsNote } from './bulk-rejects.js';

/** The outputs a verb's adapter writes to. */
export interface ImportOutputs {
  report?: ReportWriter<string>;
  rejects?: RejectsWriter;
  journal?: Journal;
  resume?: ResumeState;
  /** The run's redactor: what a row's answer said is masked before any output holds it. */
  redact: (text: string) => string;
}

export async function runCsvImport<P extends BulkProgress & { bytesRead(): number }>(args: {
  ctx: Context;
  input: ImportInput;
  opts: ImportIoOptions;
  source: CsvSource;
  totalBytes: number | undefined;
  /** The journal's kind and the options that shape requests (a resume must match them). */
  identity: { kind: string; options: Record<string, unknown> };
  openReport: () => ReportWriter<string> | undefined;
  start: (outputs: ImportOutputs) => { progress: P; run(): Promise<BulkRunResult> };
  counts: (s: Summary) => string;
  /** The command that continues this import (`resume`) or imports a fixed rejects file. */
  command: (file: string, resume: boolean) => string;
  printSummary: (progress: P, reportPath: string | undefined, interrupted: boolean, note?: RejectsNote) => void;
}): Promise<number> {
  const { ctx, input, opts } = args;
  const opened = await openJournalAndReport({
    ctx,
    journalPath: input.journalPath,
    resume: opts.resume === true,
    openReport: args.openReport,
    identity: () => ({ kind: args.identity.kind, file: fileFingerprint(input.file), options: args.identity.options }),
  });
  const { journal, resume, report } = opened;
  const rejects = await openRunRejects(opened, () => openCsvRejects(opts, args.source));
  const job = args.start({ report, rejects, journal, resume, redact: (text) => ctx.redactor.redact(text) });
  const stopProgress = await showImportProgress(ctx, job.progress, args.totalBytes, () => args.counts(job.progress.summary), {
    file: input.resumable ? input.file : undefined,
  });
  return finishImport({
    ctx,
    run: job.run,
    stopProgress,
    input,
    report,
    reportPath: opts.report,
    rejects,
    reimportCommand: (f) => args.command(f, false),
    journal,
    resumeCommand: args.command(input.file, true),
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
