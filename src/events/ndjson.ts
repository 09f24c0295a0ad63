/**
 * NDJSON events: a streaming line reader (one line in memory at a time, however large the file)
 * and the per-line parser/validator. No terminal code here.
 */
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import { describeInvalid, InputDecoder, type InputEncoding } from '../bulk/decode.js';
import type { FieldError } from '../contract/errors.js';
import { validateEventInput } from '../contract/events.js';
import { isE164 } from '../contract/formats.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../contract/json-depth.js';
import type { PhoneResult } from '../contract/phone.js';
import type { EventInput } from '../contract/types.js';

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
  /** Counts the bytes read so far (for the share of the input read in the progress line). */
  read?: { bytes: number },
): AsyncGenerator<RawLine[]> {
  const decoder = new InputDecoder(encoding);
  let partial = '';
  let oversize = false;
  let line = 0;
  let first = true;
  const finish = (text: string): RawLine => {
    line++;
    let t = text.endsWith('\r') ? text.slice(0, -1) : text;
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

export type ParsedLine =
  | { kind: 'blank' }
  /** The line has a phone number to normalise and no `normalizePhone` was given: load it, parse again. */
  | { kind: 'needs_phone' }
  | { kind: 'event'; event: EventInput }
  | {
      kind: 'invalid';
      code: 'invalid_json' | 'invalid_request' | 'payload_too_large' | 'invalid_encoding';
      message: string;
      eventType?: string;
    };

export interface LineOptions {
  defaultCountry?: CountryCode;
  /**
   * contract/phone.ts's normalizePhone. Passed in rather than imported because libphonenumber's
   * metadata takes ~100 ms to load, which a file of E.164 numbers or emails never needs.
   */
  normalizePhone?: (input: string, defaultCountry?: CountryCode) => PhoneResult;
}

/** Loads the phone normaliser (libphonenumber) on first need. */
export async function loadNormalizePhone(): Promise<NonNullable<LineOptions['normalizePhone']>> {
  return (await import('../contract/phone.js')).normalizePhone;
}

function describe(errors: FieldError[]): string {
  return errors.map((e) => (e.message.startsWith('one of ') ? e.message : `${e.field} ${e.message}`)).join('; ');
}

/**
 * Parses and validates one NDJSON line as an event body. Local phone numbers are normalised to
 * E.164 first (with `defaultCountry` and `normalizePhone`; without the latter such a line answers
 * `needs_phone`). Blank lines are skipped, not counted.
 */
export function parseEventLine(raw: RawLine, opts: LineOptions = {}): ParsedLine {
  if (raw.oversize) {
    return { kind: 'invalid', code: 'payload_too_large', message: `the line is longer than ${MAX_LINE_CHARS} characters` };
  }
  if (raw.invalid !== undefined) return { kind: 'invalid', code: 'invalid_encoding', message: raw.invalid };
  if (raw.text.trim() === '') return { kind: 'blank' };
  // Refused before parsing, by a scan without recursion (a line 10,000 levels deep).
  if (jsonTooDeep(raw.text)) {
    return { kind: 'invalid', code: 'invalid_request', message: `the event is nested more than ${MAX_JSON_DEPTH} levels deep` };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw.text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind: 'invalid', code: 'invalid_json', message: `not valid JSON (${reason})` };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const body = value as Record<string, unknown>;
    if (typeof body.phone === 'string' && !isE164(body.phone)) {
      if (!opts.normalizePhone) return { kind: 'needs_phone' };
      const phone = opts.normalizePhone(body.phone, opts.defaultCountry);
      const eventType = typeof body.event_type === 'string' ? body.event_type : undefined;
      if (!phone.ok) return { kind: 'invalid', code: 'invalid_request', message: `phone ${phone.message}`, eventType };
      value = { ...body, phone: phone.e164 };
    }
  }
  const result = validateEventInput(value);
  if (!result.ok) {
    const eventType =
      typeof value === 'object' && value !== null && typeof (value as { event_type?: unknown }).event_type === 'string'
        ? ((value as { event_type: string }).event_type as string)
        : undefined;
    return { kind: 'invalid', code: 'invalid_request', message: describe(result.errors), eventType };
  }
  return { kind: 'event', event: result.value };
}
