/**
 * Streams a CSV file as rows with their physical line numbers, never loading the file: sniffs the
 * encoding (UTF-8 with or without BOM, UTF-16LE with BOM; UTF-16BE and BOM-less UTF-16 are refused
 * with a clear message) and the delimiter (`,` `;` or tab, from the header line), then parses with
 * csv-parse. Ragged rows and an unclosed quote become error items naming the line: never a crash.
 */
import type { Readable } from 'node:stream';
import { describeInvalid, InputDecoder, type InputEncoding } from '../bulk/decode.js';
import { InputError } from '../bulk/errors.js';
import { rejectsTrailer } from '../bulk/rejects.js';
import type { CsvItem, CsvSource } from './csv-item.js';
import { countNewlines, LIVE_FLUSH_MS, LineCountingParser, type ParsedRecord } from './csv-parser.js';
import type { MixedLineEnd } from './line-ends.js';
import { delimiterHint, detectDelimiter, detectLineEnd, sniffEncoding } from './sniff.js';
import { StreamLineEnds } from './stream-line-ends.js';

export type { CsvItem, CsvSource } from './csv-item.js';

const SNIFF_BYTES = 64 * 1024;
/**
 * Most rows in one batch. Large enough that the per-batch await costs nothing per row, small
 * enough that the rows turned into requests ahead of sending stay few (the parser keeps the rest
 * of a 64 KiB chunk as parsed records, which are smaller).
 */
const BATCH_ROWS = 64;
/** Characters of text handed to the parser at a time (see writeSliced). */
const SLICE_CHARS = 4096;
/** Longest row read (characters): a longer one is nearly always an unclosed quote swallowing the file. */
const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * Opens a CSV stream: reads the header (throws InputError when the input is empty or not text
 * this importer can read), and returns the rows as an async iterable.
 */
