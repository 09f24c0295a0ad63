/**
 * What the CSV import commands (`orders import`, `contacts import`) share around the bulk engine:
 * the input checks before anything is opened, the journal and report opening order, progress on
 * stderr, and the end of a run (report and journal closed, a fatal stop, a run failing mid-way,
 * an interruption, the rows in trouble, exit 4).
 */
import { existsSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { defaultJournalPath, Journal, JournalBusyError, type JournalIdentity, type ResumeState } from '../bulk/journal.js';
import { answeredBefore, type OutageOptions } from '../bulk/outage.js';
import { checkRunPaths, inputKind, type PathUse } from '../bulk/paths.js';
import { RejectsWriter } from '../bulk/rejects.js';
import type { ReportWriter } from '../bulk/report.js';
import type { BulkProgress } from '../bulk/run.js';
import { type CsvSource, openCsv } from '../bulk/sources/csv-source.js';
import { describeInvalid, findInvalidUtf8, type InputEncoding, parseEncoding } from '../bulk/sources/decode.js';
import { countDataLines } from '../bulk/sources/line-count.js';
import { describeMixedLineEnd, findMixedLineEnd, LINE_END_NAMES, type MixedLineEnd } from '../bulk/sources/line-ends.js';
import type { ApiClient } from '../client/types.js';
import type { Context } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { InputError } from '../importer/errors.js';
import { openInput } from '../util/open-input.js';
import { checkRejectsOptions, rejectsNote, sayRejects } from './bulk-rejects.js';
import { showProgress } from './progress.js';

export { printSummaryFields, type SummaryField } from './import-summary.js';

/** The options every bulk verb takes that concern its input and outputs. */
export interface ImportIoOptions {
  report?: string;
  rejects?: string;
  rejectsIncludeFailed?: boolean;
  dryRun?: boolean;
  /** --plan sends nothing either: no journal, as a dry run. */
  plan?: boolean;
  resume?: boolean;
  journal?: string;
  encoding?: string;
}

export interface ImportInput {
  file: string;
  fromStdin: boolean;
  /** A regular file: it can be read twice (fingerprint, resume) and keeps a journal. */
  resumable: boolean;
  encoding?: InputEncoding;
  journalPath?: string;
  /** orders or contacts: which header an empty input's message shows. */
  kind?: string;
}

/**
 * Checks the input and the outputs before anything is opened: the file exists and is not a
 * folder, --resume and --journal have a regular file, no output is the input or another output,
 * and a file that must be UTF-8 is (exit 2 naming the line otherwise).
 */
export async function checkImportInput(
  args: string[],
  opts: ImportIoOptions,
  ctx: Context,
  kind: string,
  example: string,
): Promise<ImportInput> {
  const file = args[0];
  if (!file) throw new UsageError('give the CSV file to import (or - for stdin)', example);
  // A socket cannot be opened by its path (ENXIO): as /dev/stdin (a service's socket activation,
  // `nc -l | …` in some shells) it is read as stdin; any other socket is refused.
  const socket = file !== '-' && existsSync(file) && statSync(file).isSocket();
  if (socket && !/^\/dev\/(stdin|fd\/0)$|^\/proc\/self\/fd\/0$/.test(file))
    throw new UsageError(
      `${file} is a socket: svc reads CSV from files, FIFOs and stdin`,
      'pipe it in: … | ' + example.replace(/ \S+\.csv/, ' -'),
    );
  const fromStdin = file === '-' || socket;
  if (!fromStdin) {
    if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
    if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a CSV file`);
  }
  checkRejectsOptions(opts);
  const journal = journalOf(file, fromStdin, 'the input', { ...opts, dryRun: opts.dryRun || opts.plan }, ctx, kind);
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  return { file, fromStdin, ...journal, encoding, kind };
}

/**
 * Whether a bulk verb's input can be resumed, and where its journal goes (none for stdin, a pipe
 * or device, or a dry run), after the checks of --resume and --journal every bulk verb makes.
 */
export function journalOf(
  file: string,
  fromStdin: boolean,
  what: string,
  opts: { resume?: boolean; journal?: string; dryRun?: boolean; report?: string },
  ctx: Context,
  kind: string,
): { resumable: boolean; journalPath?: string } {
  if (fromStdin && opts.resume)
    throw new UsageError('--resume needs a file: stdin cannot be read again', 'save the data to a file and run on that');
  if (opts.dryRun && opts.resume) throw new UsageError('--dry-run and --resume do not go together');
  // A pipe, FIFO or device can be read only once: it runs, but keeps no journal to resume.
  const resumable = !fromStdin && inputKind(file, what) === 'file';
  if (!fromStdin && !resumable && (opts.resume || opts.journal !== undefined)) {
    throw new UsageError(
      `${opts.resume ? '--resume' : '--journal'} needs a regular file: ${file} is a pipe or device, which cannot be read a second time`,
      'save the data to a file and run on that to be able to resume',
    );
  }
  const journalPath = resumable && !opts.dryRun ? (opts.journal ?? defaultJournalPath(file, opts.report, ctx.dataDir, kind)) : undefined;
  return { resumable, journalPath };
}

/** The journal among a run's outputs, and the checkRunPaths options that go with it. */
export function journalOutput(journalPath: string | undefined, opts: { journal?: string }): PathUse[] {
  return journalPath === undefined ? [] : [{ what: opts.journal !== undefined ? '--journal' : 'the journal', path: journalPath }];
}

/** checkRunPaths' options for the journal: its default folder is created, it must be a regular file. */
export const JOURNAL_PATH_RULES = { createFolders: ['the journal'], regularFiles: ['the journal', '--journal'] };

/** The CSV reader on the input: stdin, or the file (a FIFO read as it comes, a regular file by the thread pool). */
export async function openImportCsv(input: ImportInput, ctx: Context, delimiter: string | undefined): Promise<CsvSource> {
  const stream: Readable = input.fromStdin ? ctx.io.stdin : await openInput(input.file, { signal: ctx.signal, highWaterMark: 64 * 1024 });
  const name = input.fromStdin ? 'stdin' : input.file;
  const exampleHeader = input.kind === 'contacts' ? 'email,phone,first_name,last_name,email_consent' : undefined;
  const onMixedLineEnd = (m: MixedLineEnd) =>
    ctx.log.warn(
      `${name}: line ${m.line} ends with ${LINE_END_NAMES[m.found]} where the header line ends with ${LINE_END_NAMES[m.expected]}: each line is read as its own row, as written`,
    );
  return openCsv(stream, {
    delimiter,
    name,
    encoding: input.encoding,
    signal: ctx.signal,
    live: !input.resumable,
    exampleHeader,
    onMixedLineEnd,
  });
}

/** checkRunPaths for an import's input, report and journal, then the UTF-8 scan of a file (before anything is sent). */
export async function checkImportOutputs(input: ImportInput, opts: ImportIoOptions, ctx: Context): Promise<void> {
  const outputs: PathUse[] = [];
  if (opts.report !== undefined) outputs.push({ what: '--report', path: opts.report });
  if (opts.rejects !== undefined) outputs.push({ what: '--rejects', path: opts.rejects });
  outputs.push(...journalOutput(input.journalPath, opts));
  // The default journal's folder is created; one given with --journal must exist, as a report's must.
  checkRunPaths(input.fromStdin ? [] : [{ what: 'the input', path: input.file }], outputs, {
    ...JOURNAL_PATH_RULES,
    standard: ctx.io.standardFiles?.(),
  });
  if (input.resumable && (input.encoding ?? 'utf-8') === 'utf-8') {
    // Before anything is sent: bytes that are not UTF-8 would otherwise turn into U+FFFD and
    // merge different keys (a Latin-1 file's Müller-1 and Möller-1).
    const bad = await findInvalidUtf8(input.file, ctx.signal);
    if (bad) throw new InputError(`${input.file}: ${describeInvalid(bad)}`);
  }
  if (input.resumable && !/^utf-?16/i.test(input.encoding ?? '')) {
    const mixed = await findMixedLineEnd(input.file, ctx.signal);
    if (mixed)
      throw new InputError(
        describeMixedLineEnd(input.file, mixed),
        'give it one kind of line end first (e.g. `dos2unix FILE`, or save it again from the spreadsheet)',
      );
  }
}

/**
 * Opens the journal (new or resumed) and the report, in the order that keeps what exists safe:
 * the lock, then the report (another import of the file keeps its report; a report that cannot
 * be written leaves an earlier unfinished journal to resume), then the journal.
 */
export async function openJournalAndReport(args: {
  ctx: Context;
  journalPath: string | undefined;
  identity: () => JournalIdentity;
  resume: boolean;
  openReport: () => ReportWriter<string> | undefined;
}): Promise<{ journal?: Journal; resume?: ResumeState; report?: ReportWriter<string> }> {
  const { ctx, journalPath } = args;
  let journal: Journal | undefined;
  let resume: ResumeState | undefined;
  let report: ReportWriter<string> | undefined;
  if (journalPath) {
    // The address too: a resumed run knows whether the answers recorded came from where it sends now.
    const identity: JournalIdentity = { ...args.identity(), service: (await ctx.client()).baseUrl };
    if (args.resume) {
      const opened = await Journal.resume(
        journalPath,
        identity,
        'run with the options of the interrupted import, or without --resume to start over',
      );
      journal = opened.journal;
      resume = opened.state;
    } else {
      let unlock: () => void;
      try {
        unlock = Journal.lock(journalPath);
      } catch (err) {
        // Not another run, but a folder that takes no journal: when the report beside it is the
        // real problem (--report /proc/version), its own error says so.
        if (!(err instanceof JournalBusyError)) args.openReport()?.close({ complete: false });
        throw err;
      }
      try {
        report = args.openReport();
      } catch (err) {
        unlock();
        throw err;
      }
      if (Journal.exists(journalPath))
        ctx.log.warn(
          `starting over: the journal of an unfinished import at ${journalPath} is replaced (use --resume to continue it instead)`,
        );
      journal = await Journal.create(journalPath, identity, { locked: true });
    }
  }
  if (!report) {
    // Resuming (the journal was checked first, so a refused resume leaves the old report as it
    // was), or reading stdin (no journal).
    try {
      report = args.openReport();
    } catch (err) {
      await journal?.close().catch(() => undefined);
      throw err;
    }
  }
  return { journal, resume, report };
}

/**
 * The outage options of a live bulk run (bulk/outage.ts): --max-outage, and whether the address
 * is known to be the service's before a row's first answer: the journal being resumed records
 * answers from this address, else any HTTP answer the client has had or gets from it (a row's
 * retried 429 or 503, the token request, the route probe).
 */
export function outageOptions(
  ctx: Context,
  client: Pick<ApiClient, 'baseUrl' | 'serviceAnswered'>,
  resume: ResumeState | undefined,
): Pick<OutageOptions, 'maxOutageMs' | 'serviceKnown'> {
  return {
    maxOutageMs: ctx.settings.maxOutageMs,
    serviceKnown: answeredBefore(resume, client.baseUrl) || client.serviceAnswered(),
  };
}

/** The rejects file of a CSV import (--rejects), in the input's format; undefined without --rejects. */
export function openCsvRejects(opts: ImportIoOptions, source: CsvSource): RejectsWriter | undefined {
  if (opts.rejects === undefined) return undefined;
  return new RejectsWriter(
    opts.rejects,
    {
      kind: 'csv',
      header: source.headerCells,
      delimiter: source.delimiter,
      encoding: source.encoding,
      bom: source.bom,
      lineEnd: source.lineEnd,
    },
    { includeFailed: opts.rejectsIncludeFailed === true },
  );
}

/**
 * A CSV import's --dry-run around the verb's check: the report and the rejects file opened, the
 * check run, both closed, its result printed and the rejects file named; exit 4 when a row would
 * be rejected.
 */
export async function dryRunImport<R extends { summary: { rejected: number } }>(args: {
  ctx: Context;
  opts: ImportIoOptions;
  source: CsvSource;
  openReport: () => ReportWriter<string> | undefined;
  check: (report: ReportWriter<string> | undefined, rejects: RejectsWriter | undefined) => Promise<R>;
  print: (result: R) => void;
}): Promise<number> {
  const report = args.openReport();
  const rejects = openCsvRejects(args.opts, args.source);
  let result: R;
  try {
    result = await args.check(report, rejects);
  } finally {
    report?.close();
    rejects?.close();
  }
  args.print(result);
  if (rejects) sayRejects(args.ctx, rejectsNote(rejects, 'dry-run'));
  return result.summary.rejected > 0 ? EXIT.partial : EXIT.ok;
}

/**
 * Opens the rejects file after the journal and report (so another run's journal lock is met
 * first); when it cannot be opened, they are closed as they were (the journal kept to resume).
 */
export async function openRunRejects(
  opened: { journal?: Journal; report?: ReportWriter<string> },
  open: () => RejectsWriter | undefined,
): Promise<RejectsWriter | undefined> {
  try {
    return open();
  } catch (err) {
    opened.report?.close({ complete: false });
    await opened.journal?.close().catch(() => undefined);
    throw err;
  }
}

/**
 * A bulk run's progress (commands/progress.ts): rows, rate, share of the input read, ETA, the
 * outcome counts in words. `file`: a regular file whose rows can be counted for the plan.
 */
export function showImportProgress<O extends string>(
  ctx: Context,
  p: BulkProgress<O> & { bytesRead(): number },
  totalBytes: number | undefined,
  counts: () => string,
  words: { unit?: string; starting?: string; file?: string } = {},
): Promise<() => void> {
  const file = words.file;
  return showProgress(
    ctx,
    {
      done: () => p.summary.rows,
      resumed: () => p.summary.resumed,
      bytesRead: () => p.bytesRead(),
      rateLimited: () => p.rateLimited,
      counts,
      rowsRead: () => p.rowsRead,
      lastLine: () => p.lastLine,
      sentRate: () => p.sentRate(),
      inputDone: () => p.inputDone,
      pace: () => ({ rate: p.scheduler()?.pace, heldUntil: p.scheduler()?.heldUntil ?? 0 }),
      steadyWindow: () => p.scheduler()?.steadyWindow,
      outage: () => p.outage(),
    },
    {
      unit: words.unit ?? 'rows',
      totalBytes,
      starting: words.starting ?? 'importing…',
      countRows: file === undefined ? undefined : () => countDataLines(file),
    },
  );
}
