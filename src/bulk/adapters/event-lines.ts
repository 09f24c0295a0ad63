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
    value = parseJson(raw.text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    // A file saved with bare CR line ends (classic Mac) reads as one line holding every event:
    // NDJSON lines end in LF or CRLF, and a CR is JSON whitespace, so it is said, not split on.
    const cr = /\r(?!\n)/.test(raw.text)
      ? "; the line holds bare carriage returns (CR): NDJSON lines end in LF or CRLF, convert the file's line ends (tr '\\r' '\\n')"
      : '';
    return { kind: 'invalid', code: 'invalid_json', message: `not valid JSON (${reason})${cr}` };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    let body = value as Record<string, unknown>;
    if ('_error' in body) {
      // A rejects file's reason (bulk/rejects.ts): not part of the event.
      const { _error, ...rest } = body;
      value = body = rest;
    }
    if (typeof body.phone === 'string' && !isE164(body.phone)) {
      if (!opts.normalizePhone) return { kind: 'needs_phone' };
      const phone = opts.normalizePhone(body.phone, opts.defaultCountry);
      const eventType = typeof body.event_type === 'string' ? body.event_type : undefined;
      if (!phone.ok) return { kind: 'invalid', code: 'invalid_request', message: `phone ${phone.message}`, eventType, field: 'phone' };
      value = { ...body, phone: phone.e164 };
    }
  }
  const result = validateEventInput(value);
  if (!result.ok) {
    const eventType =
      typeof value === 'object' && value !== null && typeof (value as { event_type?: unknown }).event_type === 'string'
        ? ((value as { event_type: string }).event_type as string)
        : undefined;
    return { kind: 'invalid', code: 'invalid_request', message: describe(result.errors), eventType, field: result.errors[0]?.field };
  }
  return { kind: 'event', event: result.value };
}
