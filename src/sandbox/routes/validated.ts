/** Turns a contract/ validator's verdict into the value or the 400 naming every field. */
import type { FieldError } from '../../contract/errors.js';
import { invalidRequest } from '../domain/errors.js';

export function requireBody(body: unknown): Record<string, unknown> {
  if (body === undefined) throw invalidRequest([{ field: '(body)', message: 'is required: send a JSON object' }]);
  return body as Record<string, unknown>;
}

export function validated<T>(r: { ok: true; value: T } | { ok: false; errors: FieldError[] }): T {
  if (!r.ok) throw invalidRequest(r.errors);
  return r.value;
}
