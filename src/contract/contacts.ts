/** Validation of contact writes (POST/PATCH /v1/contacts), shared by the sandbox and the CLI. */
import {
  EMAIL_CONSENT_READ_ONLY,
  EMAIL_CONSENT_WRITABLE,
  isWritableEmailConsent,
  isWritableSmsConsent,
  SMS_CONSENT_READ_ONLY,
  SMS_CONSENT_WRITABLE,
} from './consent.js';
import { CONTACT_WRITE_FIELDS } from './contact-fields.js';
import type { FieldError } from './errors.js';
import { checkEmailAndPhone } from './formats.js';
import type { ValidationResult } from './orders.js';
import type { ContactWrite } from './types.js';

export { CONTACT_WRITE_FIELDS } from './contact-fields.js';

/** Explains why a consent value cannot be written (unknown or read-only), listing the allowed ones. */
export function consentWriteError(field: 'email_consent' | 'sms_consent', value: unknown): string | undefined {
  const writable: readonly string[] = field === 'email_consent' ? EMAIL_CONSENT_WRITABLE : SMS_CONSENT_WRITABLE;
  const readOnly: readonly string[] = field === 'email_consent' ? EMAIL_CONSENT_READ_ONLY : SMS_CONSENT_READ_ONLY;
  if (typeof value === 'string' && writable.includes(value)) return undefined;
  const allowed = writable.join(', ');
  if (typeof value === 'string' && readOnly.includes(value)) {
    return `${JSON.stringify(value)} is read-only (set by the system); writable values: ${allowed}`;
  }
  return `must be one of: ${allowed}`;
}

/**
 * Checks a contact write body. `mode` create needs email or phone. The phone requirement of
 * `single_opt_in`/`subscribed` depends on the stored contact and is checked by the caller.
 */
export function validateContactWrite(input: unknown, mode: 'create' | 'patch'): ValidationResult<ContactWrite> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const body = input as Record<string, unknown>;
  const errors: FieldError[] = [];
  const out: ContactWrite = {};
  for (const key of Object.keys(body)) {
    if (!(CONTACT_WRITE_FIELDS as readonly string[]).includes(key)) {
      const hint =
        key === 'email_permission' || key === 'phone_permission'
          ? ` (replaced by ${key === 'email_permission' ? 'email_consent' : 'sms_consent'})`
          : '';
      errors.push({ field: key, message: `is not a writable contact field${hint}` });
    }
  }
  checkEmailAndPhone(body, out, errors);
  for (const field of ['first_name', 'last_name'] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v === 'string' && v.length <= 255) out[field] = v;
    else errors.push({ field, message: 'must be a string of at most 255 characters' });
  }
  if (body.email_consent !== undefined) {
    if (isWritableEmailConsent(body.email_consent)) out.email_consent = body.email_consent;
    else errors.push({ field: 'email_consent', message: consentWriteError('email_consent', body.email_consent) as string });
  }
  if (body.sms_consent !== undefined) {
    if (isWritableSmsConsent(body.sms_consent)) out.sms_consent = body.sms_consent;
    else errors.push({ field: 'sms_consent', message: consentWriteError('sms_consent', body.sms_consent) as string });
  }
  if (body.send_welcome_sms !== undefined) {
    if (typeof body.send_welcome_sms === 'boolean') out.send_welcome_sms = body.send_welcome_sms;
    else errors.push({ field: 'send_welcome_sms', message: 'must be a boolean' });
  }
  if (mode === 'create' && body.email === undefined && body.phone === undefined) {
    errors.push({ field: 'email', message: 'one of email or phone is required' });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out };
}
