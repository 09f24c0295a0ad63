/**
 * Many ids from a file (delete/unsubscribe --ids-file): read the ids, run one request per id on the
 * bulk engine (bounded concurrency, the one error classifier, the report writer), count outcomes.
 */
import { readFile } from 'node:fs/promises';
import { classifyError } from '../../bulk/classify.js';
import { describeInvalid, InputDecoder, parseEncoding } from '../../bulk/decode.js';
import { InputError } from '../../bulk/errors.js';
import { checkRunPaths } from '../../bulk/paths.js';
import { openReport, type ReportWriter } from '../../bulk/report.js';
import { createScheduler } from '../../bulk/scheduler.js';
import { ApiError, NetworkError, RetryWaitTooLongError } from '../../client/errors.js';
import type { Context } from '../../context.js';
import { Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { readAllBytes } from '../../io/read-all.js';

export interface IdLine {
  line: number;
  id: string;
}

/** Per-id outcome; `done` is the verb's success word (deleted, unsubscribed). */
export interface BulkRow {
  line: number;
  id: string;
  outcome: 'done' | 'not_found' | 'rejected' | 'failed';
  status?: number;
  errorCode?: string;
  message?: string;
}

export interface BulkSummary {
  rows: number;
  done: number;
  not_found: number;
  rejected: number;
  failed: number;
}

/** How many requests run at once: enough to be quick, few enough to stay polite. */
export const BULK_CONCURRENCY = 4;

const ID_OK = /^[^\s/?#]+$/;

/**
 * Reads ids, one per line (`-` = stdin). Blank lines and `#` comments are skipped, and so is a
 * header line `id`, so the first column of `svc contacts list --format csv` works as input; only
 * the first comma-separated field of a line is taken.
 */
export async function readIds(ctx: Context, file: string, opts: { report?: string; encoding?: string } = {}): Promise<IdLine[]> {
  // Before anything is read or written: the report must not be the ids file (or a link to it).
  checkRunPaths(
    file === '-' ? [] : [{ what: '--ids-file', path: file }],
    opts.report !== undefined ? [{ what: '--report', path: opts.report }] : [],
  );
  const encoding = opts.encoding === undefined ? 'utf-8' : parseEncoding(opts.encoding);
  let bytes: Buffer;
  if (file === '-') bytes = await readAllBytes(ctx.io.stdin);
  else {
    try {
      bytes = await readFile(file);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new UsageError(`cannot read --ids-file ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  const decoder = new InputDecoder(encoding);
  const text = decoder.write(bytes) + decoder.end();
  const bad = decoder.invalid[0];
  // A mangled id would not be found (or, worse, be another contact's): refuse the file.
  if (bad) throw new InputError(`--ids-file ${file === '-' ? 'stdin' : file}: ${describeInvalid(bad)}`);
  const ids: IdLine[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const first = (raw.split(',')[0] ?? '').trim().replace(/^"(.*)"$/, '$1');
      if (first === '' || first.startsWith('#')) return;
      if (ids.length === 0 && first.toLowerCase() === 'id') return;
      ids.push({ line: i + 1, id: first });
    });
  // No ids (a pipeline that matched nobody) is nothing to do, as with `xargs -r`: see finishEmpty.
  return ids;
}

/** A failed request's row; authentication problems stop the whole run instead (exit 3). */
function rowOfError(item: IdLine, err: unknown): BulkRow {
  const { scope, status } = classifyError(err);
  if (err instanceof ApiError) {
    if (err.status === 404) return { ...item, outcome: 'not_found', status: 404, errorCode: err.code, message: 'no such contact' };
    if (scope === 'row') {
      const message = err.status === 422 ? 'suppressed by the system (compliance_suppressed); cannot be changed' : err.message;
      return { ...item, outcome: 'rejected', status, errorCode: err.code, message };
    }
    return { ...item, outcome: 'failed', status, errorCode: err.code, message: err.message };
  }
  if (err instanceof NetworkError) return { ...item, outcome: 'failed', errorCode: 'network_error', message: err.message };
  if (err instanceof RetryWaitTooLongError)
    return { ...item, outcome: 'failed', status, errorCode: 'retry_wait_too_long', message: err.message };
  return { ...item, outcome: 'failed', errorCode: 'unexpected', message: err instanceof Error ? err.message : String(err) };
}

/**
 * Runs `op` for every id on the bulk engine (bounded concurrency), results in file order. Stops
 * launching new requests on Ctrl-C; what finished is still summarised.
 */
export async function runBulk(
  ctx: Context,
  ids: IdLine[],
  op: (id: string) => Promise<void>,
): Promise<{ rows: BulkRow[]; interrupted: boolean }> {
  const results: Array<BulkRow | undefined> = new Array(ids.length);
  const stop = new AbortController();
  let fatal: unknown;
  const scheduler = createScheduler<number, void>((i) => op((ids[i] as IdLine).id), {
    concurrency: BULK_CONCURRENCY,
    signal: AbortSignal.any([ctx.signal, stop.signal]),
  });
  const indexes = (async function* () {
    const batch: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const item = ids[i] as IdLine;
      if (ID_OK.test(item.id)) batch.push(i);
      else results[i] = { ...item, outcome: 'rejected', errorCode: 'invalid_id', message: `invalid id ${JSON.stringify(item.id)}` };
    }
    yield batch;
  })();
  await scheduler.runBatches(indexes, (i, settled) => {
    const item = ids[i] as IdLine;
    if (settled.ok) {
      results[i] = { ...item, outcome: 'done' };
      return;
    }
    if (classifyError(settled.error).scope === 'fatal') {
      fatal ??= settled.error;
      stop.abort();
      return;
    }
    if (ctx.signal.aborted && !(settled.error instanceof ApiError)) return;
    results[i] = rowOfError(item, settled.error);
  });
  if (fatal !== undefined) throw fatal;
  return { rows: results.filter((r): r is BulkRow => r !== undefined), interrupted: ctx.signal.aborted };
}

export function summarise(rows: BulkRow[]): BulkSummary {
  const s: BulkSummary = { rows: rows.length, done: 0, not_found: 0, rejected: 0, failed: 0 };
  for (const r of rows) s[r.outcome]++;
  return s;
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
  opts: { doneWord: 'deleted' | 'unsubscribed'; report?: ReportWriter<string> },
): Promise<number> {
  if (!ctx.settings.json) ctx.out.info(`--ids-file ${file === '-' ? 'stdin' : file} holds no ids: nothing to do`);
  return finishBulk(ctx, { rows: [], interrupted: false }, { ...opts, total: 0 });
}

/** Writes `line,id,outcome,status,error_code,message`, one line per id in file order. */
function writeReport(report: ReportWriter<string>, rows: BulkRow[], doneWord: string): void {
  rows.forEach((r, i) => {
    report.add({ ...r, seq: i + 1, outcome: r.outcome === 'done' ? doneWord : r.outcome });
  });
  report.close();
}

/**
 * Prints the summary (JSON on stdout with --json, lines on stderr otherwise), writes the report,
 * and ends the run: exit 0, 4 when any id was rejected or failed (not_found is not an error:
 * the contact is not there either way), 130 when interrupted.
 */
export async function finishBulk(
  ctx: Context,
  result: { rows: BulkRow[]; interrupted: boolean },
  opts: { doneWord: 'deleted' | 'unsubscribed'; report?: ReportWriter<string>; total: number },
): Promise<number> {
  const s = summarise(result.rows);
  const summary = { rows: s.rows, [opts.doneWord]: s.done, not_found: s.not_found, rejected: s.rejected, failed: s.failed };
  if (opts.report) writeReport(opts.report, result.rows, opts.doneWord);
  const reportPath = opts.report?.path;
  if (ctx.settings.json) ctx.out.json(summary);
  else {
    const problems = result.rows.filter((r) => r.outcome !== 'done');
    for (const r of problems.slice(0, 20)) {
      ctx.out.info(`line ${r.line}: ${r.id}: ${r.outcome}${r.status ? ` (HTTP ${r.status})` : ''}${r.message ? `: ${r.message}` : ''}`);
    }
    if (problems.length > 20)
      ctx.out.info(`… and ${problems.length - 20} more${reportPath ? ` (see ${reportPath})` : ' (use --report FILE for all)'}`);
    ctx.out.info(
      `rows ${s.rows}  ${opts.doneWord} ${s.done}  not_found ${s.not_found}  rejected ${s.rejected}  failed ${s.failed}${reportPath ? `  (report: ${reportPath})` : ''}`,
    );
  }
  if (result.interrupted) throw new Interrupted(`interrupted after ${s.rows} of ${opts.total} ids`, 'run again with the remaining ids');
  if (s.rejected + s.failed > 0) throw new PartialFailure(`${s.rejected + s.failed} of ${s.rows} ids were not ${opts.doneWord}`);
  return 0;
}
