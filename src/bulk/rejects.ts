/**
 * The rejects file of a bulk run (`--rejects FILE`): the rows the service or the checks refused
 * (and with `--rejects-include-failed` the ones that failed), written back in the input's own
 * format so that they can be fixed in a spreadsheet or an editor and imported again as they are.
 *
 * - CSV: the input's header, delimiter, encoding (byte-order mark included) and line ends, each
 *   row's original cells untouched, then three trailing columns `error_field`, `error` and `line`
 *   (the row's line in the input), each prefixed `svc_` when the input has a column of that name.
 *   The CSV reader drops those trailing columns when such a file is imported (rejectsTrailer).
 * - NDJSON: each original line with an `_error` member added (`{"field","message","line"}`); the
 *   events reader ignores `_error`. A line that is not a JSON object is kept as `_line`.
 * - An id list: `id` header, one id per line, with the same trailing columns.
 *
 * Rows are written in input order whatever order they finish in; rows still held back when the
 * run stops early are written at close, in order. Prints nothing; throws InputError (the file
 * cannot be opened) and OutputError (a write failed).
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { TextDecoder } from 'node:util';
import { stringify } from 'csv-stringify/sync';
import { parseJson, stringifyJson } from '../contract/exact-json.js';
import { InputError, OutputError } from '../importer/errors.js';
import { toCsvCell } from '../util/csv-cell.js';
import type { RowResult } from './outcome.js';

/** A row as it was read, kept by its source for the rejects file. */
export type OriginalRow =
  /** CSV: the cells of each physical record of the row (an order with line items spans several). */
  | { cells: readonly (readonly string[])[] }
  /** NDJSON or an id list: the line's text, without its line end. */
  | { text: string };

/** The trailing columns of a rejects file, in order. */
export const REJECTS_COLUMNS = ['error_field', 'error', 'line'] as const;

/**
 * How many trailing columns of `header` are a rejects file's own (3 or 0): `error_field,error,line`
 * or the same prefixed `svc_`. The CSV reader drops them, so a fixed rejects file imports as the
 * original did.
 */
export function rejectsTrailer(header: readonly string[]): 0 | 3 {
  if (header.length < 4) return 0;
  const tail = header.slice(-3).map((h) => h.trim());
  const plain = REJECTS_COLUMNS.every((c, i) => tail[i] === c);
  const prefixed = REJECTS_COLUMNS.every((c, i) => tail[i] === `svc_${c}`);
  return plain || prefixed ? 3 : 0;
}

/** The trailing column names for a header: `svc_` before each name the header already has. */
export function rejectsColumns(header: readonly string[]): string[] {
  const names = new Set(header.map((h) => h.trim().toLowerCase()));
  return REJECTS_COLUMNS.map((c) => (names.has(c) ? `svc_${c}` : c));
}

/** Turns text into the bytes of `encoding`; characters it cannot hold become `?`. */
export function encoderFor(encoding: string, what: string): (text: string) => Buffer {
  if (encoding === 'utf-8') return (t) => Buffer.from(t, 'utf8');
  if (encoding === 'utf-16le') return (t) => Buffer.from(t, 'utf16le');
  // A single-byte encoding (windows-1252, iso-8859-15…): its table, read from the decoder.
  const decoder = new TextDecoder(encoding);
  const table = new Map<string, number>();
  for (let b = 0; b < 256; b++) {
    const ch = decoder.decode(Uint8Array.of(b));
    if (ch.length === 1 && ch !== '\uFFFD' && !table.has(ch)) table.set(ch, b);
  }
  if (table.size < 192)
    throw new InputError(
      `cannot write ${what} in ${encoding}: only UTF-8, UTF-16LE and single-byte encodings (windows-1252, iso-8859-*…) can be written back`,
      'convert the input to UTF-8 and import that',
    );
  return (t) => {
    const out = Buffer.allocUnsafe(t.length);
    let n = 0;
    for (const ch of t) out[n++] = table.get(ch) ?? 0x3f;
    return out.subarray(0, n);
  };
}

/** The format of the input the rejects are written in. */
export type RejectsFormat =
  | {
      kind: 'csv';
      /** The input's header cells as read (a rejects file's own trailing columns already dropped). */
      header: readonly string[];
      delimiter: string;
      encoding: string;
      bom: boolean;
      lineEnd: string;
    }
  | { kind: 'ndjson'; encoding: string; lineEnd: string }
  | { kind: 'ids'; encoding: string; lineEnd: string };

const FLUSH_BYTES = 64 * 1024;

/** Writes the rejected (and optionally failed) rows of a run, in input order, in the input's format. */
export class RejectsWriter {
  private readonly fd: number;
  private readonly encode: (text: string) => Buffer;
  private readonly pending = new Map<number, string | null>();
  private nextSeq = 1;
  private buffer: string[] = [];
  private bufferChars = 0;
  private closed = false;
  private readonly trailer: string[];
  /** Rows written (or held to be written). */
  count = 0;

