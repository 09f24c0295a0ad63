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
import { checkKnownFields, copyCheckedFields, isPlainObject, isStringOfLength, type ValueCheck } from './field-checks.js';
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

function unknownContactField(key: string): string {
  const replacedBy = key === 'email_permission' ? 'email_consent' : key === 'phone_permission' ? 'sms_consent' : undefined;
  return `is not a writable contact field${replacedBy === undefined ? '' : ` (replaced by ${replacedBy})`}`;
}

const shortName: ValueCheck = (v) => (isStringOfLength(v, 0, 255) ? undefined : 'must be a string of at most 255 characters');

/** The fields of a contact write besides its e-mail and phone, in the contract's order. */
const CONTACT_FIELD_CHECKS: readonly (readonly [string, ValueCheck])[] = [
  ['first_name', shortName],
  ['last_name', shortName],
  ['email_consent', (v) => (isWritableEmailConsent(v) ? undefined : consentWriteError('email_consent', v))],
  ['sms_consent', (v) => (isWritableSmsConsent(v) ? undefined : consentWriteError('sms_consent', v))],
  ['send_welcome_sms', (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean')],
];

/**
 * Checks a contact write body. `mode` create needs email or phone. The phone requirement of
 * `single_opt_in`/`subscribed` depends on the stored contact and is checked by the caller.
 */
export function validateContactWrite(input: unknown, mode: 'create' | 'patch'): ValidationResult<ContactWrite> {
  if (!isPlainObject(input)) {
    return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  }
  const body = input;
  const errors: FieldError[] = [];
  const out: ContactWrite = {};
  checkKnownFields(body, CONTACT_WRITE_FIELDS, unknownContactField, errors);
  checkEmailAndPhone(body, out, errors);
  copyCheckedFields(body, CONTACT_FIELD_CHECKS, out as Record<string, unknown>, errors);
  if (mode === 'create' && body.email === undefined && body.phone === undefined) {
    errors.push({ field: 'email', message: 'one of email or phone is required' });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out };
}
