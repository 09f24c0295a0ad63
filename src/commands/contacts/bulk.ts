/**
 * Many ids from a file (delete/unsubscribe --ids-file): read the ids, run one request per id
 * with a small bounded concurrency, count outcomes like the importer, write an optional report.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'csv-stringify/sync';
import { ApiError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../../client/errors.js';
import type { Context } from '../../context.js';
import { Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { escapeFormula } from '../../util/csv-cell.js';
import { readAll } from '../auth/shared.js';

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
export async function readIds(ctx: Context, file: string): Promise<IdLine[]> {
  let text: string;
  if (file === '-') text = await readAll(ctx.io.stdin);
  else {
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new UsageError(`cannot read --ids-file ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
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
  if (ids.length === 0) throw new UsageError(`--ids-file ${file} holds no ids`, 'give one contact id per line');
  return ids;
}

/** Classifies a failed request; authentication problems stop the whole run instead (exit 3). */
function classify(err: unknown): Omit<BulkRow, 'line' | 'id'> {
  if (err instanceof ApiError) {
    if (err.status === 404) return { outcome: 'not_found', status: 404, errorCode: err.code, message: 'no such contact' };
    if (err.status >= 400 && err.status < 500 && err.status !== 429) {
      const message = err.status === 422 ? 'suppressed by the system (compliance_suppressed); cannot be changed' : err.message;
      return { outcome: 'rejected', status: err.status, errorCode: err.code, message };
    }
    return { outcome: 'failed', status: err.status, errorCode: err.code, message: err.message };
  }
  if (err instanceof NetworkError) return { outcome: 'failed', errorCode: 'network_error', message: err.message };
  if (err instanceof RetryWaitTooLongError)
    return { outcome: 'failed', status: err.status, errorCode: 'retry_wait_too_long', message: err.message };
  return { outcome: 'failed', errorCode: 'unexpected', message: err instanceof Error ? err.message : String(err) };
}

function isFatal(err: unknown): boolean {
  return err instanceof MissingScopeError || (err instanceof ApiError && err.isAuthError);
}

/**
 * Runs `op` for every id with bounded concurrency, in file order as far as results go. Stops
 * launching new requests on Ctrl-C; what finished is still summarised.
 */
export async function runBulk(
  ctx: Context,
  ids: IdLine[],
  op: (id: string) => Promise<void>,
): Promise<{ rows: BulkRow[]; interrupted: boolean }> {
  const results: Array<BulkRow | undefined> = new Array(ids.length);
  let next = 0;
  let fatal: unknown;
  const worker = async () => {
    while (next < ids.length && !ctx.signal.aborted && fatal === undefined) {
      const i = next++;
      const item = ids[i] as IdLine;
      if (!ID_OK.test(item.id)) {
        results[i] = { ...item, outcome: 'rejected', errorCode: 'invalid_id', message: `invalid id ${JSON.stringify(item.id)}` };
        continue;
      }
      try {
        await op(item.id);
        results[i] = { ...item, outcome: 'done' };
      } catch (err) {
        if (isFatal(err)) {
          fatal ??= err;
          return;
        }
        if (ctx.signal.aborted && !(err instanceof ApiError)) return;
        results[i] = { ...item, ...classify(err) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BULK_CONCURRENCY, ids.length) }, worker));
  if (fatal !== undefined) throw fatal;
  return { rows: results.filter((r): r is BulkRow => r !== undefined), interrupted: ctx.signal.aborted };
}

export function summarise(rows: BulkRow[]): BulkSummary {
  const s: BulkSummary = { rows: rows.length, done: 0, not_found: 0, rejected: 0, failed: 0 };
  for (const r of rows) s[r.outcome]++;
  return s;
}

/** Writes `line,id,outcome,status,error_code,message` (like the importer's report). */
export async function writeReport(file: string, rows: BulkRow[], doneWord: string): Promise<void> {
  const records = [['line', 'id', 'outcome', 'status', 'error_code', 'message']];
  for (const r of rows) {
    records.push(
      [
        String(r.line),
        r.id,
        r.outcome === 'done' ? doneWord : r.outcome,
        r.status?.toString() ?? '',
        r.errorCode ?? '',
        r.message ?? '',
      ].map(escapeFormula),
    );
  }
  await writeFile(file, stringify(records, { record_delimiter: '\n' }));
}

/**
 * Prints the summary (JSON on stdout with --json, lines on stderr otherwise), writes the report,
 * and ends the run: exit 0, 4 when any id was rejected or failed (not_found is not an error:
 * the contact is not there either way), 130 when interrupted.
 */
export async function finishBulk(
  ctx: Context,
  result: { rows: BulkRow[]; interrupted: boolean },
  opts: { doneWord: 'deleted' | 'unsubscribed'; report?: string; total: number },
): Promise<number> {
  const s = summarise(result.rows);
  const summary = { rows: s.rows, [opts.doneWord]: s.done, not_found: s.not_found, rejected: s.rejected, failed: s.failed };
  if (opts.report) await writeReport(opts.report, result.rows, opts.doneWord);
  if (ctx.settings.json) ctx.out.json(summary);
  else {
    const problems = result.rows.filter((r) => r.outcome !== 'done');
    for (const r of problems.slice(0, 20)) {
      ctx.out.info(`line ${r.line}: ${r.id}: ${r.outcome}${r.status ? ` (HTTP ${r.status})` : ''}${r.message ? `: ${r.message}` : ''}`);
    }
    if (problems.length > 20)
      ctx.out.info(`… and ${problems.length - 20} more${opts.report ? ` (see ${opts.report})` : ' (use --report FILE for all)'}`);
    ctx.out.info(
      `rows ${s.rows}  ${opts.doneWord} ${s.done}  not_found ${s.not_found}  rejected ${s.rejected}  failed ${s.failed}${opts.report ? `  (report: ${opts.report})` : ''}`,
    );
  }
  if (result.interrupted) throw new Interrupted(`interrupted after ${s.rows} of ${opts.total} ids`, 'run again with the remaining ids');
  if (s.rejected + s.failed > 0) throw new PartialFailure(`${s.rejected + s.failed} of ${s.rows} ids were not ${opts.doneWord}`);
  return 0;
}
