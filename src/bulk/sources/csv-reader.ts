/**
 * The CSV parser the reader (csv-source.ts) uses: Papa Parse through its documented streaming
 * entry, `Papa.parse(readable, { chunk })`, fed the decoded text piece by piece. Each record comes
 * out with the physical lines it spans; a quote never closed and a record over the size limit
 * come out as problems naming the line where the record starts.
 */
import { Readable } from 'node:stream';
import Papa, { type ParseError, type ParseResult, type Parser } from 'papaparse';

/** A record and the physical lines it spans (1 = the file's first line). */
export type ParsedRecord = { kind: 'record'; record: string[]; line: number; lastLine: number };

/** A record that could not be read. `lastLine` is the input's last line for an unclosed quote. */
export type RecordProblem = {
  kind: 'problem';
  code: 'unclosed_quote' | 'record_too_large' | 'csv_error';
  line: number;
  lastLine: number;
  message: string;
};

export type ParsedItem = ParsedRecord | RecordProblem;

/** Longest record the reader takes (characters): a longer one is nearly always an unclosed quote swallowing the file. */
export const MAX_RECORD_CHARS = 1024 * 1024;
/** The same, as a person reads it. */
export const MAX_RECORD_TEXT = '1 MiB';

export interface RecordReaderOptions {
  delimiter: string;
  /** The file's line end when known (sniff.ts detectLineEnd); else Papa Parse finds it. */
  newline?: '\n' | '\r\n';
  /** Longest record (characters): one that runs past it ends the reading. */
  maxRecordChars: number;
}

/**
 * Reads CSV text written to it with write(); take() hands out what is parsed so far, in order.
 *
 * Papa Parse parses each piece as it arrives and keeps the start of a record whose end has not
 * arrived yet. That start is the text written since the end of the last whole record (its
 * `meta.cursor`): when it grows past `maxRecordChars` the record is too large, the parse is
 * aborted and nothing more is read. So a line of any length costs time and memory bounded by the
 * limit, and the problem names the line the record starts on.
 */
export class CsvRecordReader {
  private readonly input = new Readable({ objectMode: true, read() {} });
  private readonly items: ParsedItem[] = [];
  private readonly maxRecordChars: number;
  /** The physical line the next record starts on. */
  private nextLine = 1;
  /** Characters Papa Parse has been given, and where its last whole record ended. */
  private given = 0;
  private cursor = 0;
  private handle: Parser | undefined;
  private finished = false;
  private readonly done: Promise<void>;
  private failure: Error | undefined;
  private waiters: Array<() => void> = [];
  /** A record ran past the limit: nothing after it is read. */
  oversized = false;

  constructor(options: RecordReaderOptions) {
    this.maxRecordChars = options.maxRecordChars;
    this.done = new Promise<void>((resolve) => {
      Papa.parse(this.input, {
        delimiter: options.delimiter,
        newline: options.newline,
        quoteChar: '"',
        escapeChar: '"',
        header: false,
        dynamicTyping: false,
        skipEmptyLines: false,
        chunk: (results: ParseResult<string[]>, parser: Parser) => {
          this.handle = parser;
          this.takeChunk(results);
        },
        complete: () => {
          this.finished = true;
          resolve();
          this.wake();
        },
        error: (err: Error) => {
          this.failure = err;
          resolve();
          this.wake();
        },
      });
      // After Papa Parse's own listener: the piece is parsed when this runs.
      this.input.on('data', (piece: string) => {
        this.given += piece.length;
        this.checkSize();
        this.wake();
      });
    });
  }

  /** Hands a piece of text to the parser; its records are at take() once parsed() resolves. */
  write(text: string): void {
    if (this.oversized || text === '') return;
    this.input.push(text);
  }

