/**
 * A CSV file must keep one kind of line end. The parser takes the header's (CRLF, LF or CR) as the
 * only record end, so a file mixing them (a CRLF header, then LF, CR and CRLF lines: files
 * concatenated, or edited by two tools) had its records merged: three orders became one rejected
 * "ragged" row and two order ids never appeared in the report. Such a file is refused before
 * anything is sent, naming the first line whose end differs.
 *
 * Line ends inside quoted cells are the cell's own (Excel writes LF inside quotes in a CRLF file):
 * they are not counted as different. The check is native-speed (Buffer.indexOf per line) on a file
 * whose line ends are all alike, and reads quotes byte by byte only once a differing one is seen.
 */
import { open } from 'node:fs/promises';

export type LineEnd = 'CRLF' | 'LF' | 'CR';

export interface MixedLineEnd {
  /** The physical line (1-based) whose end differs from the header's. */
  line: number;
  found: LineEnd;
  expected: LineEnd;
}

const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
/** Bytes after which a quote opens a quoted cell (as the CSV parser reads them: only at a cell's start). */
const CELL_STARTS = new Set([0x2c, 0x3b, 0x09, 0x7c, LF, CR]);

const CHUNK = 1024 * 1024;

/** The first line end of `buf` (its kind), or undefined when there is none or it may continue past the buffer. */
function firstEnd(buf: Buffer, length: number): LineEnd | undefined {
  for (let i = 0; i < length; i++) {
    const b = buf[i];
    if (b === LF) return 'LF';
    if (b === CR) return i + 1 < length ? (buf[i + 1] === LF ? 'CRLF' : 'CR') : undefined;
  }
  return undefined;
}

/** Whether every line end of the chunk is `expected` (quotes ignored); `prev` is the byte before it. */
function allAlike(buf: Buffer, length: number, expected: LineEnd, prev: number, next: number | undefined): boolean {
  const view = buf.subarray(0, length);
  if (expected === 'LF') return view.indexOf(CR) === -1;
  if (expected === 'CR') return view.indexOf(LF) === -1;
  for (let i = view.indexOf(LF); i !== -1; i = view.indexOf(LF, i + 1)) if ((i === 0 ? prev : view[i - 1]) !== CR) return false;
  for (let i = view.indexOf(CR); i !== -1; i = view.indexOf(CR, i + 1)) {
    const after = i + 1 < length ? view[i + 1] : next;
    if (after !== undefined && after !== LF) return false;
  }
  return true;
}

/**
 * The first line end outside quotes that differs from the header's, in a regular file; undefined
 * when they are all alike, when the file has fewer than two lines, or when the run is aborted.
 */
export async function findMixedLineEnd(path: string, signal?: AbortSignal): Promise<MixedLineEnd | undefined> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let { bytesRead } = await fh.read(buf, 0, CHUNK, 0);
    // UTF-16 (known by its byte-order mark) has a zero byte beside each line end: not checked here.
    if (bytesRead >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) return undefined;
    const expected = firstEnd(buf, bytesRead);
    if (expected === undefined) return undefined;
    // The fast pass: one indexOf per line end.
    let position = 0;
    let prev = -1;
    let alike = true;
    while (bytesRead > 0) {
      if (signal?.aborted) return undefined;
      const last = buf[bytesRead - 1] as number;
      const more = await fh.read(Buffer.allocUnsafe(1), 0, 1, position + bytesRead);
      const next = more.bytesRead === 1 ? (more.buffer[0] as number) : undefined;
      if (!allAlike(buf, bytesRead, expected, prev, next)) {
        alike = false;
        break;
      }
      prev = last;
      position += bytesRead;
      ({ bytesRead } = await fh.read(buf, 0, CHUNK, position));
    }
    if (alike) return undefined;
    return await scanQuoted(fh, buf, expected, signal);
  } finally {
    await fh.close();
  }
}

/** The slow pass, from the start: line ends outside quoted cells, with physical line numbers. */
// biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one pass over every byte of the file, a state machine (quoted or not, a quote just closed, a CR whose LF may be in the next chunk) that must carry its state across chunks; split into calls per byte it would cost a call per byte of the file
async function scanQuoted(
  fh: Awaited<ReturnType<typeof open>>,
  buf: Buffer,
  expected: LineEnd,
  signal: AbortSignal | undefined,
): Promise<MixedLineEnd | undefined> {
  let line = 1;
  let inQuote = false;
  let justClosed = false; // the byte before was a quote that closed a cell: a quote now is an escaped one
  let prev = LF; // the file's start is a cell's start
  let pendingCr = false; // a CR whose next byte may be in the next chunk
  let position = 0;
  for (;;) {
    if (signal?.aborted) return undefined;
    const { bytesRead } = await fh.read(buf, 0, CHUNK, position);
    if (bytesRead === 0) break;
    for (let i = 0; i < bytesRead; i++) {
      const b = buf[i] as number;
      if (pendingCr) {
        pendingCr = false;
        const kind: LineEnd = b === LF ? 'CRLF' : 'CR';
        if (!inQuote && kind !== expected) return { line, found: kind, expected };
        line++;
        if (b === LF) {
          prev = LF;
          continue;
        }
      }
      if (b === QUOTE) {
        if (inQuote) {
          inQuote = false;
          justClosed = true;
          prev = b;
          continue;
        }
        if (justClosed || CELL_STARTS.has(prev)) inQuote = true;
      } else if (b === CR) {
        pendingCr = true;
      } else if (b === LF) {
        if (!inQuote && expected !== 'LF') return { line, found: 'LF', expected };
        line++;
      }
      justClosed = false;
      prev = b;
    }
    position += bytesRead;
  }
  if (pendingCr && !inQuote && expected !== 'CR') return { line, found: 'CR', expected };
  return undefined;
}

export const LINE_END_NAMES: Record<LineEnd, string> = { CRLF: 'CRLF (\\r\\n)', LF: 'LF (\\n)', CR: 'CR (\\r)' };

/** The message for a file that mixes line ends. */
export function describeMixedLineEnd(name: string, m: MixedLineEnd): string {
  return `${name}: line ${m.line} ends with ${LINE_END_NAMES[m.found]} where the header line ends with ${LINE_END_NAMES[m.expected]}: a file that mixes line ends would have its records merged`;
}
