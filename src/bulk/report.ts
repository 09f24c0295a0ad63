/**
 * The bulk report: one CSV line per input row, in input order (`line,<id>,outcome,status,
 * error_code,message`; or several id columns, e.g. contacts' `line,email,phone,contact_id,…`),
 * whatever order the rows finish in. Cells are escaped against spreadsheet
 * formula injection (util/csv-cell.ts), the same way as `contacts list --format csv`; quoting is
 * csv-stringify's.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { InputError, OutputError } from '../importer/errors.js';
import { toCsvCell } from '../util/csv-cell.js';
import type { Outcome, RowResult } from './outcome.js';

/** The header: `line`, the id column(s), then the outcome columns. */
export function reportHeader(idColumns: string | readonly string[]): string[] {
  return ['line', ...(typeof idColumns === 'string' ? [idColumns] : idColumns), 'outcome', 'status', 'error_code', 'message'];
}

/** The cells of one report line, escaped against formula injection (`ids` when the report has several id columns). */
export function reportRecord(r: RowResult<string>): string[] {
  return [
    String(r.line),
    ...(r.ids === undefined ? [toCsvCell(r.id)] : r.ids.map((c) => toCsvCell(c))),
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

  /** Opens the file and writes the header at once, so that a file that cannot be written fails before any row is sent. */
  constructor(
    readonly path: string,
    idColumns: string | readonly string[],
    private readonly what = '--report',
  ) {
    try {
      this.fd = openSync(path, 'w', 0o644);
    } catch (err) {
      throw new InputError(`cannot write ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    this.buffer.push(reportHeader(idColumns));
    try {
      this.flush();
    } catch (err) {
      closeSync(this.fd);
      throw new InputError((err as Error).message);
    }
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
    const text = stringify(this.buffer, { record_delimiter: '\n' });
    this.buffer = [];
    this.bufferBytes = 0;
    try {
      writeSync(this.fd, text);
    } catch (err) {
      throw new OutputError(this.what, this.path, err);
    }
  }

  /**
   * Flushes and closes. With `complete`, every seq up to the last must have been added; after an
   * interruption (`complete` false) the report holds the finished prefix and is rewritten by --resume.
   */
  close(opts: { complete: boolean } = { complete: true }): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
      fsyncSync(this.fd);
    } catch (err) {
      // A device that takes no fsync (a pipe, /dev/null) has nothing to flush.
      const code = (err as NodeJS.ErrnoException).code;
      if (!(code === 'EINVAL' || code === 'ENOTSUP')) throw err instanceof OutputError ? err : new OutputError(this.what, this.path, err);
    } finally {
      closeSync(this.fd);
    }
    if (opts.complete && this.pending.size > 0) {
      const missing = this.nextSeq;
      throw new Error(`internal error: the report is missing row ${missing} (${this.pending.size} later rows held back)`);
    }
  }
}

export function openReport<O extends string = Outcome>(
  path: string,
  opts: { idColumn: string | readonly string[]; what?: string },
): ReportWriter<O> {
  return new ReportWriter<O>(path, opts.idColumn, opts.what);
}
