/**
 * The --ids-file verbs (contacts delete|unsubscribe) as commands see them: read and decode the id
 * list, run it through the ids adapter on the bulk engine (bulk/adapters/ids.ts) with what
 * every bulk verb has (journal and lock, --resume, --report, --rejects, --dry-run, the progress
 * line, the end of a run: bulk/job.ts, and commands/bulk-finish.ts), and print the verb's summary.
 */
import { existsSync } from 'node:fs';
import {
  type BulkProgress,
  checkJobPaths,
  checkRejectsOptions,
  createIdsRun,
  type DoneWord,
  describeInvalid,
  dryRunIds,
  dryRunJob,
  fileFingerprint,
  type IdCall,
  type IdLine,
  type IdOutcome,
  type ImportIoOptions,
  InputDecoder,
  journalOf,
  lineEndOf,
  openReport,
  outageOptions,
  parseEncoding,
  parseIdLines,
  RejectsWriter,
  type ReportWriter,
  runBulkJob,
} from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { EXIT, UsageError } from '../../errors.js';
import { InputError } from '../../importer/errors.js';
import { shellQuote } from '../../io/shell-quote.js';
import { formatLimit, isAbortError, ReadLimitError, readOptionInput } from '../../util/read-capped.js';
import { endImport, importEnd } from '../bulk-finish.js';
import { type RejectsNote, rejectsNote, sayRejects } from '../bulk-rejects.js';
import { jobEnv } from '../job-env.js';
import { showProgress } from '../progress.js';

export type { IdLine } from '../../bulk/index.js';

/** The options every --ids-file verb takes for its input and outputs: every bulk verb's. */
export type IdsFileOptions = ImportIoOptions;

/** An id list read: its ids, what a rejects file needs to write it back, and its journal. */
export interface IdList {
  file: string;
  fromStdin: boolean;
  ids: IdLine[];
  encoding: string;
  lineEnd: '\n' | '\r\n';
  /** Where the run's journal goes (a regular file, not a dry run). */
  journalPath?: string;
}

/** What sets one --ids-file verb apart: its words, its request, its journal identity, its command. */
export interface IdsVerb {
  doneWord: DoneWord;
  /** The journal's kind (`contacts-delete`…). */
  kind: string;
  /** The options that shape its requests (a resume must match them). */
  options: Record<string, unknown>;
  /** The verb's request for one id; `sentBefore`: an interrupted run may have sent it. */
  op: (id: string, call: IdCall, sentBefore: boolean) => Promise<unknown>;
  /** The command line for an id list (its own options after it, e.g. `--yes`). */
  command: string;
  /** Its options repeated in that command (`--legacy`, `--yes`). */
  flags: string[];
}

/** An id or --ids-file, not both; the bulk options only with --ids-file. */
export function checkIdsFileUse(id: string | undefined, opts: IdsFileOptions & { idsFile?: string }): void {
  if (opts.idsFile !== undefined && id !== undefined) throw new UsageError('give either an id or --ids-file, not both');
  if (opts.idsFile !== undefined) return;
  for (const [flag, given] of [
    ['--report', opts.report],
    ['--rejects', opts.rejects],
    ['--dry-run', opts.dryRun],
    ['--resume', opts.resume],
    ['--journal', opts.journal],
  ] as const)
    if (given !== undefined) throw new UsageError(`${flag} goes with --ids-file`);
}

/**
 * The largest --ids-file read: some 2 million ids of a usual length, days of requests at four at a
 * time. The list is held whole, so `--ids-file /dev/zero` would otherwise fill memory.
 */
const IDS_FILE_LIMIT = 64 * 1024 * 1024;

/**
 * Reads the ids of an --ids-file (`-` = stdin; bulk/sources/id-source.ts says which lines count). With
 * `kind`, a run that sends: --resume and --journal are checked and the journal's path chosen.
 */
export async function readIds(ctx: Context, file: string, opts: IdsFileOptions = {}, kind?: string): Promise<IdList> {
  checkRejectsOptions(opts);
  const fromStdin = file === '-';
  const journalPath = checkIdsPaths(jobEnv(ctx), file, opts, kind);
  const encoding = opts.encoding === undefined ? 'utf-8' : parseEncoding(opts.encoding);
  const bytes = await readIdsBytes(ctx, file);
  const decoder = new InputDecoder(encoding);
  const text = decoder.write(bytes) + decoder.end();
  const bad = decoder.invalid[0];
  // A mangled id would not be found (or, worse, be another contact's): refuse the file.
  if (bad) throw new InputError(`--ids-file ${fromStdin ? 'stdin' : file}: ${describeInvalid(bad)}`);
  // No ids (a pipeline that matched nobody) is nothing to do, as with `xargs -r`: see finishEmpty.
  return { file, fromStdin, ids: parseIdLines(text), encoding, lineEnd: lineEndOf(text), journalPath };
}

/**
 * The journal's path of a run that sends (`kind`), once no output is the ids file (or a link to
 * it) and --resume and --journal are checked; before anything is read or written.
 */
