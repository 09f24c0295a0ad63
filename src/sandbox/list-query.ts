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

/** Checks the list query; throws a 400 naming every bad parameter. */
export function parseListQuery(query: Record<string, unknown>) {
  const errors: FieldError[] = [];
  const q: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (REMOVED_PARAMS[key]) errors.push({ field: key, message: `was removed; use ${REMOVED_PARAMS[key]} instead` });
    else if (!LIST_PARAMS.includes(key)) errors.push({ field: key, message: `is not a filter of this list (${LIST_PARAMS.join(', ')})` });
    else if (typeof value !== 'string') errors.push({ field: key, message: 'must be given once' });
    else q[key] = value;
  }
  if (q.email_consent !== undefined && !(EMAIL_CONSENT_VALUES as readonly string[]).includes(q.email_consent))
    errors.push({ field: 'email_consent', message: `must be one of: ${EMAIL_CONSENT_VALUES.join(', ')}` });
  if (q.sms_consent !== undefined && !(SMS_CONSENT_VALUES as readonly string[]).includes(q.sms_consent))
    errors.push({ field: 'sms_consent', message: `must be one of: ${SMS_CONSENT_VALUES.join(', ')}` });
  let since: number | undefined;
  if (q.updated_since !== undefined) {
    if (isRfc3339DateTime(q.updated_since)) since = rfc3339ToMs(q.updated_since);
    else errors.push({ field: 'updated_since', message: 'must be an RFC 3339 date-time like 2026-05-12T00:00:00Z' });
  }
  let limit = 50;
  if (q.limit !== undefined) {
    if (/^\d{1,3}$/.test(q.limit) && Number(q.limit) >= 1 && Number(q.limit) <= 250) limit = Number(q.limit);
    else errors.push({ field: 'limit', message: 'must be an integer from 1 to 250' });
  }
  let after = 0;
  if (q.cursor !== undefined) {
    const seq = decodeCursor(q.cursor);
    if (seq === undefined) errors.push({ field: 'cursor', message: 'is not a cursor this service issued; pass next_cursor unchanged' });
    else after = seq;
  }
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
