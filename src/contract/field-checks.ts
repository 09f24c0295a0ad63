/** Small pieces the body validators (orders, contacts, events) share. */
import type { FieldError } from './errors.js';

/** A field's check: undefined when the value may be written as it is, else what is wrong with it. */
export type ValueCheck = (value: unknown) => string | undefined;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An error for each key of `body` that `known` does not hold, its message from `message(key)`. */
export function checkKnownFields(
  body: Record<string, unknown>,
  known: readonly string[],
  message: (key: string) => string,
  errors: FieldError[],
): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) errors.push({ field: key, message: message(key) });
  }
}

/**
 * Each field of `checks` that `body` holds: copied into `out` when its check passes, else an error
 * naming it. In the table's order, so the errors come in the order of the contract's fields.
 */
export function copyCheckedFields(
  body: Record<string, unknown>,
  checks: readonly (readonly [string, ValueCheck])[],
  out: Record<string, unknown>,
  errors: FieldError[],
): void {
  for (const [field, check] of checks) {
    const v = body[field];
    if (v === undefined) continue;
    const wrong = check(v);
    if (wrong === undefined) out[field] = v;
    else errors.push({ field, message: wrong });
  }
}

/** A string of 1 (or `min`) to `max` characters. */
export function isStringOfLength(v: unknown, min: number, max: number): v is string {
  return typeof v === 'string' && v.length >= min && v.length <= max;
}
