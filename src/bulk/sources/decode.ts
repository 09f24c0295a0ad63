/**
 * Turns the bytes of a bulk input into text without ever merging different records silently:
 * invalid UTF-8 is found and located (line and byte offset), never quietly replaced by U+FFFD
 * (two names differing in one Latin-1 letter would become one). Other encodings (`--encoding
 * windows-1252`, `latin1`, `utf-16le`…, any label of the WHATWG Encoding standard that Node's
 * TextDecoder knows) are decoded as asked.
 */
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { TextDecoder } from 'node:util';
import { InputError } from '../../importer/errors.js';

/** A place where the input is not valid in its encoding. */
export interface InvalidBytes {
  /** Physical line (1-based) of the first bad byte. */
  line: number;
  /** Byte offset of the first bad byte from the start of the input (a byte-order mark included). */
  offset: number;
  /** The bad byte. */
  byte: number;
}

export type InputEncoding = 'utf-8' | (string & {});

/** Validates an --encoding value; returns the canonical name (`latin1` is windows-1252, as in the Encoding standard). */
export function parseEncoding(label: string): InputEncoding {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    throw new InputError(
      `--encoding ${JSON.stringify(label)} is not an encoding Node.js can read`,
      'e.g. --encoding utf-8 (the default), windows-1252, latin1, iso-8859-15 or utf-16le',
    );
  }
}

/** The message for an invalid byte, naming the line and the offset, and what to do. */
export function describeInvalid(bad: InvalidBytes, what = 'line'): string {
  const hex = bad.byte.toString(16).toUpperCase().padStart(2, '0');
  return `${what} ${bad.line} is not valid UTF-8 (byte 0x${hex} at byte offset ${bad.offset}); if the file was saved by a spreadsheet in another encoding, give it with --encoding (e.g. --encoding windows-1252)`;
}

const EMPTY = Buffer.alloc(0);

/** Bytes of the UTF-8 sequence a lead byte starts (2–4), 0 for a byte that cannot lead one. */
function leadLength(b: number): number {
  if (b < 0xc2 || b > 0xf4) return 0;
  return b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
}

/** Bytes at the end of `buf` that begin a UTF-8 sequence the next chunk may complete (0–3). */
function incompleteTail(buf: Buffer): number {
  for (let k = 1; k <= 3 && k <= buf.length; k++) {
    const b = buf[buf.length - k] as number;
    if (b < 0x80) return 0;
    // A continuation byte: the lead may be before it.
    if (b <= 0xbf) continue;
    const need = leadLength(b);
    return need > k ? k : 0;
  }
  return 0;
}

/** Whether buf[i] is a continuation byte in lo..hi (the second byte of some sequences is narrower). */
function cont(buf: Uint8Array, i: number, lo = 0x80, hi = 0xbf): boolean {
  return i < buf.length && (buf[i] as number) >= lo && (buf[i] as number) <= hi;
}

/** Whether the bytes after the second continue a sequence of `length` bytes led at i. */
function restContinues(buf: Uint8Array, i: number, length: number): boolean {
  return length === 2 || (cont(buf, i + 2) && (length === 3 || cont(buf, i + 3)));
}

/** The length of the valid sequence led by the byte b (>= 0x80) at i, 0 when it is invalid (Unicode table 3-7). */
function validLength(buf: Uint8Array, i: number, b: number): number {
  const length = leadLength(b);
  if (length === 0) return 0;
  // The second byte's range, by the lead byte: E0 A0–BF, ED 80–9F, F0 90–BF, F4 80–8F.
  const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
  const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
  return cont(buf, i + 1, lo, hi) && restContinues(buf, i, length) ? length : 0;
}

/** Offsets (within `buf`) of every byte that starts an invalid UTF-8 sequence (Unicode table 3-7). */
export function invalidUtf8Offsets(buf: Uint8Array): number[] {
  const bad: number[] = [];
  let i = 0;
  while (i < buf.length) {
    const b = buf[i] as number;
    const n = b < 0x80 ? 1 : validLength(buf, i, b);
    if (n === 0) {
      bad.push(i);
      i++;
    } else i += n;
  }
  return bad;
}

