/**
 * Line ends of an input read as a stream (stdin, a pipe, a FIFO): it cannot be checked before
 * the import as a file is (line-ends.ts refuses a file that mixes them), and the parser takes the
 * header's line end as the only record end, so `cat mixed.csv | svc orders import -` merged
 * records (a CRLF header, then LF, CR and CRLF lines: 4 orders read as 2 rows). Here each line
 * is read as written: every line end outside a quoted cell (CRLF, LF or a bare CR) becomes LF
 * before the parser sees it, so every record is its own row on its own line number. Line ends
 * inside a quoted cell are the cell's own and stay as they are. The first line whose end differs
 * from the header's is remembered, for a warning.
 *
 * Quoting as the CSV parser reads it (and as line-ends.ts scans): a quote opens a
 * quoted cell only at a cell's start (after a delimiter, a line end or the input's start); inside,
 * a doubled quote is a quote. A text without a quote (most chunks of most files) is read with
 * native searches for its line ends; one with quotes, character by character.
 */
import type { LineEnd, MixedLineEnd } from './line-ends.js';

/** Characters after which a quote opens a quoted cell (delimiters , ; tab | and line ends). */
const CELL_STARTS = new Set([0x2c, 0x3b, 0x09, 0x7c, 0x0a, 0x0d]);

export class StreamLineEnds {
  private inQuote = false;
  /** -1: the text before ended with a quote that closed a cell (a quote first now is an escaped one). */
  private quoteClosedAt = -2;
  /** The last character of the text before (for a quote at the start of a chunk). */
  private prev = 0x0a;
  /** The text before ended with a CR outside quotes, turned into LF: an LF first now belongs to it. */
  private crPending = false;
  /** The same, inside a quoted cell (for the line count). */
  private quotedCrPending = false;
  /** Physical line ends seen (1-based line of the next character is lines + 1). */
  private lines = 0;
  /** The header's line end (the first one outside quotes). */
  expected: LineEnd | undefined;
  /** The first line whose end differs from the header's. */
  mixed: MixedLineEnd | undefined;

  /** Characters after which a quote opens a quoted cell: line ends, the usual delimiters and the one given. */
  private readonly cellStarts: Set<number>;

  /** `onMixed`: told once, of the first line whose end differs from the header's; `delimiter`: one given with --delimiter. */
  constructor(
    private readonly onMixed?: (mixed: MixedLineEnd) => void,
    delimiter?: string,
  ) {
    this.cellStarts = new Set(CELL_STARTS);
    if (delimiter?.length === 1) this.cellStarts.add(delimiter.charCodeAt(0));
  }

  /** Settles a CR that ended the text before with this text's first character; where this text's own characters start (1: after the LF of a CRLF). */
  private takePending(text: string): number {
    if (this.quotedCrPending) {
      this.quotedCrPending = false;
      if (text.charCodeAt(0) !== 10) this.lines++;
      return 0;
    }
    if (!this.crPending) return 0;
    this.crPending = false;
    // A CRLF whose LF starts this text.
    if (text.charCodeAt(0) === 10) {
      this.noteEnd('CRLF');
      return 1;
    }
    this.noteEnd('CR');
    return 0;
  }

  /** `text` with its line ends outside quotes as LF (a CR at its end is turned at once: no line waits for the next). */
  // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one pass over the characters of every chunk that holds a quote, a state machine (quoted or not, a quote just closed, a CR pending) whose states share the loop's indexes; split into calls per character it would cost a call per character of the import
  write(text: string): string {
    if (text === '') return text;
    const fast = this.fast(text);
    if (fast !== undefined) return fast;
    let out = '';
    let from = this.takePending(text);
    let i = from;
    // Where the last quote that may close a cell is (-1: the text before ended with it).
    let closedAt = this.quoteClosedAt === -1 ? -1 : -2;
    this.quoteClosedAt = -2;
    const n = text.length;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 34 && c !== 13 && c !== 10) continue;
      if (c === 34) {
        if (this.inQuote) {
          this.inQuote = false;
          closedAt = i;
        } else if (closedAt === i - 1) {
          // The second quote of a doubled pair: still inside the cell.
          this.inQuote = true;
          closedAt = -2;
        } else if (this.cellStarts.has(i === 0 ? this.prev : text.charCodeAt(i - 1))) this.inQuote = true;
        continue;
      }
      if (this.inQuote) {
        // A line end inside a quoted cell: the cell's own, counted as a physical line.
        if (c === 10) this.lines++;
        else if (i + 1 >= n) this.quotedCrPending = true;
        else if (text.charCodeAt(i + 1) !== 10) this.lines++;
        continue;
      }
      if (c === 10) {
        this.noteEnd('LF');
        continue;
      }
      // A CR outside quotes: the line's end, whatever follows. Written as LF; its own LF dropped.
      out += text.slice(from, i);
      out += '\n';
      if (i + 1 >= n) {
        this.crPending = true;
        from = n;
      } else if (text.charCodeAt(i + 1) === 10) {
        this.noteEnd('CRLF');
        from = i + 2;
        i++;
      } else {
        this.noteEnd('CR');
        from = i + 1;
      }
    }
    this.prev = text.charCodeAt(n - 1);
    if (closedAt === n - 1) this.quoteClosedAt = -1;
    return from === 0 ? text : out + text.slice(from);
  }

  /**
   * The text without a quote, outside a quoted cell, with nothing pending: only its line ends
   * matter, found natively. Undefined when the careful pass must read it.
   */
  private fast(text: string): string | undefined {
    if (this.crPending || this.quotedCrPending || this.inQuote || this.quoteClosedAt === -1 || text.indexOf('"') !== -1) return undefined;
    if (text.indexOf('\r') === -1) return this.lfOnly(text);
    // CRLF only (and not cut after a CR).
    if (this.expected !== 'CRLF' || text.charCodeAt(text.length - 1) === 13) return undefined;
    return this.crlfOnly(text);
  }

  /** A text whose line ends are all LF: unchanged; counted (each one checked only while they could still differ). */
  private lfOnly(text: string): string {
    const check = this.mixed === undefined && this.expected !== 'LF';
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      if (check && this.mixed === undefined) this.noteEnd('LF');
      else this.lines++;
    }
    this.prev = text.charCodeAt(text.length - 1);
    return text;
  }

  /** A text with a CR, in a CRLF input: each CRLF one line end, as LF; undefined when one end is not a CRLF. */
  private crlfOnly(text: string): string | undefined {
    let lines = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      if (i === 0 || text.charCodeAt(i - 1) !== 13) return undefined;
      lines++;
    }
    for (let i = text.indexOf('\r'); i !== -1; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 10) return undefined;
    this.lines += lines;
    this.prev = 10;
    return text.replaceAll('\r\n', '\n');
  }

  /** At the end of the input: a CR last was a line end of its own. */
  end(): void {
    if (this.crPending) {
      this.crPending = false;
      this.noteEnd('CR');
    }
  }

  private noteEnd(kind: LineEnd): void {
    this.lines++;
    if (this.expected === undefined) this.expected = kind;
    else if (kind !== this.expected && this.mixed === undefined) {
      this.mixed = { line: this.lines, found: kind, expected: this.expected };
      this.onMixed?.(this.mixed);
    }
  }
}
