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

/** What readLineBatches counts and notes as it reads (see there). */
type ReadNotes = { bytes: number; lineEnd?: '\n' | '\r\n' };

/**
 * Cuts decoded text into lines: the text after the last newline waits for the next chunk (only
 * its first 200 characters once it passes MAX_LINE_CHARS).
 */
class LineSplitter {
  private partial = '';
  private oversize = false;
  private line = 0;
  private first = true;

  constructor(
    private readonly decoder: InputDecoder,
    private readonly read: ReadNotes | undefined,
  ) {}

  /** The lines the text ends. */
  split(text: string): RawLine[] {
    const out: RawLine[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      out.push(this.finish(this.oversize ? this.partial : this.partial + text.slice(start, nl)));
      this.partial = '';
      start = nl + 1;
    }
    if (!this.oversize) this.keep(text.slice(start));
    return out;
  }

  /** The last line (one without a newline), if any. */
  end(): RawLine | undefined {
    this.partial += this.decoder.end();
    return this.partial.length > 0 || this.oversize ? this.finish(this.partial) : undefined;
  }

  private keep(rest: string): void {
    this.partial += rest;
    if (this.partial.length > MAX_LINE_CHARS) {
      this.partial = this.partial.slice(0, 200);
      this.oversize = true;
    }
  }

  private finish(text: string): RawLine {
    this.line++;
    const line = this.line;
    const cr = text.endsWith('\r');
    if (this.read && this.read.lineEnd === undefined) this.read.lineEnd = cr ? '\r\n' : '\n';
    const t = this.withoutBom(cr ? text.slice(0, -1) : text);
    const out: RawLine = this.oversize || t.length > MAX_LINE_CHARS ? { line, text: t.slice(0, 200), oversize: true } : { line, text: t };
    this.oversize = false;
    const invalid = this.invalidOn(line);
    if (invalid !== undefined) out.invalid = invalid;
    return out;
  }

  private withoutBom(t: string): string {
    if (!this.first) return t;
    this.first = false;
    return t.charCodeAt(0) === 0xfeff ? t.slice(1) : t;
  }

  /** Why the line holds invalid bytes, if it does (the decoder runs ahead of the lines: places on earlier lines were on lines already given). */
  private invalidOn(line: number): string | undefined {
    const invalid = this.decoder.invalid;
    let found: string | undefined;
    while (invalid.length > 0 && (invalid[0]?.line ?? 0) <= line) {
      const bad = invalid.shift();
      if (bad?.line === line) found = describeInvalid(bad);
    }
    return found;
  }
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
  read?: ReadNotes,
): AsyncGenerator<RawLine[]> {
  const decoder = new InputDecoder(encoding);
  const lines = new LineSplitter(decoder, read);
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    if (read) read.bytes += bytes.length;
    const out = lines.split(decoder.write(bytes));
    if (out.length > 0) yield out;
  }
  const last = lines.end();
  if (last !== undefined) yield [last];
}
