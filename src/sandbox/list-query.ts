/** The query of GET /v1/contacts: its filters, page size and cursor, checked. */
import { EMAIL_CONSENT_VALUES, SMS_CONSENT_VALUES } from '../contract/consent.js';
import type { FieldError } from '../contract/errors.js';
import { checkEmail, isRfc3339DateTime, rfc3339ToMs } from '../contract/formats.js';
import { invalidRequest } from './domain/errors.js';

const LIST_PARAMS = ['email_consent', 'sms_consent', 'email', 'phone', 'updated_since', 'limit', 'cursor'];
const REMOVED_PARAMS: Record<string, string> = { email_permission: 'email_consent', phone_permission: 'sms_consent' };

export function encodeCursor(seq: number): string {
  return Buffer.from(`c1:${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  const m = /^c1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

function storedEmail(value: string): string {
  const r = checkEmail(value);
  return r.ok ? r.value : value;
}

/** The parameters given, each once and each a filter of this list; the others are errors. */
function knownParams(query: Record<string, unknown>, errors: FieldError[]): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (REMOVED_PARAMS[key]) errors.push({ field: key, message: `was removed; use ${REMOVED_PARAMS[key]} instead` });
    else if (!LIST_PARAMS.includes(key)) errors.push({ field: key, message: `is not a filter of this list (${LIST_PARAMS.join(', ')})` });
    else if (typeof value !== 'string') errors.push({ field: key, message: 'must be given once' });
    else q[key] = value;
  }
  return q;
}

/** A consent filter names one of its values. */
function checkOneOf(q: Record<string, string>, field: string, values: readonly string[], errors: FieldError[]): void {
  const value = q[field];
  if (value !== undefined && !values.includes(value)) errors.push({ field, message: `must be one of: ${values.join(', ')}` });
}

/** `updated_since` as epoch ms. */
function sinceOf(value: string | undefined, errors: FieldError[]): number | undefined {
  if (value === undefined) return undefined;
  if (isRfc3339DateTime(value)) return rfc3339ToMs(value);
  errors.push({ field: 'updated_since', message: 'must be an RFC 3339 date-time like 2026-05-12T00:00:00Z' });
  return undefined;
}

/** The page size: 50 unless `limit` says 1 to 250. */
function limitOf(value: string | undefined, errors: FieldError[]): number {
  if (value === undefined) return 50;
  if (/^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 250) return Number(value);
  errors.push({ field: 'limit', message: 'must be an integer from 1 to 250' });
  return 50;
}

/** The position the cursor continues after (0: the first page). */
function afterOf(cursor: string | undefined, errors: FieldError[]): number {
  if (cursor === undefined) return 0;
  const seq = decodeCursor(cursor);
  if (seq !== undefined) return seq;
  errors.push({ field: 'cursor', message: 'is not a cursor this service issued; pass next_cursor unchanged' });
  return 0;
}

/** Checks the list query; throws a 400 naming every bad parameter. */
export function parseListQuery(query: Record<string, unknown>) {
  const errors: FieldError[] = [];
  const q = knownParams(query, errors);
  checkOneOf(q, 'email_consent', EMAIL_CONSENT_VALUES, errors);
  checkOneOf(q, 'sms_consent', SMS_CONSENT_VALUES, errors);
  const since = sinceOf(q.updated_since, errors);
  const limit = limitOf(q.limit, errors);
  const after = afterOf(q.cursor, errors);
  if (errors.length > 0) throw invalidRequest(errors);
  return {
    email_consent: q.email_consent,
    sms_consent: q.sms_consent,
    // The stored form of an address, so any normal form of it finds the contact.
    email: q.email === undefined ? undefined : storedEmail(q.email),
    phone: q.phone,
    updated_since: since,
    limit,
    after,
    raw: q,
  };
}
