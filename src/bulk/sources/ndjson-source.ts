/**
 * The engine's line source (NDJSON, events send --file): a streaming line reader, one line in
 * memory at a time however large the file, each line with its physical number and its text as
 * read (kept for a rejects file). What a line means is its adapter's (bulk/adapters/event-lines.ts).
 */
import type { Readable } from 'node:stream';
import { describeInvalid, InputDecoder, type InputEncoding } from './decode.js';

/** The service refuses bodies over 1 MiB (open-points "Body size"); a longer line cannot be sent. */
export const MAX_LINE_CHARS = 1024 * 1024;

export interface RawLine {
  /** 1-based physical line number in the file. */
  line: number;
  text: string;
  /** The line was longer than MAX_LINE_CHARS; `text` holds only its beginning. */
  oversize?: boolean;
  /** The line holds bytes that are not valid in the input's encoding: why, where. */
  invalid?: string;
}

/**
 * Yields the lines of a stream one by one (LF or CRLF, a leading BOM dropped, a last line
 * without newline included). Memory stays bounded by MAX_LINE_CHARS per line.
 */
export async function* readLines(stream: Readable, encoding?: InputEncoding): AsyncGenerator<RawLine> {
  for await (const batch of readLineBatches(stream, encoding)) yield* batch;
}

/**
 * The same lines, as one array per chunk read (a 64 KiB read of a file holds a few hundred
 * events): a bulk sender then awaits once per chunk, not once per line. Memory stays bounded by
 * the chunk and MAX_LINE_CHARS.
 */
export async function* readLineBatches(
  stream: Readable,
  encoding: InputEncoding = 'utf-8',
  /**
   * Counts the bytes read so far (for the share of the input read in the progress line), and
   * notes the first line's end (a rejects file ends its lines the same way).
   */
  read?: { bytes: number; lineEnd?: '\n' | '\r\n' },
): AsyncGenerator<RawLine[]> {
  const decoder = new InputDecoder(encoding);
  let partial = '';
  let oversize = false;
  let line = 0;
  let first = true;
  const finish = (text: string): RawLine => {
    line++;
    const cr = text.endsWith('\r');
    let t = cr ? text.slice(0, -1) : text;
    if (read && read.lineEnd === undefined) read.lineEnd = cr ? '\r\n' : '\n';
    if (first) {
      if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
      first = false;
    }
    const out: RawLine = oversize || t.length > MAX_LINE_CHARS ? { line, text: t.slice(0, 200), oversize: true } : { line, text: t };
    oversize = false;
    // The decoder runs ahead of the lines: places on earlier lines were on lines already given.
    while (decoder.invalid.length > 0 && (decoder.invalid[0]?.line ?? 0) <= line) {
      const bad = decoder.invalid.shift();
      if (bad?.line === line) out.invalid = describeInvalid(bad);
    }
    return out;
  };
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    if (read) read.bytes += bytes.length;
    const text = decoder.write(bytes);
    const out: RawLine[] = [];
    let start = 0;
    let nl = text.indexOf('\n', start);
    while (nl !== -1) {
      const piece = text.slice(start, nl);
      out.push(finish(oversize ? partial : partial + piece));
      partial = '';
      start = nl + 1;
      nl = text.indexOf('\n', start);
    }
    if (out.length > 0) yield out;
    if (!oversize) {
      partial += text.slice(start);
      if (partial.length > MAX_LINE_CHARS) {
        partial = partial.slice(0, 200);
        oversize = true;
      }
    }
  }
  partial += decoder.end();
  if (partial.length > 0 || oversize) yield [finish(partial)];
}
