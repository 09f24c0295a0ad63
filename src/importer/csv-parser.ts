/** csv-parse's stream parser as the CSV reader (csv-source.ts) uses it: records with their physical line. */
import { StringDecoder } from 'node:string_decoder';
import { Parser } from 'csv-parse';

/** A record and the parser's line count when it was complete (the physical line it ends on). */
export type ParsedRecord = { record: string[]; lines: number };

export type LineCountingOptions = ConstructorParameters<typeof Parser>[0] & {
  /**
   * The file's line end, as the header line ends (sniff.ts detectLineEnd): turns on the path for
   * lines without a quote (below). Without it every character goes through csv-parse.
   */
  lineEnd?: '\n' | '\r\n';
};

/**
 * csv-parse's stream parser, pushing each record with its physical line (csv-parse's documented
 * `info.lines` counter, corrected for the lines it did not see or that were added for it).
 *
 * **Lines without a quote** (and lines whose quotes only wrap whole cells: splitQuoted).
 * csv-parse reads character by character (some 10 µs for a line of
 * Shopify's 79 columns). A line that holds no quote character and no carriage return or line feed
 * other than its own line end is, for csv-parse with these options, nothing but its cells between
 * the delimiters: `line.split(delimiter)`, an empty line skipped. With `lineEnd` given, such lines
 * are split here whenever csv-parse stands between two records; every other line (a quote, a stray
 * CR, a record that spans lines, a line too long) goes to csv-parse, one line at a time until it
 * stands between records again, so quoting, errors and line counts stay csv-parse's own.
 * test/importer/csv-parser.test.ts checks both give the same records, lines and errors. What it
 * reads of csv-parse (`state.quoting`, `state.stop`, `state.field`) is undocumented: csv-parse is
 * pinned to an exact version in package.json, and the same test file fails when those change shape.
 */
export class LineCountingParser extends Parser {
  /** The physical line is csv-parse's `info.lines` plus this (lines split here, less lines added). */
  private lineOffset = 0;
  private readonly lineEnd: '\n' | '\r\n' | undefined;
  private readonly delimiterText: string;
  /** Longest line (characters) split here: longer ones go to csv-parse, which knows its size limit. */
  private readonly maxPlainChars: number;
  /** csv-parse holds no part of a record: the next line may be split here. */
  private betweenRecords = false;
  /** The start of a line whose end has not arrived yet (waiting between records). */
  private carry = '';
  private decoder: StringDecoder | undefined;
  /** csv-parse met a record over its size limit: it reads the rest alone. */
  private broken = false;
  declare state: { quoting: boolean; stop: boolean; field?: FieldBuffer };

