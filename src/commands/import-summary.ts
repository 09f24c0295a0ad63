/**
 * The closing summary of a bulk command, printed one way for every verb: JSON with --json, a
 * record on a terminal, `name<TAB>value` lines otherwise.
 */
import { type BulkProgress, type OutcomeLines, rowsPerSecond } from '../bulk/index.js';
import type { Context } from '../context.js';
import type { RecordField } from '../io/output.js';
import type { RejectsNote } from './bulk-rejects.js';

/**
 * One count of a summary: name, value, how a terminal colours it (`good` always green, `warn`
 * yellow and `bad` red when not 0), and where a terminal shows it when not in order.
 */
export type SummaryField = [name: string, value: number, tone?: 'good' | 'warn' | 'bad', terminalPosition?: number];

/**
 * Prints a summary: JSON with --json (plus the line numbers of the unconfirmed, rejected and
 * failed rows, named as events send names them, those of the unmatched ones when there are any,
 * and `interrupted`), a record on a terminal, `name<TAB>value` lines otherwise.
 */
export function printSummaryFields(
  ctx: Context,
  given: SummaryField[],
  interrupted: boolean,
  lines?: OutcomeLines,
  rejects?: RejectsNote,
  progress?: BulkProgress,
  extra?: Record<string, unknown>,
): void {
  const fields = withUnmatched(given, progress);
  if (ctx.settings.json) {
    const doc = summaryDocument(fields, lines, rejects, progress, extra);
    ctx.out.json(interrupted ? { ...doc, interrupted: true } : doc);
  } else if (ctx.policy.humanStdout) {
    ctx.out.record(terminalRecord(ctx, fields));
  } else {
    ctx.out.stdout(`${fields.map(([k, v]) => `${k}\t${v}`).join('\n')}\n`);
  }
}

/** --json: the counts, the pace, the line numbers by outcome and the rejects file. */
function summaryDocument(
  fields: SummaryField[],
  lines: OutcomeLines | undefined,
  rejects: RejectsNote | undefined,
  progress: BulkProgress | undefined,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const doc: Record<string, unknown> = Object.fromEntries(fields.map(([k, v]) => [k, v]));
  if (extra) Object.assign(doc, extra);
  // The pace of the run: rows it finished (resumed ones excluded) per second, requests answered 429.
  if (progress) Object.assign(doc, { rows_per_second: rowsPerSecond(progress), rate_limited: progress.rateLimited });
  if (lines) {
    const sorted = (l: number[]) => [...l].sort((a, b) => a - b);
    doc.unconfirmed_lines = sorted(lines.unconfirmed);
    doc.rejected_lines = sorted(lines.rejected);
    doc.failed_lines = sorted(lines.failed);
    if (lines.unmatched.length > 0) doc.unmatched_lines = sorted(lines.unmatched);
  }
  if (rejects) Object.assign(doc, rejects.fields);
  return doc;
}

/** On a terminal: each count coloured by its tone, those with a position moved there. */
function terminalRecord(ctx: Context, fields: SummaryField[]): RecordField[] {
  const c = ctx.colors;
  // Styled after escaping (Output.record): a colour is never an escape sequence in the value.
  const shown = (k: string, v: number, tone: SummaryField[2]): RecordField => {
    if (tone === 'good') return [k, v, c.green];
    if (tone === 'warn' && v > 0) return [k, v, c.yellow];
    if (tone === 'bad' && v > 0) return [k, v, c.red];
    return [k, v];
  };
  const record: RecordField[] = [];
  for (const [k, v, tone, at] of fields) {
    if (at === undefined) record.push(shown(k, v, tone));
  }
  for (const [k, v, tone, at] of fields) {
    if (at !== undefined) record.splice(at, 0, shown(k, v, tone));
  }
  return record;
}

/**
 * The `unmatched` count (rows whose answer could not be tied to them), after `unconfirmed`, only
 * when a run had such rows: otherwise the summary is the contract's, its counts adding up to rows.
 */
function withUnmatched(fields: SummaryField[], progress: BulkProgress | undefined): SummaryField[] {
  const n = (progress?.summary as { unmatched?: number } | undefined)?.unmatched ?? 0;
  if (n === 0 || fields.some(([name]) => name === 'unmatched')) return fields;
  const at = fields.findIndex(([name]) => name === 'unconfirmed');
  const out = [...fields];
  out.splice(at < 0 ? out.length : at + 1, 0, ['unmatched', n, 'bad']);
  return out;
}
