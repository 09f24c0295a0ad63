/**
 * The dry run of every bulk verb: each row read and checked as the run would, nothing sent. A row
 * that cannot be sent is rejected (listed, in the report and the rejects file); the others are
 * `valid` in the report. People or keys on several lines are collected when the verb names them.
 */
import { emptySummary, type Outcome, type RowResult, type Summary } from './outcome.js';
import type { RejectsWriter } from './rejects.js';
import type { ReportWriter } from './report.js';
import { rejectedRow, type WorkItem } from './run.js';

/** What a dry run counts: the contract's summary plus the rows that would be sent. */
export type DryRunSummary = Summary & { valid: number };

/** What a dry run found: the counts, the rejected rows (input order), and keys on several lines. */
export interface DryRunResult {
  summary: DryRunSummary;
  rejected: RowResult<Outcome>[];
  /** Each key (keyOf) found on more than one row, with those rows' lines, in the order first seen. */
  duplicates: Array<{ key: string; lines: number[] }>;
}

/** The outputs and the verb's part of a dry run. */
export interface DryRunOptions<W extends WorkItem> {
  report?: ReportWriter<string>;
  rejects?: RejectsWriter;
  /** The row's keys: rows sharing one are listed as duplicates. */
  keyOf?: (work: W) => string | readonly string[] | undefined;
  /** Count `lines` in the summary (rows that span several lines). */
  countLines?: boolean;
  /** Called for every row read (a verb's own figures). */
  each?: (work: W) => void;
  /** The report line of a valid row (default: `valid`, "would be sent", the row's id). */
  wouldSend?: (work: W) => RowResult<string>;
}

/** Reads and checks every row without sending. Memory grows with the number of distinct keys. */
export async function dryRunRows<W extends WorkItem>(
  rows: AsyncIterable<readonly W[]> | Iterable<readonly W[]>,
  opts: DryRunOptions<W>,
): Promise<DryRunResult> {
  const summary: DryRunSummary = { ...emptySummary(), valid: 0 };
  if (opts.countLines) summary.lines = 0;
  const seen = new Map<string, number[]>();
  const rejected: RowResult<Outcome>[] = [];
  for await (const batch of rows) {
    for (const work of batch) {
      opts.each?.(work);
      summary.rows++;
      if (summary.lines !== undefined) summary.lines += work.lines;
      noteKeys(seen, opts.keyOf?.(work), work.line);
      if (work.problem) {
        summary.rejected++;
        const r = rejectedRow(work, work.problem);
        rejected.push(r);
        opts.report?.add(r);
        opts.rejects?.add(r, work.original);
      } else {
        summary.valid++;
        const r = opts.wouldSend?.(work) ?? { seq: work.seq, line: work.line, id: work.id, outcome: 'valid', message: 'would be sent' };
        opts.report?.add(r);
        opts.rejects?.add(r, undefined);
      }
    }
  }
  const duplicates = [...seen].filter(([, l]) => l.length > 1).map(([key, lines]) => ({ key, lines }));
  return { summary, rejected, duplicates };
}

/** Notes the line under each of the row's keys (an empty key is none). */
function noteKeys(seen: Map<string, number[]>, keys: string | readonly string[] | undefined, line: number): void {
  if (typeof keys === 'string') noteKey(seen, keys, line);
  else if (keys !== undefined) for (const key of keys) noteKey(seen, key, line);
}

function noteKey(seen: Map<string, number[]>, key: string, line: number): void {
  if (!key) return;
  const lines = seen.get(key);
  if (lines) lines.push(line);
  else seen.set(key, [line]);
}
