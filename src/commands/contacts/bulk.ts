/**
 * The --ids-file verbs (contacts delete|unsubscribe) as commands see them: read and decode the id
 * list, run it through the ids adapter on the bulk engine (importer/contact-ids.ts), and print the
 * summary, the report and the rejects file's closing line.
 */
import { createReadStream } from 'node:fs';
import { describeInvalid, InputDecoder, parseEncoding } from '../../bulk/decode.js';
import { InputError } from '../../bulk/errors.js';
import { type IdLine, lineEndOf, parseIdLines } from '../../bulk/id-source.js';
import { checkRunPaths } from '../../bulk/paths.js';
import { RejectsWriter } from '../../bulk/rejects.js';
import { openReport, type ReportWriter } from '../../bulk/report.js';
import type { Context } from '../../context.js';
import { EXIT, Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { createIdsRun, type DoneWord, dryRunIds, type IdsRunResult } from '../../importer/contact-ids.js';
import { formatLimit, ReadLimitError, readStreamCapped } from '../../util/read-capped.js';
import { checkRejectsOptions, type RejectsNote, rejectsNote, sayRejects } from '../bulk-rejects.js';

export type { IdLine } from '../../bulk/id-source.js';

/** The options every --ids-file verb takes for its input and outputs. */
export interface IdsFileOptions {
  report?: string;
  rejects?: string;
  rejectsIncludeFailed?: boolean;
  dryRun?: boolean;
  encoding?: string;
}

/** An id list read: its ids, and what a rejects file needs to write back in its format. */
export interface IdList {
  ids: IdLine[];
  encoding: string;
  lineEnd: '\n' | '\r\n';
}

/** An id or --ids-file, not both; the bulk options only with --ids-file. */
export function checkIdsFileUse(id: string | undefined, opts: IdsFileOptions & { idsFile?: string }): void {
  if (opts.idsFile !== undefined && id !== undefined) throw new UsageError('give either an id or --ids-file, not both');
  if (opts.idsFile !== undefined) return;
  for (const [flag, given] of [
    ['--report', opts.report],
    ['--rejects', opts.rejects],
    ['--dry-run', opts.dryRun],
  ] as const)
    if (given !== undefined) throw new UsageError(`${flag} goes with --ids-file`);
}

/** Reads the ids of an --ids-file (`-` = stdin; bulk/id-source.ts says which lines count). */
/**
 * The largest --ids-file read: some 2 million ids of a usual length, days of requests at four at a
 * time. The list is held whole, so `--ids-file /dev/zero` would otherwise fill memory.
 */
const IDS_FILE_LIMIT = 64 * 1024 * 1024;

export async function readIds(ctx: Context, file: string, opts: IdsFileOptions = {}): Promise<IdList> {
  checkRejectsOptions(opts);
  // Before anything is read or written: no output may be the ids file (or a link to it).
  const outputs = [];
  if (opts.report !== undefined) outputs.push({ what: '--report', path: opts.report });
  if (opts.rejects !== undefined) outputs.push({ what: '--rejects', path: opts.rejects });
  checkRunPaths(file === '-' ? [] : [{ what: '--ids-file', path: file }], outputs);
  const encoding = opts.encoding === undefined ? 'utf-8' : parseEncoding(opts.encoding);
  let bytes: Buffer;
  try {
    bytes = await readStreamCapped(file === '-' ? ctx.io.stdin : createReadStream(file), IDS_FILE_LIMIT);
  } catch (err) {
    const name = file === '-' ? 'stdin' : file;
    if (err instanceof ReadLimitError)
      throw new UsageError(
        `--ids-file ${name} is larger than ${formatLimit(IDS_FILE_LIMIT)}, read no further: that is millions of ids (or not an ids list)`,
        'split it (`split -l 1000000 ids.txt part-`) and run each part',
      );
    if (file === '-') throw err;
    const code = (err as { code?: string }).code;
    throw new UsageError(`cannot read --ids-file ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const decoder = new InputDecoder(encoding);
  const text = decoder.write(bytes) + decoder.end();
  const bad = decoder.invalid[0];
  // A mangled id would not be found (or, worse, be another contact's): refuse the file.
  if (bad) throw new InputError(`--ids-file ${file === '-' ? 'stdin' : file}: ${describeInvalid(bad)}`);
  // No ids (a pipeline that matched nobody) is nothing to do, as with `xargs -r`: see finishEmpty.
  return { ids: parseIdLines(text), encoding, lineEnd: lineEndOf(text) };
}

/** Runs `op` for every id on the bulk engine (the ids adapter), then ends the run as finishBulk says. */
export async function runIds(
  ctx: Context,
  list: IdList,
  op: (id: string, signal: AbortSignal) => Promise<unknown>,
  opts: IdsFileOptions,
  how: { doneWord: DoneWord; report?: ReportWriter<string>; reimport: ((file: string) => string) | 'dry-run' },
): Promise<number> {
  const rejects =
    opts.rejects === undefined
      ? undefined
      : new RejectsWriter(
          opts.rejects,
          { kind: 'ids', encoding: list.encoding, lineEnd: list.lineEnd },
          { includeFailed: opts.rejectsIncludeFailed === true },
        );
  const { doneWord, report } = how;
  if (opts.dryRun) return checkIds(ctx, list, { doneWord, report, rejects });
  const job = createIdsRun({
    ids: list.ids,
    doneWord,
    op,
    signal: ctx.signal,
    report,
    rejects,
    outage: { maxOutageMs: ctx.settings.maxOutageMs },
  });
  let result: IdsRunResult<DoneWord>;
  try {
    result = await job.run();
  } finally {
    report?.close({ complete: false });
    rejects?.close();
  }
  if (result.fatal !== undefined) throw result.fatal;
  if (result.failure !== undefined) throw result.failure;
  const note = rejects ? rejectsNote(rejects, how.reimport) : undefined;
  return finishBulk(ctx, result, { doneWord, report, total: list.ids.length, note });
}

/** --dry-run: every id checked, nothing sent; exit 4 when one would be rejected. */
function checkIds(ctx: Context, list: IdList, out: { doneWord: DoneWord; report?: ReportWriter<string>; rejects?: RejectsWriter }): number {
  let rejected: ReturnType<typeof dryRunIds>;
  try {
    rejected = dryRunIds(list.ids, out);
  } finally {
    out.report?.close({ complete: false });
    out.rejects?.close();
  }
  const note = out.rejects ? rejectsNote(out.rejects, 'dry-run') : undefined;
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
    ctx.out.info(`dry run: ${list.ids.length} id(s), ${valid} valid, ${rejected.length} rejected; nothing was ${out.doneWord}`);
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
export async function finishEmpty(
  ctx: Context,
  file: string,
  opts: { doneWord: DoneWord; report?: ReportWriter<string> },
): Promise<number> {
  if (!ctx.settings.json) ctx.out.info(`--ids-file ${file === '-' ? 'stdin' : file} holds no ids: nothing to do`);
  opts.report?.close();
  const summary = { rows: 0, [opts.doneWord]: 0, not_found: 0, rejected: 0, failed: 0 };
  if (ctx.settings.json) ctx.out.json(summary);
  else ctx.out.info(`rows 0  ${opts.doneWord} 0  not_found 0  rejected 0  failed 0${opts.report ? `  (report: ${opts.report.path})` : ''}`);
  return 0;
}

/**
 * Prints the summary (JSON on stdout with --json, lines on stderr otherwise) and ends the run:
 * exit 0, 4 when any id was rejected or failed (not_found is not an error: the contact is not
 * there either way), 130 when interrupted.
 */
function finishBulk(
  ctx: Context,
  result: IdsRunResult<DoneWord>,
  opts: { doneWord: DoneWord; report?: ReportWriter<string>; total: number; note?: RejectsNote },
): number {
  const s = result.summary as Record<string, number>;
  const done = s[opts.doneWord] ?? 0;
  const [rows, notFound, rejected, failed] = [s.rows ?? 0, s.not_found ?? 0, s.rejected ?? 0, s.failed ?? 0];
  const summary = { rows, [opts.doneWord]: done, not_found: notFound, rejected, failed };
  const reportPath = opts.report?.path;
  if (ctx.settings.json) ctx.out.json(opts.note ? { ...summary, ...opts.note.fields } : summary);
  else {
    const problems = result.notDone;
    for (const r of problems.slice(0, 20)) {
      ctx.out.info(`line ${r.line}: ${r.id}: ${r.outcome}${r.status ? ` (HTTP ${r.status})` : ''}${r.message ? `: ${r.message}` : ''}`);
    }
    if (problems.length > 20)
      ctx.out.info(`… and ${problems.length - 20} more${reportPath ? ` (see ${reportPath})` : ' (use --report FILE for all)'}`);
    ctx.out.info(
      `rows ${rows}  ${opts.doneWord} ${done}  not_found ${notFound}  rejected ${rejected}  failed ${failed}${reportPath ? `  (report: ${reportPath})` : ''}`,
    );
  }
  if (opts.note) sayRejects(ctx, opts.note);
  if (result.interrupted) throw new Interrupted(`interrupted after ${rows} of ${opts.total} ids`, 'run again with the remaining ids');
  if (rejected + failed > 0) throw new PartialFailure(`${rejected + failed} of ${rows} ids were not ${opts.doneWord}`);
  return 0;
}