export async function openCsv(
  input: Readable,
  opts: {
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
  },
): Promise<CsvSource> {
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

async function openStream(input: Readable, opts: Parameters<typeof openCsv>[1], release: () => void): Promise<CsvSource> {
  let bytes = 0;
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const toBuffer = (c: Buffer | string) => (typeof c === 'string' ? Buffer.from(c) : c);
  // Sniff: gather the first chunk(s) until a newline or 64 KiB.
  const headChunks: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = toBuffer(next.value);
    headChunks.push(chunk);
    headBytes += chunk.length;
    bytes += chunk.length;
    if (chunk.includes(0x0a)) break;
  }
  let head = Buffer.concat(headChunks);

  const { encoding, bomBytes } = sniffEncoding(head, opts.name, opts.encoding);
  head = head.subarray(bomBytes);
  const decoder = new InputDecoder(encoding, { startOffset: bomBytes });
  // A live input cannot be checked first (line-ends.ts): its line ends outside quotes become LF.
  const lineEnds = opts.live ? new StreamLineEnds(opts.onMixedLineEnd, opts.delimiter) : undefined;
  const headText = lineEnds ? lineEnds.write(decoder.write(head)) : decoder.write(head);
  const empty = () =>
    new InputError(
      `${opts.name} is empty: expected a header line such as ${opts.exampleHeader ?? 'order_id,total,currency,order_date,email'}`,
    );
  if (headText.trim() === '' && ended) throw empty();

  const firstLine = headText.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = opts.delimiter ?? detectDelimiter(firstLine);

  const lineEnd = detectLineEnd(headText);
  const parser = new LineCountingParser({
    delimiter,
    lineEnd,
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  const skipped: Array<{ message: string; code: string; lines: number }> = [];
  /**
   * A record reached MAX_RECORD_CHARS: csv-parse cannot go on after that (every later write fails
   * the same way), so the input is no longer read, later errors are ignored, and the record
   * becomes one error item at the end, naming the line it starts on and saying that the rest of
   * the file was not read. Nearly always an opened quote that is never closed.
   */
  let oversized = false;
  parser.on('skip', (err: Error & { code?: string; lines?: number }) => {
    if (oversized) return;
    if (err.code === 'CSV_MAX_RECORD_SIZE') oversized = true;
    skipped.push({ message: err.message, code: err.code ?? 'csv_error', lines: err.lines ?? 0 });
  });

  const drained = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        parser.off('drain', done);
        parser.off('close', done);
        resolve();
      };
      parser.on('drain', done);
      parser.on('close', done);
    });
  /**
   * Writes a decoded chunk in slices of about SLICE_CHARS, cut after a newline (never inside a
   * character). The parser turns a write into records all at once and holds them until they are
   * read: a whole 64 KiB chunk would be some 1,400 records living long enough for the garbage
   * collector to copy and promote them, which cost more CPU than parsing them. Slices keep the
   * parsed records ahead of the reader to about one slice; the rest waits as text.
   */
  const writeSliced = async (text: string): Promise<void> => {
    let at = 0;
    while (at < text.length) {
      let end = text.length;
      if (end - at > SLICE_CHARS) {
        const nl = text.indexOf('\n', at + SLICE_CHARS);
        if (nl !== -1) end = nl + 1;
      }
      const piece = at === 0 && end === text.length ? text : text.slice(at, end);
      at = end;
      if (!parser.write(piece)) await drained();
      if (parser.destroyed || oversized) return;
    }
  };

  /** The line end the parser may hold back (the text written last ended with it), for a live input. */
  let held: string | undefined;
  const nextChunk = async () => {
    if (!opts.live || held === undefined) return iterator.next();
    const timer = setInterval(() => {
      if (held !== undefined && parser.flushHeld(held)) held = undefined;
    }, LIVE_FLUSH_MS);
    try {
      return await iterator.next();
    } finally {
      clearInterval(timer);
    }
  };
  const noteHeld = (text: string) => {
    if (opts.live) held = text.endsWith('\r\n') ? '\r\n' : text.endsWith('\n') ? '\n' : undefined;
  };

  const feed = (async () => {
    try {
      if (headText) {
        await writeSliced(headText);
        noteHeld(headText);
      }
      if (!ended) {
        for (;;) {
          if (parser.destroyed) return;
          const next = await nextChunk();
          if (next.done) break;
          const chunk = toBuffer(next.value);
          bytes += chunk.length;
          const text = lineEnds ? lineEnds.write(decoder.write(chunk)) : decoder.write(chunk);
          if (text) {
            await writeSliced(text);
            noteHeld(text);
          }
          if (parser.destroyed) return;
          if (oversized) {
            // The rest cannot be parsed: stop reading the input and end the rows here.
            await iterator.return?.();
            input.destroy();
            parser.end();
            return;
          }
        }
      }
      const rest = lineEnds ? lineEnds.write(decoder.end()) : decoder.end();
      lineEnds?.end();
      if (rest && !oversized) parser.write(rest);
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();

  // The parser is read in paused mode: every record it holds is taken at once (read() until
  // null), then one wait for 'readable', 'end' or an error. Its async iterator would cost a
  // promise and a microtask per record.
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  parser.on('readable', poke);
  parser.on('end', poke);
  parser.on('close', poke);
  parser.on('error', (error) => {
    failure ??= { error };
    poke();
  });
  /**
   * Resolves at the parser's next 'readable', 'end', 'close' or 'error'. Call it only right after
   * read() returned null (which arms 'readable'), with no await in between.
   */
  const parserMoved = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });
  /** The next record, or null at the end; waits only when the parser holds none. */
  const nextRecord = async (): Promise<ParsedRecord | null> => {
    for (;;) {
      const r = parser.read() as ParsedRecord | null;
      if (r !== null) return r;
      if (failure) throw failure.error;
      if (parser.errored) throw parser.errored;
      if (parser.readableEnded || parser.destroyed) return null;
      await parserMoved();
    }
  };

  const first = await nextRecord();
  if (first === null) {
    await feed;
    if (oversized)
      throw new InputError(
        `${opts.name}: the header line is longer than ${MAX_RECORD_CHARS / (1024 * 1024)} MiB, so no column could be read`,
        'is it a CSV file? A quote opened and never closed, or a file of another kind, reads as one endless line',
      );
    throw empty();
  }
  const badHeader = decoder.invalid[0];
  if (badHeader !== undefined && badHeader.line <= first.lines) {
    parser.destroy();
    input.destroy();
    throw new InputError(`${opts.name}: ${describeInvalid(badHeader, 'the header line')}`);
  }
  // A rejects file imported again: its own trailing columns are not the data's.
  const trailer = rejectsTrailer(first.record);
  const headerCells = trailer > 0 ? first.record.slice(0, -trailer) : first.record;
  const header = headerCells.map((h) => h.trim());
  let lastEndLine = first.lines;

  /** The first invalid place on lines first..last, dropping those before (the decoder runs ahead of the parser). */
  const invalidIn = (first: number, last: number) => {
    let found: (typeof decoder.invalid)[number] | undefined;
    while (decoder.invalid.length > 0 && (decoder.invalid[0]?.line ?? 0) <= last) {
      const bad = decoder.invalid.shift();
      if (bad !== undefined && bad.line >= first) found ??= bad;
    }
    return found;
  };

  async function* batches(): AsyncGenerator<CsvItem[]> {
    // The parser reads ahead, so its 'skip' events can arrive before records that precede them:
    // place each error before the first record that starts after it. An unclosed quote swallows
    // the rest of the input, so it always comes last.
    const flushSkipped = function* (beforeLine: number): Generator<CsvItem> {
      for (let i = 0; i < skipped.length; ) {
        const s = skipped[i] as (typeof skipped)[number];
        const atEnd = beforeLine === Number.POSITIVE_INFINITY;
        const last = s.code === 'CSV_QUOTE_NOT_CLOSED' || s.code === 'CSV_MAX_RECORD_SIZE';
        if (last ? !atEnd : s.lines >= beforeLine) {
          i++;
          continue;
        }
        skipped.splice(i, 1);
        if (s.code === 'CSV_MAX_RECORD_SIZE') {
          const line = lastEndLine + 1;
          yield {
            kind: 'error',
            line,
            code: 'record_too_large',
            message: `the row starting on line ${line} runs past ${MAX_RECORD_CHARS / (1024 * 1024)} MiB (most likely a quote opened there and never closed), so the file could not be read from line ${line} on; fix that row and import again`,
          };
        } else if (s.code === 'CSV_QUOTE_NOT_CLOSED') {
          const line = lastEndLine + 1;
          yield {
            kind: 'error',
            line,
            code: 'unclosed_quote',
            message: `a quoted field opened on line ${line} is never closed, so lines ${line}–${s.lines} could not be read as rows; close the quote (or double it inside the field) and import again`,
          };
        } else yield { kind: 'error', line: s.lines, code: 'csv_error', message: `unreadable CSV on line ${s.lines}: ${s.message}` };
      }
    };
    try {
      for (;;) {
        const out: CsvItem[] = [];
        let ended = false;
        while (out.length < BATCH_ROWS) {
          const next = parser.read() as ParsedRecord | null;
          if (next === null) {
            if (failure) throw failure.error;
            // destroy(err) sets `errored` at once; its 'error' event comes a tick later.
            if (parser.errored) throw parser.errored;
            ended = parser.readableEnded || parser.destroyed;
            break;
          }
          const { record, lines } = next;
          const line = lines - countNewlines(record);
          if (skipped.length > 0) for (const s of flushSkipped(line)) out.push(s);
          lastEndLine = lines;
          const bad = decoder.invalid.length > 0 ? invalidIn(line, lines) : undefined;
          // A line of bare delimiters (spreadsheets add them) is a blank line.
          if (record.every((c) => c.trim() === '')) continue;
          if (bad !== undefined) {
            out.push({ kind: 'error', line, code: 'invalid_encoding', message: describeInvalid(bad), cells: record });
            continue;
          }
          let cells = record;
          if (trailer > 0 && cells.length === header.length + trailer) cells = cells.slice(0, header.length);
          if (cells.length > header.length && cells.slice(header.length).every((c) => c.trim() === ''))
            cells = cells.slice(0, header.length);
          if (cells.length !== header.length) {
            out.push({
              kind: 'error',
              line,
              code: 'ragged_row',
              message: `line ${line} has ${cells.length} field${cells.length === 1 ? '' : 's'} but the header has ${header.length}${delimiterHint(cells.length, delimiter)}`,
              cells,
            });
            continue;
          }
          out.push({ kind: 'row', line, cells });
        }
        if (ended) for (const s of flushSkipped(Number.POSITIVE_INFINITY)) out.push(s);
        if (out.length > 0) yield out;
        if (ended) break;
        // Nothing at hand: wait for the parser (records, the end or an error).
        if (out.length === 0) await parserMoved();
      }
      await feed;
    } finally {
      release();
      // The consumer stopped early (an abort): stop reading instead of waiting for a drain that
      // will never come.
      if (!parser.destroyed && !parser.readableEnded) {
        parser.destroy();
        input.destroy();
      }
    }
  }

  let taken = false;
  const take = () => {
    if (taken) throw new Error('the rows of a CSV source can be read only once');
    taken = true;
    return batches();
  };
  return {
    header,
    headerCells,
    bom: bomBytes > 0,
    lineEnd: lineEnds?.expected === 'CRLF' ? '\r\n' : (lineEnd ?? '\n'), // a rejects file ends its lines as the input's header
    delimiter,
    encoding,
    batches: { [Symbol.asyncIterator]: () => take() },
    items: {
      [Symbol.asyncIterator]: () => {
        const all = take();
        return (async function* () {
          for await (const batch of all) yield* batch;
        })();
      },
    },
    bytesRead: () => bytes,
  };
}