  /** Resolves when every piece written so far has been parsed (or the reading stopped). */
  parsed(): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = () => {
        if (this.settled() || this.oversized || this.given === this.written()) resolve();
        else this.waiters.push(check);
      };
      check();
    });
  }

  /** No more text: the last record is read (an unclosed quote becomes its problem). */
  async end(): Promise<void> {
    if (!this.oversized) this.input.push(null);
    if (this.oversized) return;
    await this.done;
    if (this.failure) throw this.failure;
  }

  /** The records and problems parsed so far, in file order (each handed out once). */
  take(): ParsedItem[] {
    return this.items.splice(0, this.items.length);
  }

  /** Records parsed and not taken yet. */
  get size(): number {
    return this.items.length;
  }

  /** Stops reading (the consumer went away). */
  stop(): void {
    this.handle?.abort();
    this.input.destroy();
    this.wake();
  }

  private settled(): boolean {
    return this.finished || this.failure !== undefined || this.input.destroyed;
  }

  private written(): number {
    return this.given + this.input.readableLength;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private takeChunk(results: ParseResult<string[]>): void {
    const errors = new Map<number, ParseError>();
    for (const e of results.errors) if (e.row !== undefined && !errors.has(e.row)) errors.set(e.row, e);
    const rows = results.data;
    // A file whose lines end with a bare CR (old Mac files) has CRs in its quoted cells too.
    const lineBreak = results.meta.linebreak === '\r' ? '\r' : '\n';
    // Only a chunk that moved on by more than the limit can hold a whole record over it (a long
    // line given in one piece, the header of a file read at once): its records are measured.
    const measure = results.meta.cursor - this.cursor > this.maxRecordChars;
    for (let i = 0; i < rows.length; i++) {
      const record = rows[i] as string[];
      if (measure && recordChars(record) > this.maxRecordChars) {
        this.cursor = this.given;
        this.checkSize(true);
        return;
      }
      const line = this.nextLine;
      const breaks = countLineBreaks(record, lineBreak);
      this.nextLine = line + breaks + 1;
      const error = errors.get(i);
      if (error === undefined) this.items.push({ kind: 'record', record, line, lastLine: line + breaks });
      else this.items.push(problemOf(error, line, line + breaks - (endsWithBreak(record, lineBreak) ? 1 : 0)));
    }
    this.cursor = results.meta.cursor;
  }

  private checkSize(whole = false): void {
    if (this.oversized || (!whole && this.given - this.cursor <= this.maxRecordChars)) return;
    this.oversized = true;
    const line = this.nextLine;
    this.items.push({
      kind: 'problem',
      code: 'record_too_large',
      line,
      lastLine: line,
      message: `the record starting on line ${line} is longer than ${this.maxRecordChars} characters`,
    });
    this.handle?.abort();
    this.input.destroy();
  }
}

/** A record's length in characters, its delimiters counted as one each. */
function recordChars(cells: string[]): number {
  let n = cells.length - 1;
  for (const c of cells) n += c.length;
  return n;
}

function problemOf(error: ParseError, line: number, lastLine: number): RecordProblem {
  if (error.code === 'MissingQuotes') return { kind: 'problem', code: 'unclosed_quote', line, lastLine, message: error.message };
  const what = error.code === 'InvalidQuotes' ? 'a quoted field goes on after its closing quote' : error.message;
  return { kind: 'problem', code: 'csv_error', line, lastLine, message: what };
}

/** Line breaks inside a record's cells (a quoted cell may hold them): the lines it spans, less one. */
export function countLineBreaks(cells: string[], lineBreak: '\n' | '\r' = '\n'): number {
  let n = 0;
  for (const c of cells) {
    for (let i = c.indexOf(lineBreak); i !== -1; i = c.indexOf(lineBreak, i + 1)) n++;
  }
  return n;
}

/** A record whose last cell runs to the input's end, its last line end included (an unclosed quote). */
function endsWithBreak(cells: string[], lineBreak: '\n' | '\r'): boolean {
  return cells.at(-1)?.endsWith(lineBreak) ?? false;
}
