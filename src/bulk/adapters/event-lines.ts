/**
 * What an NDJSON line of `events send --file` means: the per-line parser and validator of the
 * events adapter (bulk/adapters/events.ts). A rejects file's `_error` member is ignored, so a fixed
 * rejects file sends as the original would have.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import type { FieldError } from '../../contract/errors.js';
import { validateEventInput } from '../../contract/events.js';
import { parseJson } from '../../contract/exact-json.js';
import { isE164 } from '../../contract/formats.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../contract/json-depth.js';
import type { PhoneResult } from '../../contract/phone.js';
import type { EventInput } from '../../contract/types.js';
import type { RawLine } from '../sources/ndjson-source.js';
import { MAX_LINE_CHARS } from '../sources/ndjson-source.js';

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
      /** The first field the message names. */
      field?: string;
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
  return (await import('../../contract/phone.js')).normalizePhone;
}

function describe(errors: FieldError[]): string {
  return errors.map((e) => (e.message.startsWith('one of ') ? e.message : `${e.field} ${e.message}`)).join('; ');
}

/** What the line's raw text already says (too long, not UTF-8, blank, too deep), before parsing. */
function screenLine(raw: RawLine): ParsedLine | undefined {
  if (raw.oversize) {
    return { kind: 'invalid', code: 'payload_too_large', message: `the line is longer than ${MAX_LINE_CHARS} characters` };
  }
  if (raw.invalid !== undefined) return { kind: 'invalid', code: 'invalid_encoding', message: raw.invalid };
  if (raw.text.trim() === '') return { kind: 'blank' };
  // Refused before parsing, by a scan without recursion (a line 10,000 levels deep).
  if (jsonTooDeep(raw.text)) {
    return { kind: 'invalid', code: 'invalid_request', message: `the event is nested more than ${MAX_JSON_DEPTH} levels deep` };
  }
  return undefined;
}

function invalidJson(err: unknown, text: string): ParsedLine {
  const reason = err instanceof Error ? err.message : String(err);
  // A file saved with bare CR line ends (classic Mac) reads as one line holding every event:
  // NDJSON lines end in LF or CRLF, and a CR is JSON whitespace, so it is said, not split on.
  const cr = /\r(?!\n)/.test(text)
    ? "; the line holds bare carriage returns (CR): NDJSON lines end in LF or CRLF, convert the file's line ends (tr '\\r' '\\n')"
    : '';
  return { kind: 'invalid', code: 'invalid_json', message: `not valid JSON (${reason})${cr}` };
}

function eventTypeOf(value: unknown): string | undefined {
  const type = typeof value === 'object' && value !== null ? (value as { event_type?: unknown }).event_type : undefined;
  return typeof type === 'string' ? type : undefined;
}

/**
 * The body's phone in E.164 when it must be normalised (a string), nothing to do (undefined), or
 * why it cannot be (`needs_phone` without a normaliser, or an invalid number).
 */
function normalisedPhone(body: Record<string, unknown>, opts: LineOptions): string | ParsedLine | undefined {
  if (typeof body.phone !== 'string' || isE164(body.phone)) return undefined;
  if (!opts.normalizePhone) return { kind: 'needs_phone' };
  const phone = opts.normalizePhone(body.phone, opts.defaultCountry);
  if (phone.ok) return phone.e164;
  return { kind: 'invalid', code: 'invalid_request', message: `phone ${phone.message}`, eventType: eventTypeOf(body), field: 'phone' };
}

/**
 * Parses and validates one NDJSON line as an event body. Local phone numbers are normalised to
 * E.164 first (with `defaultCountry` and `normalizePhone`; without the latter such a line answers
 * `needs_phone`). Blank lines are skipped, not counted.
 */
export function parseEventLine(raw: RawLine, opts: LineOptions = {}): ParsedLine {
  const screened = screenLine(raw);
  if (screened !== undefined) return screened;
  let value: unknown;
  try {
    value = parseJson(raw.text);
  } catch (err) {
    return invalidJson(err, raw.text);
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    let body = value as Record<string, unknown>;
    if ('_error' in body) {
      // A rejects file's reason (bulk/rejects.ts): not part of the event.
      const { _error, ...rest } = body;
      value = body = rest;
    }
    const phone = normalisedPhone(body, opts);
    if (typeof phone === 'object') return phone;
    if (phone !== undefined) value = { ...body, phone };
  }
  const result = validateEventInput(value);
  if (!result.ok) {
    return {
      kind: 'invalid',
      code: 'invalid_request',
      message: describe(result.errors),
      eventType: eventTypeOf(value),
      field: result.errors[0]?.field,
    };
  }
  return { kind: 'event', event: result.value };
}
