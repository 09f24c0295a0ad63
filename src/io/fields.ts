/**
 * `--fields id,email,sms_consent`: which fields a list or a single record prints, in that order,
 * in every format (JSON, NDJSON, CSV, table, TSV, the `key  value` record), so scripts need no jq
 * for the common case.
 */
import { UsageError } from '../errors.js';

/**
 * The names in `raw` (comma-separated, spaces around them ignored, a repeat kept once), checked
 * against `valid`. An unknown or missing name is a usage error (exit 2) naming it and listing the
 * valid ones.
 */
export function parseFields<F extends string>(raw: string, valid: readonly F[], flag = '--fields'): F[] {
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const list = `valid fields: ${valid.join(', ')}`;
  if (names.length === 0) throw new UsageError(`${flag} needs at least one field name; ${list}`);
  const unknown = names.filter((n) => !(valid as readonly string[]).includes(n));
  if (unknown.length > 0) {
    const s = unknown.length === 1 ? '' : 's';
    throw new UsageError(`${flag}: unknown field${s} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ${list}`);
  }
  return [...new Set(names)] as F[];
}

/** A new object with only `fields`, in that order; a field the row lacks is null. */
export function pickFields(row: object, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = (row as Record<string, unknown>)[f] ?? null;
  return out;
}
