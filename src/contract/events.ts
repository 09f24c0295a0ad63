/** Validation of a custom event body (POST /v1/events), shared by the sandbox and the CLI. */
import { CONTACT_KEY_FIELDS } from './contact-fields.js';
import type { FieldError } from './errors.js';
import { stringifyJson } from './exact-json.js';
import { checkKnownFields, copyCheckedFields, isPlainObject, isStringOfLength, type ValueCheck } from './field-checks.js';
import { checkEmailAndPhone, isRfc3339DateTime } from './formats.js';
import type { ValidationResult } from './orders.js';
import type { EventInput } from './types.js';

/** An event's fields: its type, its contact (a contact's key fields, or its id), and its own. */
export const EVENT_FIELDS = ['event_type', ...CONTACT_KEY_FIELDS, 'contact_id', 'properties', 'occurred_at', 'event_id'] as const;

/** Largest serialised `properties` object (sandbox decision). */
export const MAX_EVENT_PROPERTIES_BYTES = 64 * 1024;

const unknownEventField = () => 'is not a known event field';

/** The event's own fields, in the contract's order. */
const EVENT_FIELD_CHECKS: readonly (readonly [string, ValueCheck])[] = [
  ['properties', propertiesError],
  ['occurred_at', (v) => (typeof v === 'string' && isRfc3339DateTime(v) ? undefined : 'must be an RFC 3339 date-time with offset')],
  ['event_id', (v) => (isStringOfLength(v, 1, 255) ? undefined : 'must be a string of 1 to 255 characters')],
];

function propertiesError(p: unknown): string | undefined {
  if (!isPlainObject(p)) return 'must be a JSON object';
  if (Buffer.byteLength(stringifyJson(p)) > MAX_EVENT_PROPERTIES_BYTES) return 'must be at most 64 KiB serialised';
  return undefined;
}

export function validateEventInput(input: unknown): ValidationResult<EventInput> {
  if (!isPlainObject(input)) {
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const body = input;
  const errors: FieldError[] = [];
  const out: Partial<EventInput> = {};
  checkKnownFields(body, EVENT_FIELDS, unknownEventField, errors);
  if (isStringOfLength(body.event_type, 1, 255)) out.event_type = body.event_type;
  else
    errors.push({
      field: 'event_type',
      message: body.event_type === undefined ? 'is required' : 'must be a string of 1 to 255 characters',
    });
  checkEmailAndPhone(body, out, errors);
  if (body.contact_id !== undefined) {
    if (isStringOfLength(body.contact_id, 1, 255)) out.contact_id = body.contact_id;
    else errors.push({ field: 'contact_id', message: 'must be a non-empty string' });
  }
  if (body.email === undefined && body.phone === undefined && body.contact_id === undefined) {
    errors.push({ field: 'email', message: 'one of email, phone or contact_id is required' });
  }
  copyCheckedFields(body, EVENT_FIELD_CHECKS, out as Record<string, unknown>, errors);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out as EventInput };
}
