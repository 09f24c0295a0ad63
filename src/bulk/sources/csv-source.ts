/**
 * Streams a CSV file as rows with their physical line numbers, never loading the file: sniffs the
 * encoding (UTF-8 with or without BOM, UTF-16LE with BOM; UTF-16BE and BOM-less UTF-16 are refused
 * with a clear message) and the delimiter (`,` `;` or tab, from the header line), then parses with
 * Papa Parse (csv-parser.ts). Ragged rows, an unclosed quote and a record over 1 MiB become error
 * items naming the line: never a crash. A header below other lines and footer lines that are not
 * records are read as a preset declares them (CsvShape).
 */
import type { Readable } from 'node:stream';
import { InputError } from '../../importer/errors.js';
import { rejectsTrailer } from '../rejects.js';
import type { CsvSource } from './csv-item.js';
import { CsvRecordReader, MAX_RECORD_CHARS, MAX_RECORD_TEXT, type ParsedItem, type ParsedRecord } from './csv-reader.js';
import { type Header, rowsOf } from './csv-rows.js';
import { describeInvalid, InputDecoder, type InputEncoding } from './decode.js';
import type { MixedLineEnd } from './line-ends.js';
import { RecordQueue } from './record-queue.js';
import { detectDelimiter, detectLineEnd, sniffEncoding } from './sniff.js';
import { StreamLineEnds } from './stream-line-ends.js';

export type { CsvItem, CsvSource } from './csv-item.js';

const SNIFF_BYTES = 64 * 1024;
/** Characters of text handed to the parser at a time (see writeSliced). */
const SLICE_CHARS = 4096;

/**
 * Where the header is and what follows the last record, for exports that do not start with their
 * header or end with their last record (a preset declares it; docs/importer.md "The CSV file").
 */
export interface CsvShape {
  /** Lines before the header that are not part of the table (a title, a report date). */
  skipLinesBeforeHeader?: number;
  /**
   * The header is the first record (after the skipped lines) for which this is true; the records
   * before it are not read. When none is, the input is refused naming `headerDescription`.
   */
  headerMatch?: (cells: string[]) => boolean;
  /** What headerMatch looks for, for the refusal ("a line with Order Number and Buyer Email"). */
  headerDescription?: string;
  /**
   * Lines at the end that are not records (eBay's `12 record(s) downloaded`): a record whose cells,
   * joined by the delimiter, trailing delimiters dropped and trimmed, match it and that only blank
   * lines or other such lines follow. A matching line with a record after it is read as any line
   * is. Also given after the header is read, with CsvSource.dropFooter (a map file's
   * `footer_pattern`).
   */
  footerPattern?: RegExp;
}

export interface OpenCsvOptions extends CsvShape {
  delimiter?: string;
  name: string;
  encoding?: InputEncoding;
  signal?: AbortSignal;
  /** The input is live (a terminal, pipe or FIFO): rows are parsed as their lines arrive. */
  live?: boolean;
  /** The header shown when the input is empty (the verb's own columns). */
  exampleHeader?: string;
  /** A live input's first line whose end differs from the header's (each line is read as written: stream-line-ends.ts). */
  onMixedLineEnd?: (mixed: MixedLineEnd) => void;
}

/**
 * Opens a CSV stream: reads the header (throws InputError when the input is empty or not text
 * this importer can read), and returns the rows as an async iterable.
 */
export async function openCsv(input: Readable, opts: OpenCsvOptions): Promise<CsvSource> {
  // Ctrl-C must not wait for the next line of a terminal, pipe or FIFO: the input is destroyed,
  // which ends a read in progress with the abort.
  const onAbort = () => input.destroy(new DOMException('interrupted while reading the input', 'AbortError'));
  const release = () => opts.signal?.removeEventListener('abort', onAbort);
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await openStream(input, opts, release);
  } catch (err) {
    release();
    throw err;
  }
}

type Chunks = AsyncIterator<Buffer | string>;
const toBuffer = (c: Buffer | string) => (typeof c === 'string' ? Buffer.from(c) : c);

/** The first chunk(s) of the input, until a newline or 64 KiB. */
async function readHead(iterator: Chunks): Promise<{ head: Buffer; ended: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let ended = false;
  while (bytes < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = toBuffer(next.value);
    chunks.push(chunk);
    bytes += chunk.length;
    if (chunk.includes(0x0a)) break;
  }
  return { head: Buffer.concat(chunks), ended };
}