  constructor(
    readonly path: string,
    private readonly format: RejectsFormat,
    private readonly opts: { includeFailed: boolean; what?: string } = { includeFailed: false },
  ) {
    const what = opts.what ?? '--rejects';
    this.encode = encoderFor(format.encoding, what);
    this.trailer = format.kind === 'csv' ? rejectsColumns(format.header) : format.kind === 'ids' ? [...REJECTS_COLUMNS] : [];
    try {
      this.fd = openSync(path, 'w', 0o644);
    } catch (err) {
      throw new InputError(`cannot write ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    let head = '';
    if (format.kind === 'csv') head = (format.bom ? '\uFEFF' : '') + this.csvLine([...format.header, ...this.trailer]);
    else if (format.kind === 'ids') head = this.csvLine(['id', ...this.trailer]);
    this.buffer.push(head);
    try {
      this.flush();
    } catch (err) {
      closeSync(this.fd);
      throw new InputError((err as Error).message);
    }
  }

  /** Whether a finished row goes to the file. */
  wants(outcome: string): boolean {
    return outcome === 'rejected' || (this.opts.includeFailed && outcome === 'failed');
  }

  /** Every finished row, in any order (`original` may be left out for rows that are not written). */
  add(result: RowResult<string>, original: OriginalRow | undefined): void {
    const text = this.wants(result.outcome) && original !== undefined ? this.render(result, original) : null;
    if (text !== null) this.count++;
    if (result.seq !== this.nextSeq) {
      this.pending.set(result.seq, text);
      return;
    }
    this.append(text, result.seq);
    for (let t = this.pending.get(this.nextSeq); t !== undefined; t = this.pending.get(this.nextSeq)) {
      this.pending.delete(this.nextSeq);
      this.append(t, this.nextSeq);
    }
  }

  private append(text: string | null, seq: number): void {
    this.nextSeq = seq + 1;
    if (text === null) return;
    this.buffer.push(text);
    this.bufferChars += text.length;
    if (this.bufferChars >= FLUSH_BYTES) this.flush();
  }

  private csvLine(cells: readonly string[]): string {
    const delimiter = this.format.kind === 'csv' ? this.format.delimiter : ',';
    return stringify([cells as string[]], { delimiter, record_delimiter: this.format.lineEnd });
  }

  private render(r: RowResult<string>, original: OriginalRow): string {
    const message = r.message ?? r.errorCode ?? r.outcome;
    if ('text' in original) {
      if (this.format.kind === 'ids')
        return this.csvLine([original.text, toCsvCell(r.errorField ?? ''), toCsvCell(message), String(r.line)]);
      return `${withError(original.text, { field: r.errorField ?? null, message, line: r.line })}${this.format.lineEnd}`;
    }
    const trailer = [toCsvCell(r.errorField ?? ''), toCsvCell(message), String(r.line)];
    // Every record of the row carries the error (an order's line items are fixed together).
    return original.cells.map((cells) => this.csvLine([...cells, ...trailer])).join('');
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.bufferChars = 0;
    try {
      writeSync(this.fd, this.encode(text));
    } catch (err) {
      throw new OutputError(this.opts.what ?? '--rejects', this.path, err);
    }
  }

  /** Writes the rows held back (a run stopped early leaves gaps), flushes and closes. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const seq of [...this.pending.keys()].sort((a, b) => a - b)) {
      const t = this.pending.get(seq);
      if (t) this.buffer.push(t);
    }
    this.pending.clear();
    try {
      this.flush();
      fsyncSync(this.fd);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (!(code === 'EINVAL' || code === 'ENOTSUP'))
        throw err instanceof OutputError ? err : new OutputError(this.opts.what ?? '--rejects', this.path, err);
    } finally {
      closeSync(this.fd);
    }
  }
}

/**
 * The NDJSON line with an `_error` member: the original text kept byte for byte up to its closing
 * brace (an earlier `_error` is replaced); a line that is not a JSON object is kept as `_line`.
 */
export function withError(text: string, error: { field: string | null; message: string; line: number }): string {
  let value: unknown;
  try {
    value = parseJson(text);
  } catch {
    value = undefined;
  }
  const member = `"_error":${JSON.stringify(error)}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `{"_line":${JSON.stringify(text)},${member}}`;
  if ('_error' in value) {
    const { _error, ...rest } = value as Record<string, unknown>;
    return stringifyJson({ ...rest, _error: error });
  }
  const end = text.lastIndexOf('}');
  const inner = text.slice(0, end).trimEnd();
  return `${inner}${inner.endsWith('{') ? '' : ','}${member}${text.slice(end)}`;
}
