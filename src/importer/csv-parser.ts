/** csv-parse's stream parser as the CSV reader (csv-source.ts) uses it: records with their physical line. */
import { Parser } from 'csv-parse';

/** A record and the parser's line count when it was complete (the physical line it ends on). */
export type ParsedRecord = { record: string[]; lines: number };

/**
 * csv-parse's stream parser, pushing each record with the parser's line count at that moment
 * (`parser.info.lines`, its documented counter). The `info: true` option gives the same number in
 * an info object built by two object spreads per record, which was the costliest part of parsing
 * a file here (docs/performance.md).
 */
export class LineCountingParser extends Parser {
  /** Line ends written by `flushHeld`, which the parser counts as (skipped) blank lines. */
  injected = 0;
  declare state: { quoting: boolean; field?: FieldBuffer };

  constructor(options: ConstructorParameters<typeof Parser>[0]) {
    super(options);
    decodeFieldsInPlace(this.state.field);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null);
    const lined: ParsedRecord = { record: chunk as string[], lines: this.info.lines - this.injected };
    return super.push(lined, encoding);
  }

  /**
   * csv-parse acts on a line end only once it has seen the character after it (it could be the
   * start of a longer delimiter), so on a live input (a terminal, a pipe) the last line typed
   * would wait for the next one. When the input is idle, the parser has taken every write and is
   * not inside a quoted field, a blank line (skipped, and not counted in line numbers) lets it
   * act on the line end it holds.
   */
  flushHeld(eol: string): boolean {
    if (this.destroyed || this.writableLength > 0 || this.state.quoting) return false;
    this.write(eol);
    this.injected++;
    return true;
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