/**
 * The head holds the header line whole, its line end included (a CR last may be the start of a
 * CRLF): the skipped lines, then a non-blank line and its end.
 */
function headComplete(text: string, skip: number): boolean {
  if (!/\n|\r[\s\S]/.test(text)) return false;
  const lines = text.split(/\r\n|\n|\r/);
  for (let i = skip; i < lines.length - 1; i++) if ((lines[i] as string).trim() !== '') return true;
  return false;
}

/** The line the delimiter is sniffed from: the first non-blank one after the skipped lines. */
function headerLineOf(text: string, skip: number): string {
  const lines = text.split(/\r?\n|\r/).slice(skip);
  return lines.find((l) => l.trim() !== '') ?? '';
}

/**
 * Writes a decoded chunk in slices of about SLICE_CHARS, cut after a newline (never inside a
 * character), waiting whenever the consumer has AHEAD_RECORDS records to take: the records
 * parsed ahead of the reader stay about one slice; the rest waits as text.
 */
async function writeSliced(text: string, reader: CsvRecordReader, queue: RecordQueue): Promise<void> {
  let at = 0;
  while (at < text.length) {
    let end = text.length;
    if (end - at > SLICE_CHARS) {
      const nl = text.indexOf('\n', at + SLICE_CHARS);
      if (nl !== -1) end = nl + 1;
    }
    reader.write(at === 0 && end === text.length ? text : text.slice(at, end));
    at = end;
    await reader.parsed();
    queue.push(reader.take());
    if (reader.oversized || queue.ended) return;
    await queue.room();
  }
}

interface Feed {
  input: Readable;
  iterator: Chunks;
  /** The text read to find the header, and whether that was the whole input. */
  headText: string;
  ended: boolean;
  decoder: InputDecoder;
  decode: (text: string) => string;
  lineEnds: StreamLineEnds | undefined;
  reader: CsvRecordReader;
  queue: RecordQueue;
  counted: (bytes: number) => void;
}

/** Reads the input to its end through the reader into the queue; stops at a record over the limit. */
async function feedRest(f: Feed): Promise<void> {
  const { reader, queue } = f;
  try {
    if (f.headText) await writeSliced(f.headText, reader, queue);
    while (!f.ended && !reader.oversized && !queue.ended) {
      const next = await f.iterator.next();
      if (next.done) break;
      const chunk = toBuffer(next.value);
      f.counted(chunk.length);
      const text = f.decode(f.decoder.write(chunk));
      if (text) await writeSliced(text, reader, queue);
    }
    if (reader.oversized || queue.ended) {
      // The rest cannot be parsed (or is not wanted): stop reading the input.
      await f.iterator.return?.();
      f.input.destroy();
      queue.end();
      return;
    }
    const rest = f.decode(f.decoder.end());
    f.lineEnds?.end();
    if (rest) await writeSliced(rest, reader, queue);
    await reader.end();
    queue.push(reader.take());
    queue.end();
  } catch (err) {
    reader.stop();
    queue.end(err);
  }
}