  constructor(options: LineCountingOptions = {}) {
    const { lineEnd, ...rest } = options;
    const delimiter = rest.delimiter;
    const plain =
      lineEnd !== undefined && typeof delimiter === 'string' && delimiter !== '' && !/["\r\n]/.test(delimiter) && rest.quote === undefined;
    // Strings reach _transform as written (Writable's decodeStrings off): lines are split as text.
    super(plain ? ({ ...rest, record_delimiter: lineEnd, decodeStrings: false } as typeof rest) : rest);
    this.lineEnd = plain ? lineEnd : undefined;
    this.delimiterText = typeof delimiter === 'string' ? delimiter : ',';
    const max = rest.max_record_size;
    this.maxPlainChars = typeof max === 'number' && max > 0 ? Math.floor(max / 3) : Number.POSITIVE_INFINITY;
    decodeFieldsInPlace(this.state.field);
    // Registered before any other listener: errors name physical lines too. After a record over
    // the size limit csv-parse cannot go on (csv-source stops there): it gets the rest as it is.
    this.on('skip', (err: { lines?: unknown; message?: unknown; code?: unknown }) => {
      const offset = this.lineOffset;
      if (err.code === 'CSV_MAX_RECORD_SIZE') this.broken = true;
      if (offset === 0) return;
      if (typeof err.lines === 'number') err.lines += offset;
      if (typeof err.message === 'string')
        err.message = err.message.replace(/\bline (\d+)/g, (_, n: string) => `line ${Number(n) + offset}`);
    });
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null);
    const lined: ParsedRecord = { record: chunk as string[], lines: this.info.lines + this.lineOffset };
    return super.push(lined, encoding);
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.lineEnd === undefined) {
      super._transform(chunk, encoding, callback);
      return;
    }
    if (this.state.stop) return;
    if (typeof chunk !== 'string') this.decoder ??= new StringDecoder('utf8');
    const text = typeof chunk === 'string' ? chunk : (this.decoder as StringDecoder).write(chunk);
    const all = this.carry === '' ? text : this.carry + text;
    this.carry = '';
    callback(this.readText(all, false));
  }

  override _flush(callback: (error?: Error | null) => void): void {
    if (this.lineEnd !== undefined) {
      const rest = this.carry + (this.decoder?.end() ?? '');
      this.carry = '';
      const err = rest === '' ? undefined : this.readText(rest, true);
      if (err !== undefined) {
        callback(err);
        return;
      }
    }
    super._flush(callback);
  }

  /**
   * Reads `text`: lines without a quote split here while between records, the others handed to
   * csv-parse line by line. A last line without its end waits for the next text (`atEnd`: it is
   * the input's last line).
   */
  private readText(text: string, atEnd: boolean): Error | undefined {
    const crlf = this.lineEnd === '\r\n';
    const delimiter = this.delimiterText;
    let at = 0;
    let quote = -2;
    let cr = -2;
    while (at < text.length) {
      if (this.broken) return this.toCsvParse(text.slice(at));
      let nl = text.indexOf('\n', at);
      if (nl === -1) {
        if (!this.betweenRecords) return this.toCsvParse(text.slice(at));
        if (!atEnd) {
          this.carry = text.slice(at);
          return undefined;
        }
        nl = text.length; // the input's last line, without a line end
      }
      if (this.betweenRecords) {
        if (quote !== -1 && quote < at) quote = text.indexOf('"', at);
        if (cr !== -1 && cr < at) cr = text.indexOf('\r', at);
        const lastLine = nl === text.length;
        // Where the line's own characters end, and whether its only CR is that of its line end.
        const end = crlf && !lastLine ? nl - 1 : nl;
        const crOk = crlf && !lastLine ? end >= at && cr === end : cr === -1 || cr > nl;
        if (crOk && end - at <= this.maxPlainChars) {
          const plain = quote === -1 || quote > nl;
          const cells = plain ? (end > at ? text.slice(at, end).split(delimiter) : undefined) : splitQuoted(text.slice(at, end), delimiter);
          if (plain || cells !== undefined) {
            if (cells !== undefined) super.push({ record: cells, lines: this.info.lines + this.lineOffset + 1 });
            this.lineOffset++;
            at = nl + 1;
            continue;
          }
        }
        this.betweenRecords = false;
      }
      const start = at;
      at = Math.min(nl + 1, text.length);
      const err = this.toCsvParse(text.slice(start, at));
      if (err !== undefined) return err;
      // csv-parse holds a line end until it sees the next character; outside a quote that line end
      // is all it holds. A line end added now lets it finish the record, and is an empty line to it.
      const endsLine = nl < text.length && (!crlf || (nl > start && text.charCodeAt(nl - 1) === 13));
      if (endsLine && !this.state.quoting && !this.state.stop) {
        const added = this.toCsvParse(this.lineEnd as string);
        this.lineOffset--;
        if (added !== undefined) return added;
        this.betweenRecords = true;
      }
    }
    return undefined;
  }

  private toCsvParse(text: string): Error | undefined {
    let failure: Error | undefined;
    super._transform(Buffer.from(text), 'utf8', (err) => {
      failure = err ?? undefined;
    });
    return failure;
  }

  /**
   * csv-parse acts on a line end only once it has seen the character after it (it could be the
   * start of a longer delimiter), so on a live input (a terminal, a pipe) the last line typed
   * would wait for the next one. When the input is idle, the parser has taken every write and is
   * not inside a quoted field, a blank line (skipped, and not counted in line numbers) lets it
   * act on the line end it holds. With `lineEnd` nothing is ever held that way (see readText()).
   */
  flushHeld(eol: string): boolean {
    if (this.lineEnd !== undefined) return false;
    if (this.destroyed || this.writableLength > 0 || this.state.quoting) return false;
    this.write(eol);
    this.lineOffset--;
    return true;
  }
}
/**
 * The cells of a line with quotes, when each quote opens or closes a whole cell (`"…"` from the
 * delimiter before it to the one after it, no quote inside: no `""`), as csv-parse reads them:
 * such a cell is its text between the quotes, delimiters included. Anything else (a quote inside
 * an unquoted cell, `""`, text or a space beside a quote, a quoted cell that goes on to the next
 * line, a line of one cell) is undefined: csv-parse reads that line. Shops quote their text cells
 * (BigCommerce's packed `Product Details`, WooCommerce's names and notes): most such lines.
 */
function splitQuoted(line: string, delimiter: string): string[] | undefined {
  const cells: string[] = [];
  let at = 0;
  for (;;) {
    let next: number;
    if (line.charCodeAt(at) === 34 /* " */) {
      const close = line.indexOf('"', at + 1);
      if (close === -1) return undefined;
      next = close + 1;
      if (next < line.length && !line.startsWith(delimiter, next)) return undefined;
      cells.push(line.slice(at + 1, close));
    } else {
      const found = line.indexOf(delimiter, at);
      next = found === -1 ? line.length : found;
      const cell = line.slice(at, next);
      if (cell.includes('"')) return undefined;
      cells.push(cell);
    }
    if (next >= line.length) return cells.length < 2 ? undefined : cells;
    at = next + delimiter.length;
  }
}

/** csv-parse's buffer of the field being read (its ResizeableBuffer). */
interface FieldBuffer {
  buf?: unknown;
  length?: unknown;
  toString(encoding?: BufferEncoding): unknown;
}

/**
 * csv-parse turns every field into a string with `buf.slice(0, length).toString(encoding)`: a
 * Buffer view allocated per field, empty ones included. On a wide export (Shopify's 79 columns,
 * most of them empty) those views were over a third of the bytes an import allocated
 * (docs/performance.md). The same string comes from `buf.toString(encoding, 0, length)` without
 * the view, and an empty field is ''. Only this parser's own buffer is changed, and only when it
 * has the shape expected (any other csv-parse keeps its own method); without an encoding
 * (csv-parse's byte-order-mark check) the original method answers.
 */
function decodeFieldsInPlace(field: FieldBuffer | undefined): void {
  if (field === undefined || typeof field.toString !== 'function' || !Buffer.isBuffer(field.buf) || typeof field.length !== 'number')
    return;
  const original = field.toString;
  field.toString = function (this: { buf: Buffer; length: number }, encoding?: BufferEncoding) {
    if (!encoding) return original.call(this, encoding);
    return this.length === 0 ? '' : this.buf.toString(encoding, 0, this.length);
  };
}

/** How long a live input stays quiet before the parser is told to act on the line end it holds. */
export const LIVE_FLUSH_MS = 25;

export function countNewlines(cells: string[]): number {
  let n = 0;
  for (const c of cells) {
    for (let i = c.indexOf('\n'); i !== -1; i = c.indexOf('\n', i + 1)) n++;
  }
  return n;
}