function checkIdsPaths(env: ReturnType<typeof jobEnv>, file: string, opts: IdsFileOptions, kind: string | undefined): string | undefined {
  const fromStdin = file === '-';
  const { journalPath } =
    kind !== undefined && (fromStdin || existsSync(file))
      ? journalOf(file, fromStdin, '--ids-file', opts, env, kind)
      : { journalPath: undefined };
  checkJobPaths(
    env,
    fromStdin ? undefined : { what: '--ids-file', path: file },
    [
      ['--report', opts.report],
      ['--rejects', opts.rejects],
    ],
    { path: journalPath, given: opts.journal },
  );
  return journalPath;
}

/** The bytes of the ids file (or stdin), with a usage error naming it when it cannot be read or is too large. */
async function readIdsBytes(ctx: Context, file: string): Promise<Buffer> {
  const fromStdin = file === '-';
  try {
    return await readOptionInput(file, ctx.io.stdin, IDS_FILE_LIMIT, ctx.signal);
  } catch (err) {
    if (isAbortError(err)) throw err;
    const name = fromStdin ? 'stdin' : file;
    if (err instanceof ReadLimitError)
      throw new UsageError(
        `--ids-file ${name} is larger than ${formatLimit(IDS_FILE_LIMIT)}, read no further: that is millions of ids (or not an ids list)`,
        'split it (`split -l 1000000 ids.txt part-`) and run each part',
      );
    if (fromStdin) throw err;
    const code = (err as { code?: string }).code;
    throw new UsageError(`cannot read --ids-file ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** The command that runs the verb on another id list (a fixed rejects file), or continues this one. */
function commandFor(verb: IdsVerb, file: string, list: IdList, opts: IdsFileOptions, resume: boolean): string {
  const parts = [verb.command, '--ids-file', shellQuote(file), ...verb.flags];
  if (opts.encoding && file === list.file) parts.push('--encoding', shellQuote(opts.encoding));
  if (resume) {
    parts.push('--resume');
    if (opts.report) parts.push('--report', shellQuote(opts.report));
    if (opts.rejects) parts.push('--rejects', shellQuote(opts.rejects));
    if (opts.rejectsIncludeFailed) parts.push('--rejects-include-failed');
    if (opts.journal) parts.push('--journal', shellQuote(opts.journal));
  }
  return parts.join(' ');
}

/** Runs the verb for every id on the bulk engine (the ids adapter), then ends the run as every bulk verb does. */
export async function runIds(ctx: Context, list: IdList, verb: IdsVerb, opts: IdsFileOptions): Promise<number> {
  const { doneWord } = verb;
  if (opts.dryRun) return checkIds(ctx, list, doneWord, opts);
  const env = jobEnv(ctx);
  const client = await ctx.client();
  let ids: ReturnType<typeof createIdsRun<DoneWord>> | undefined;
  const job = await runBulkJob({
    env,
    file: list.file,
    journalPath: list.journalPath,
    resume: opts.resume === true,
    openReport: () => openIdsReport(opts.report),
    openRejects: () => openIdsRejects(list, opts),
    identity: () => ({ kind: verb.kind, file: fileFingerprint(list.file), options: verb.options }),
    start: (outputs) => {
      const outage = outageOptions(env, client, outputs.resume);
      ids = createIdsRun({ ids: list.ids, doneWord, op: verb.op, signal: ctx.signal, ...outputs, outage });
      return ids;
    },
    watch: (p) => showIdsProgress(ctx, p, list.ids.length, doneWord),
    ended: importEnd,
    command: (f, resume) => commandFor(verb, f, list, opts, resume),
  });
  const counts = job.progress.summary as Record<string, number>;
  return endImport<IdOutcome<DoneWord>>(ctx, job, {
    fromStdin: list.fromStdin,
    listsProblems: true,
    printSummary: (reportPath, _interrupted, note) => printIdsSummary(ctx, ids?.notDone() ?? [], counts, { doneWord, reportPath, note }),
  });
}

/** The progress line of an --ids-file run: ids done of the list, the counts in words. */
function showIdsProgress(ctx: Context, p: BulkProgress<IdOutcome<DoneWord>>, total: number, doneWord: DoneWord): Promise<() => void> {
  const counts = p.summary as Record<string, number>;
  return showProgress(
    ctx,
    {
      done: () => p.summary.rows,
      resumed: () => p.summary.resumed,
      bytesRead: () => 0,
      rateLimited: () => p.rateLimited,
      rowsRead: () => total,
      inputDone: () => true,
      pace: () => ({ rate: p.scheduler()?.pace, heldUntil: p.scheduler()?.heldUntil ?? 0 }),
      outage: () => p.outage(),
      counts: () => `${counts[doneWord]} ${doneWord}, ${counts.not_found} not found, ${counts.rejected} rejected, ${counts.failed} failed`,
    },
    { unit: 'ids', totalBytes: undefined, starting: `${doneWord === 'deleted' ? 'deleting' : 'unsubscribing'} ${total} ids…` },
  );
}

function openIdsRejects(list: IdList, opts: IdsFileOptions): RejectsWriter | undefined {
  if (opts.rejects === undefined) return undefined;
  return new RejectsWriter(
    opts.rejects,
    { kind: 'ids', encoding: list.encoding, lineEnd: list.lineEnd },
    { includeFailed: opts.rejectsIncludeFailed === true },
  );
}

/** --dry-run: every id checked, nothing sent; exit 4 when one would be rejected. */
async function checkIds(ctx: Context, list: IdList, doneWord: DoneWord, opts: IdsFileOptions): Promise<number> {
  const done = await dryRunJob({
    openReport: () => openIdsReport(opts.report),
    openRejects: () => openIdsRejects(list, opts),
    reportComplete: false,
    check: (report, rejects) => dryRunIds(list.ids, { report, rejects }),
  });
  const rejected = done.result;
  const note = done.rejects ? rejectsNote(done.rejects, true) : undefined;
  const valid = list.ids.length - rejected.length;
  if (ctx.settings.json)
    ctx.out.json({
      dry_run: true,
      rows: list.ids.length,
      valid,
      rejected: rejected.length,
      rejected_lines: rejected.map((r) => r.line),
      ...(note ? note.fields : {}),
    });
  else {
    for (const r of rejected.slice(0, 20)) ctx.out.info(`line ${r.line}: ${r.id}: rejected: ${r.message ?? ''}`);
    ctx.out.info(`dry run: ${list.ids.length} id(s), ${valid} valid, ${rejected.length} rejected; nothing was ${doneWord}`);
    if (note) sayRejects(ctx, note);
  }
  return rejected.length > 0 ? EXIT.partial : EXIT.ok;
}

/**
 * Opens the --report of an --ids-file run before any request (its header is written at once, so
 * a file that cannot be written fails with exit 2 before anything is deleted or unsubscribed).
 */
export function openIdsReport(path: string | undefined): ReportWriter<string> | undefined {
  return path === undefined ? undefined : openReport<string>(path, { idColumn: 'id' });
}

/**
 * An --ids-file without ids (empty, or only a header, comments and blank lines): nothing is sent,
 * no confirmation is asked, the report holds its header, the summary says 0 rows, exit 0 — so
 * that `… | jq -r .id | svc contacts unsubscribe --ids-file -` is harmless when nothing matched.
 */
export async function finishEmpty(ctx: Context, file: string, opts: { doneWord: DoneWord; report?: string }): Promise<number> {
  const report = openIdsReport(opts.report);
  if (!ctx.settings.json) ctx.out.info(`--ids-file ${file === '-' ? 'stdin' : file} holds no ids: nothing to do`);
  report?.close();
  const summary = { rows: 0, [opts.doneWord]: 0, not_found: 0, rejected: 0, failed: 0 };
  if (ctx.settings.json) ctx.out.json(summary);
  else ctx.out.info(`rows 0  ${opts.doneWord} 0  not_found 0  rejected 0  failed 0${report ? `  (report: ${report.path})` : ''}`);
  return 0;
}

/** The first 20 ids not done, one line each, and how many more the report lists. */
function printProblemIds(
  ctx: Context,
  problems: Array<{ line: number; id: string; outcome: string; status?: number; message?: string }>,
  reportPath: string | undefined,
): void {
  for (const r of problems.slice(0, 20))
    ctx.out.info(`line ${r.line}: ${r.id}: ${r.outcome}${r.status ? ` (HTTP ${r.status})` : ''}${r.message ? `: ${r.message}` : ''}`);
  if (problems.length > 20)
    ctx.out.info(`… and ${problems.length - 20} more${reportPath ? ` (see ${reportPath})` : ' (use --report FILE for all)'}`);
}

/**
 * The summary (JSON on stdout with --json, the ids not done and a line on stderr otherwise): the
 * verb's counts, then `resumed` (beside them, as every bulk verb's) and the rejects file's fields.
 */
function printIdsSummary(
  ctx: Context,
  problems: Array<{ line: number; id: string; outcome: string; status?: number; message?: string }>,
  s: Record<string, number>,
  opts: { doneWord: DoneWord; reportPath?: string; note?: RejectsNote },
): void {
  const { doneWord, reportPath } = opts;
  const summary: Record<string, number> = {
    rows: s.rows ?? 0,
    [doneWord]: s[doneWord] ?? 0,
    not_found: s.not_found ?? 0,
    rejected: s.rejected ?? 0,
    failed: s.failed ?? 0,
    resumed: s.resumed ?? 0,
  };
  if (ctx.settings.json) {
    ctx.out.json(opts.note ? { ...summary, ...opts.note.fields } : summary);
    return;
  }
  printProblemIds(ctx, problems, reportPath);
  const resumed = summary.resumed ? `  resumed ${summary.resumed}` : '';
  ctx.out.info(
    `rows ${summary.rows}  ${doneWord} ${summary[doneWord]}  not_found ${summary.not_found}  rejected ${summary.rejected}  failed ${summary.failed}${resumed}${reportPath ? `  (report: ${reportPath})` : ''}`,
  );
}
