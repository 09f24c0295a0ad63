/**
 * Consent vocabulary of the service (spec: "States and transitions").
 * The single source of truth for the sandbox, the client and the commands.
 */

export const EMAIL_CONSENT_VALUES = ['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed', 'compliance_suppressed'] as const;

export const SMS_CONSENT_VALUES = ['subscribed', 'unsubscribed', 'never_subscribed', 'single_opt_in', 'pending'] as const;

export type EmailConsent = (typeof EMAIL_CONSENT_VALUES)[number];
export type SmsConsent = (typeof SMS_CONSENT_VALUES)[number];

/** Values a client may write; the others are set by the system only (read-only, filterable). */
export const EMAIL_CONSENT_WRITABLE = ['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed'] as const;
export const SMS_CONSENT_WRITABLE = ['subscribed', 'unsubscribed', 'never_subscribed', 'single_opt_in'] as const;

export type WritableEmailConsent = (typeof EMAIL_CONSENT_WRITABLE)[number];
export type WritableSmsConsent = (typeof SMS_CONSENT_WRITABLE)[number];

export const EMAIL_CONSENT_READ_ONLY = ['compliance_suppressed'] as const;
export const SMS_CONSENT_READ_ONLY = ['pending'] as const;

/** SMS values that need the contact to have a phone number (after the write). */
export const SMS_CONSENT_NEEDING_PHONE = ['single_opt_in', 'subscribed'] as const;

/** The value that replaced the former `non_subscribed`. */
export const FORMER_CONSENT_VALUES: Readonly<Record<string, string>> = { non_subscribed: 'never_subscribed' };

export function isEmailConsent(value: unknown): value is EmailConsent {
  return typeof value === 'string' && (EMAIL_CONSENT_VALUES as readonly string[]).includes(value);
}

export function isSmsConsent(value: unknown): value is SmsConsent {
  return typeof value === 'string' && (SMS_CONSENT_VALUES as readonly string[]).includes(value);
}

export function isWritableEmailConsent(value: unknown): value is WritableEmailConsent {
  return typeof value === 'string' && (EMAIL_CONSENT_WRITABLE as readonly string[]).includes(value);
}

export function isWritableSmsConsent(value: unknown): value is WritableSmsConsent {
  return typeof value === 'string' && (SMS_CONSENT_WRITABLE as readonly string[]).includes(value);
}

export function smsConsentNeedsPhone(value: unknown): boolean {
  return typeof value === 'string' && (SMS_CONSENT_NEEDING_PHONE as readonly string[]).includes(value);
}
