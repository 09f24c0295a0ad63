/**
 * The bulk report (CSV) and summary counters, shared by `orders import` and `events send --file`.
 * Cells are escaped against spreadsheet formula injection with src/io/csv.ts, the same way as
 * `contacts list --format csv`; quoting is csv-stringify's.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from '../io/csv.js';

export const OUTCOMES = ['created', 'updated', 'unconfirmed', 'rejected', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome of one input row (or one order made of several lines). */
export interface RowResult<O extends string = Outcome> {
  /** Position among the rows (1-based, contiguous): the report's order. */
  seq: number;
  /** Physical line of the file where the row starts (1 = the header line). */
  line: number;
  /** The row's key (order_id, event_id…), empty when the row has none. */
  id: string;
  outcome: O;
  /** HTTP status when the service answered. */
  status?: number;
  /** The service's error code, or a client-side one (`invalid_row`, `network_error`…). */
  errorCode?: string;
  message?: string;
}

/** The contract's summary: the five outcomes add up to `rows`; `resumed` counts rows an earlier run finished. */
export interface Summary {
  rows: number;
  created: number;
  updated: number;
  unconfirmed: number;
  rejected: number;
  failed: number;
  resumed: number;
  /** Data lines, when several lines can form one row (orders with line items). */
  lines?: number;
}

export function emptySummary(): Summary {
  return { rows: 0, created: 0, updated: 0, unconfirmed: 0, rejected: 0, failed: 0, resumed: 0 };
}

/** Adds one finished row to the summary. */
export function countOutcome(summary: Summary, outcome: Outcome): void {
  summary.rows++;
  summary[outcome]++;
}

export function reportHeader(idColumn: string): string[] {
  return ['line', idColumn, 'outcome', 'status', 'error_code', 'message'];
}

/** The cells of one report line, escaped against formula injection. */
export function reportRecord(r: RowResult<string>): string[] {
  return [
    String(r.line),
    toCsvCell(r.id),
    r.outcome,
    r.status === undefined ? '' : String(r.status),
    toCsvCell(r.errorCode),
    toCsvCell(r.message),
  ];
}

const FLUSH_BYTES = 64 * 1024;

/** Writes report lines in input order to a file, whatever order the results arrive in. */
export class ReportWriter<O extends string = Outcome> {
  private readonly fd: number;
  private nextSeq = 1;
  private readonly pending = new Map<number, RowResult<O>>();
  private buffer: string[][] = [];
  private bufferBytes = 0;
  private closed = false;

  constructor(
    readonly path: string,
    idColumn: string,
  ) {
    this.fd = openSync(path, 'w', 0o644);
    this.buffer.push(reportHeader(idColumn));
  }

  /** Rows written so far (the contiguous prefix). */
  get written(): number {
    return this.nextSeq - 1;
  }

  add(result: RowResult<O>): void {
    if (result.seq !== this.nextSeq) {
      this.pending.set(result.seq, result);
      return;
    }
    this.append(result);
    for (let r = this.pending.get(this.nextSeq); r !== undefined; r = this.pending.get(this.nextSeq)) {
      this.pending.delete(r.seq);
      this.append(r);
    }
  }

  private append(r: RowResult<O>): void {
    const cells = reportRecord(r);
    this.buffer.push(cells);
    this.bufferBytes += cells.reduce((n, c) => n + c.length + 1, 0);
    this.nextSeq = r.seq + 1;
    if (this.bufferBytes >= FLUSH_BYTES) this.flush();
  }

  /** Writes what is buffered (the in-order prefix). */
  flush(): void {
    if (this.buffer.length === 0) return;
    writeSync(this.fd, stringify(this.buffer, { record_delimiter: '\n' }));
    this.buffer = [];
    this.bufferBytes = 0;
  }

  /**
   * Flushes and closes. With `complete`, every seq up to the last must have been added; after an
   * interruption (`complete` false) the report holds the finished prefix and is rewritten by --resume.
   */
  close(opts: { complete: boolean } = { complete: true }): void {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
    if (opts.complete && this.pending.size > 0) {
      const missing = this.nextSeq;
      throw new Error(`internal error: the report is missing row ${missing} (${this.pending.size} later rows held back)`);
    }
  }
}

export function openReport<O extends string = Outcome>(path: string, opts: { idColumn: string }): ReportWriter<O> {
  return new ReportWriter<O>(path, opts.idColumn);
}
