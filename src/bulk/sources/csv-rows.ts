/** The CSV reader's records as the rows it hands out (csv-source.ts): ragged rows, problems and footer lines. */

import type { CsvItem, CsvSource } from './csv-item.js';
import { MAX_RECORD_TEXT, type ParsedItem, type ParsedRecord } from './csv-reader.js';
import { describeInvalid, type InputDecoder } from './decode.js';
import type { RecordQueue } from './record-queue.js';
import { delimiterHint } from './sniff.js';

/**
 * Most rows in one batch. Large enough that the per-batch await costs nothing per row, small
 * enough that the rows turned into requests ahead of sending stay few.
 */
const BATCH_ROWS = 64;

/** The header record: its cells (trimmed, and as read), a rejects file's trailing columns, its last line. */
export type Header = { header: string[]; headerCells: string[]; trailer: number; line: number };

/** The error item for a record the parser could not read. */
function problemItem(p: ParsedItem & { kind: 'problem' }): CsvItem {
  const line = p.line;
  if (p.code === 'record_too_large')
    return {
      kind: 'error',
      line,
      code: 'record_too_large',
      message: `the row starting on line ${line} runs past ${MAX_RECORD_TEXT} (a quote opened there and never closed, or a line that is not CSV), so the file could not be read from line ${line} on; fix that row and import again`,
    };
  if (p.code === 'unclosed_quote')
    return {
      kind: 'error',
      line,
      code: 'unclosed_quote',
      message: `a quoted field opened on line ${line} is never closed, so lines ${line}–${p.lastLine} could not be read as rows; close the quote (or double it inside the field) and import again`,
    };
  const where = p.lastLine > line ? `lines ${line}–${p.lastLine}` : `line ${line}`;
  return { kind: 'error', line, code: 'csv_error', message: `unreadable CSV on ${where}: ${p.message}` };
}

export interface RowsContext {
  queue: RecordQueue;
  header: Header;
  decoder: InputDecoder;
  delimiter: string;
  footer: RegExp | undefined;
  feed: Promise<void>;
  release: () => void;
  stopAll: () => void;
}

type Invalid = InputDecoder['invalid'][number];
type InvalidIn = (first: number, last: number) => Invalid | undefined;

/** A record as a row, or the error item saying why it is not one (null: a blank line). */
function rowOf(r: ParsedRecord, ctx: RowsContext, invalidIn: InvalidIn): CsvItem | null {
  const { header, delimiter } = ctx;
  const width = header.header.length;
  const bad = ctx.decoder.invalid.length > 0 ? invalidIn(r.line, r.lastLine) : undefined;
  // A line of bare delimiters (spreadsheets add them) is a blank line.
  if (r.record.every((c) => c.trim() === '')) return null;
  if (bad !== undefined) return { kind: 'error', line: r.line, code: 'invalid_encoding', message: describeInvalid(bad), cells: r.record };
  let cells = r.record;
  if (header.trailer > 0 && cells.length === width + header.trailer) cells = cells.slice(0, width);
  if (cells.length > width && cells.slice(width).every((c) => c.trim() === '')) cells = cells.slice(0, width);
  if (cells.length !== width) {
    return {
      kind: 'error',
      line: r.line,
      code: 'ragged_row',
      message: `line ${r.line} has ${cells.length} field${cells.length === 1 ? '' : 's'} but the header has ${width}${delimiterHint(cells.length, delimiter)}`,
      cells,
    };
  }
  return { kind: 'row', line: r.line, cells };
}

/**
 * Footer lines (CsvShape.footerPattern): a row whose text matches is held back until a record
 * after it says it was data after all (it is then handed out in its place), or the end of the
 * input drops it.
 */
class Footer {
  pattern: RegExp | undefined;
  /** The footer candidates held back. */
  held: CsvItem[] = [];
  private trailing: RegExp;

  constructor(
    pattern: RegExp | undefined,
    private readonly delimiter: string,
  ) {
    this.pattern = pattern;
    this.trailing = new RegExp(`(${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})+$`);
  }

  /** The line as the pattern sees it: its cells joined by the delimiter, trailing delimiters dropped, trimmed. */
  matches(cells: string[]): boolean {
    const text = cells.join(this.delimiter).replace(this.trailing, '').trim();
    return text !== '' && (this.pattern as RegExp).test(text);
  }
}

/** The batch's records as items, footer candidates held back in `footer` (see Footer). */
function itemsOf(got: ParsedItem[], ctx: RowsContext, footer: Footer, invalidIn: InvalidIn): CsvItem[] {
  const out: CsvItem[] = [];
  for (const item of got) {
    const row = item.kind === 'problem' ? problemItem(item) : rowOf(item, ctx, invalidIn);
    if (row === null) continue;
    if (footer.pattern !== undefined && row.cells !== undefined && footer.matches(row.cells)) {
      footer.held.push(row);
      continue;
    }
    if (footer.held.length > 0) out.push(...footer.held.splice(0));
    out.push(row);
  }
  return out;
}

/** The first invalid place on lines first..last, dropping those before (the decoder runs ahead of the parser). */
function firstInvalid(decoder: InputDecoder, first: number, last: number): Invalid | undefined {
  let found: Invalid | undefined;
  while (decoder.invalid.length > 0 && (decoder.invalid[0]?.line ?? 0) <= last) {
    const bad = decoder.invalid.shift();
    if (bad !== undefined && bad.line >= first) found ??= bad;
  }
  return found;
}

/** The rows after the header, in batches and one by one (either, once), and the setter of their footer pattern. */
export function rowsOf(ctx: RowsContext): Pick<CsvSource, 'batches' | 'items'> & { dropFooter(pattern: RegExp | undefined): void } {
  const { queue, decoder } = ctx;
  const invalidIn: InvalidIn = (first, last) => firstInvalid(decoder, first, last);
  invalidIn(0, ctx.header.line);
  const footer = new Footer(ctx.footer, ctx.delimiter);

  async function* batches(): AsyncGenerator<CsvItem[]> {
    try {
      for (let got = await queue.take(BATCH_ROWS); got !== null; got = await queue.take(BATCH_ROWS)) {
        const out = itemsOf(got, ctx, footer, invalidIn);
        if (out.length > 0) yield out;
      }
      await ctx.feed;
    } finally {
      ctx.release();
      // The consumer stopped early (an abort): stop reading instead of waiting for room that
      // will never come.
      if (!queue.ended) ctx.stopAll();
    }
  }

  let taken = false;
  const take = () => {
    if (taken) throw new Error('the rows of a CSV source can be read only once');
    taken = true;
    return batches();
  };
  return {
    batches: { [Symbol.asyncIterator]: () => take() },
    items: {
      [Symbol.asyncIterator]: () => {
        const all = take();
        return (async function* () {
          for await (const batch of all) yield* batch;
        })();
      },
    },
    dropFooter: (pattern) => {
      if (taken) throw new Error('the footer of a CSV source is declared before its rows are read');
      if (pattern !== undefined) footer.pattern = pattern;
    },
  };
}
