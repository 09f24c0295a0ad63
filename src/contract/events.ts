/** Validation of a custom event body (POST /v1/events), shared by the sandbox and the CLI. */
import { CONTACT_KEY_FIELDS } from './contact-fields.js';
import type { FieldError } from './errors.js';
import { stringifyJson } from './exact-json.js';
import { checkEmailAndPhone, isRfc3339DateTime } from './formats.js';
import type { ValidationResult } from './orders.js';
import type { EventInput } from './types.js';

/** An event's fields: its type, its contact (a contact's key fields, or its id), and its own. */
export const EVENT_FIELDS = ['event_type', ...CONTACT_KEY_FIELDS, 'contact_id', 'properties', 'occurred_at', 'event_id'] as const;

/** Largest serialised `properties` object (sandbox decision). */
export const MAX_EVENT_PROPERTIES_BYTES = 64 * 1024;

export function validateEventInput(input: unknown): ValidationResult<EventInput> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const body = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  const out: Partial<EventInput> = {};
  for (const key of Object.keys(body)) {
    if (!(EVENT_FIELDS as readonly string[]).includes(key)) errors.push({ field: key, message: 'is not a known event field' });
  }
  if (typeof body.event_type === 'string' && body.event_type.length >= 1 && body.event_type.length <= 255) out.event_type = body.event_type;
  else
    errors.push({
      field: 'event_type',
      message: body.event_type === undefined ? 'is required' : 'must be a string of 1 to 255 characters',
    });

  checkEmailAndPhone(body, out, errors);
  if (body.contact_id !== undefined) {
    if (typeof body.contact_id === 'string' && body.contact_id.length > 0 && body.contact_id.length <= 255)
      out.contact_id = body.contact_id;
    else errors.push({ field: 'contact_id', message: 'must be a non-empty string' });
  }
  if (body.email === undefined && body.phone === undefined && body.contact_id === undefined) {
    errors.push({ field: 'email', message: 'one of email, phone or contact_id is required' });
  }
  if (body.properties !== undefined) {
    const p = body.properties;
    if (typeof p !== 'object' || p === null || Array.isArray(p)) errors.push({ field: 'properties', message: 'must be a JSON object' });
    else if (Buffer.byteLength(stringifyJson(p)) > MAX_EVENT_PROPERTIES_BYTES)
      errors.push({ field: 'properties', message: 'must be at most 64 KiB serialised' });
    else out.properties = p as Record<string, unknown>;
  }
  if (body.occurred_at !== undefined) {
    if (typeof body.occurred_at === 'string' && isRfc3339DateTime(body.occurred_at)) out.occurred_at = body.occurred_at;
    else errors.push({ field: 'occurred_at', message: 'must be an RFC 3339 date-time with offset' });
  }
  if (body.event_id !== undefined) {
    if (typeof body.event_id === 'string' && body.event_id.length >= 1 && body.event_id.length <= 255) out.event_id = body.event_id;
    else errors.push({ field: 'event_id', message: 'must be a string of 1 to 255 characters' });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out as EventInput };
}