function countNewlines(buf: Buffer, end = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1 && i < end; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * A streaming decoder for one input. UTF-8 (the default) is checked chunk by chunk with Node's
 * native validator; only a chunk that fails is scanned byte by byte to locate what is wrong, so a
 * valid file costs almost nothing. Invalid bytes still decode (as U+FFFD) so that the reader can
 * go on; each is recorded in `invalid`, and the reader rejects the record that holds it.
 */
export class InputDecoder {
  /** Invalid places found so far, in input order (the reader takes them off as it meets them). */
  readonly invalid: InvalidBytes[] = [];
  readonly encoding: InputEncoding;
  private readonly utf8: boolean;
  private readonly text: StringDecoder | TextDecoder;
  private carry: Buffer = EMPTY;
  /** Bytes before the current chunk, and newlines in them. */
  private offset: number;
  private lines = 0;

  private readonly checkOnly: boolean;

  /**
   * `startOffset`: bytes of the input before the first chunk given (a byte-order mark dropped by
   * the caller). `checkOnly`: validate without producing text (a scan of a whole file).
   */
  constructor(encoding: InputEncoding = 'utf-8', opts: { startOffset?: number; checkOnly?: boolean } = {}) {
    this.encoding = encoding;
    this.checkOnly = opts.checkOnly === true;
    this.utf8 = encoding === 'utf-8';
    this.text = this.utf8 ? new StringDecoder('utf8') : new TextDecoder(encoding);
    this.offset = opts.startOffset ?? 0;
  }

  write(chunk: Buffer): string {
    if (!this.utf8) return (this.text as TextDecoder).decode(chunk, { stream: true });
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const tail = incompleteTail(buf);
    const body = tail > 0 ? buf.subarray(0, buf.length - tail) : buf;
    this.carry = tail > 0 ? Buffer.from(buf.subarray(buf.length - tail)) : EMPTY;
    this.check(body);
    return this.checkOnly ? '' : (this.text as StringDecoder).write(body);
  }

  end(): string {
    if (!this.utf8) return (this.text as TextDecoder).decode();
    const rest = this.carry;
    this.carry = EMPTY;
    // A sequence cut off by the end of the input.
    if (rest.length > 0) this.record(rest, [0]);
    if (this.checkOnly) return '';
    return (this.text as StringDecoder).write(rest) + (this.text as StringDecoder).end();
  }

  /** Bytes checked so far. */
  get bytesSeen(): number {
    return this.offset;
  }

  private check(body: Buffer): void {
    if (!isUtf8(body)) this.record(body, invalidUtf8Offsets(body));
    this.lines += countNewlines(body);
    this.offset += body.length;
  }

  private record(body: Buffer, offsets: number[]): void {
    let lastLine = 0;
    for (const at of offsets) {
      const line = this.lines + countNewlines(body, at) + 1;
      // One entry per line is enough to reject its record and say where.
      if (line === lastLine) continue;
      lastLine = line;
      this.invalid.push({ line, offset: this.offset + at, byte: body[at] as number });
    }
  }
}

/**
 * Reads a whole (regular) file and returns its first invalid UTF-8 place, if any (a file that
 * starts with a UTF-16 byte-order mark is not UTF-8 and is not checked). Run before
 * anything is sent, so that such a file stops the run with exit 2 instead of rejecting rows later.
 * Native validation: a 100 MB file takes a few tens of milliseconds.
 */
export async function findInvalidUtf8(path: string, signal?: AbortSignal): Promise<InvalidBytes | undefined> {
  const fh = await open(path, 'r');
  try {
    const decoder = new InputDecoder('utf-8', { checkOnly: true });
    const buf = Buffer.alloc(1024 * 1024);
    for (;;) {
      if (signal?.aborted) return undefined;
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      // A UTF-16 byte-order mark: not UTF-8 at all; the reader knows it by that mark.
      if (decoder.bytesSeen === 0 && bytesRead >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)))
        return undefined;
      decoder.write(buf.subarray(0, bytesRead));
      if (decoder.invalid.length > 0) return decoder.invalid[0];
    }
    decoder.end();
    return decoder.invalid[0];
  } finally {
    await fh.close();
  }
}