async function openStream(input: Readable, opts: OpenCsvOptions, release: () => void): Promise<CsvSource> {
  let bytes = 0;
  const iterator = input[Symbol.asyncIterator]() as Chunks;
  const sniffed = await readHead(iterator);
  let ended = sniffed.ended;
  bytes += sniffed.head.length;

  const { encoding, bomBytes } = sniffEncoding(sniffed.head, opts.name, opts.encoding);
  const head = sniffed.head.subarray(bomBytes);
  const decoder = new InputDecoder(encoding, { startOffset: bomBytes });
  // A live input cannot be checked first (line-ends.ts): its line ends outside quotes become LF.
  const lineEnds = opts.live ? new StreamLineEnds(opts.onMixedLineEnd, opts.delimiter) : undefined;
  const decode = (text: string) => (lineEnds ? lineEnds.write(text) : text);
  let headText = decode(decoder.write(head));
  const skipLines = opts.skipLinesBeforeHeader ?? 0;
  // The delimiter and the line end are told from the header line: read on until it is whole.
  while (!ended && headText.length <= MAX_RECORD_CHARS && !headComplete(headText, skipLines)) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = toBuffer(next.value);
    bytes += chunk.length;
    headText += decode(decoder.write(chunk));
  }
  const empty = () =>
    new InputError(
      `${opts.name} is empty: expected a header line such as ${opts.exampleHeader ?? 'order_id,total,currency,order_date,email'}`,
    );
  if (headText.trim() === '' && ended) throw empty();

  const delimiter = opts.delimiter ?? detectDelimiter(headerLineOf(headText, skipLines));
  const lineEnd = detectLineEnd(headText);
  const reader = new CsvRecordReader({
    delimiter,
    newline: lineEnd ?? (opts.live ? '\n' : undefined),
    maxRecordChars: MAX_RECORD_CHARS,
  });
  const queue = new RecordQueue();

  const feed = feedRest({ input, iterator, headText, ended, decoder, decode, lineEnds, reader, queue, counted: (n) => (bytes += n) });

  const stopAll = () => {
    queue.stop();
    reader.stop();
    input.destroy();
  };
  const header = await readHeader({ queue, opts, decoder, stopAll, empty, feed });
  const rows = rowsOf({ queue, header, decoder, delimiter, footer: opts.footerPattern, feed, release, stopAll });
  const source: CsvSource = {
    header: header.header,
    headerCells: header.headerCells,
    bom: bomBytes > 0,
    lineEnd: lineEnds?.expected === 'CRLF' ? '\r\n' : (lineEnd ?? '\n'), // a rejects file ends its lines as the input's header
    delimiter,
    encoding,
    batches: rows.batches,
    items: rows.items,
    bytesRead: () => bytes,
    dropFooter: (pattern) => {
      rows.dropFooter(pattern);
      return source;
    },
  };
  return source;
}

/** Where readHeader reads, and how it stops the reading when the header cannot be read. */
interface HeaderRead {
  queue: RecordQueue;
  opts: OpenCsvOptions;
  decoder: InputDecoder;
  stopAll: () => void;
  empty: () => Error;
  feed: Promise<void>;
}

/** The header record: the first non-blank one after the skipped lines that matches (CsvShape). */
async function readHeader(h: HeaderRead): Promise<Header> {
  const { opts } = h;
  let passed = 0;
  for (;;) {
    const item = (await h.queue.take(1))?.[0];
    if (item === undefined) throw await noHeader(h, passed);
    if (item.kind === 'problem') {
      h.stopAll();
      throw headerProblem(opts.name, item);
    }
    if (item.lastLine <= (opts.skipLinesBeforeHeader ?? 0) || item.record.every((c) => c.trim() === '')) continue;
    passed++;
    if (opts.headerMatch && !opts.headerMatch(item.record.map((c) => c.trim()))) continue;
    return headerOf(h, item);
  }
}

/** The error for an input that ends before its header (once the reading has ended). */
async function noHeader(h: HeaderRead, passed: number): Promise<Error> {
  await h.feed;
  const { opts } = h;
  if (passed > 0 && opts.headerMatch)
    return new InputError(`${opts.name}: no line is the header${opts.headerDescription ? ` (${opts.headerDescription})` : ''}`);
  return h.empty();
}

/** The header found, unless its line holds bytes invalid in the encoding. */
function headerOf(h: HeaderRead, item: ParsedRecord): Header {
  const bad = h.decoder.invalid[0];
  if (bad !== undefined && bad.line <= item.lastLine) {
    h.stopAll();
    throw new InputError(`${h.opts.name}: ${describeInvalid(bad, 'the header line')}`);
  }
  // A rejects file imported again: its own trailing columns are not the data's.
  const trailer = rejectsTrailer(item.record);
  const headerCells = trailer > 0 ? item.record.slice(0, -trailer) : item.record;
  return { header: headerCells.map((c) => c.trim()), headerCells, trailer, line: item.lastLine };
}

function headerProblem(name: string, problem: ParsedItem & { kind: 'problem' }): InputError {
  if (problem.code === 'record_too_large')
    return new InputError(
      `${name}: the header line is longer than ${MAX_RECORD_TEXT}, so no column could be read`,
      'is it a CSV file? A quote opened and never closed, or a file of another kind, reads as one endless line',
    );
  if (problem.code === 'unclosed_quote')
    return new InputError(
      `${name}: a quoted field opened on line ${problem.line} (the header) is never closed, so no column could be read`,
    );
  return new InputError(`${name}: the header on line ${problem.line} is not readable CSV: ${problem.message}`);
}
