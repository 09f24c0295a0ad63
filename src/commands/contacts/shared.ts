/**
 * What the contacts verbs share: option parsing into a contact write (consent, phone, email
 * checks before any request), the table and CSV columns, how a contact is shown, and the
 * explanations of the service's 404/409/422 answers.
 */
import { ApiError, MissingScopeError } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { Context } from '../../context.js';
import {
  EMAIL_CONSENT_VALUES,
  EMAIL_CONSENT_WRITABLE,
  FORMER_CONSENT_VALUES,
  isEmailConsent,
  isSmsConsent,
  SMS_CONSENT_VALUES,
  SMS_CONSENT_WRITABLE,
  type SmsConsent,
  smsConsentNeedsPhone,
  type WritableEmailConsent,
  type WritableSmsConsent,
} from '../../contract/consent.js';
import { CONTACT_FIELDS as CONTACT_FIELD_NAMES } from '../../contract/contact-fields.js';
import { consentWriteError } from '../../contract/contacts.js';
import { checkEmail, isRfc3339DateTime } from '../../contract/formats.js';
import { normalizeCountry, normalizePhone } from '../../contract/phone.js';
import type { Contact, ContactWrite } from '../../contract/types.js';
import { UsageError, ValidationError } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { didYouMean } from '../../util/did-you-mean.js';

/** Field options shared by create and patch (commander's camelCase names). */
export interface ContactFieldOptions {
  email?: string;
  phone?: string;
  firstName?: string;
  lastName?: string;
  emailConsent?: string;
  smsConsent?: string;
  /** false with --no-welcome-sms. */
  welcomeSms?: boolean;
  defaultCountry?: string;
}

/** How long ago, for people: `just now`, `5 min ago`, `3 h ago`, `2 days ago`, then the date. */
export function relativeTime(value: string | null | undefined, now: number): string {
  if (!value) return '';
  const t = Date.parse(value);
  if (Number.isNaN(t)) return value;
  const s = Math.round((now - t) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 30 * 86_400) return `${Math.floor(s / 86_400)} day${s < 2 * 86_400 ? '' : 's'} ago`;
  return value.slice(0, 10);
}

/** Every field of the contact, in the order of the Contact object (CSV, records, --fields). */
export const CONTACT_FIELDS = CONTACT_FIELD_NAMES satisfies ReadonlyArray<keyof Contact>;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/** total_spent for people: `12.50 USD, 3.00 EUR`. */
function spentText(c: Pick<Contact, 'total_spent'>): string {
  return Object.entries(c.total_spent ?? {})
    .map(([cur, amount]) => `${amount} ${cur}`)
    .join(', ');
}

/**
 * How each field shows in the table at a terminal. `priority` is the order in which columns are
 * dropped when even cut cells cannot fit the width (lowest first): created, last order, total
 * spent, orders, name, updated, phone, SMS consent, email consent, email; the id is never
 * dropped. Once the columns up to `updated` are gone, an id is cut in the middle (`ct_3f9a…c81d0`,
 * both ends kept) before any other column goes; a phone is never cut (a cut phone is no phone); an email is cut down to 20 columns
 * at most; once the phone column is dropped, a contact without email shows its phone in the email
 * column (`EMAIL/PHONE`), so every row keeps an identifier.
 */
const TABLE_COLUMNS: Record<ContactField, (now: number) => Column<Contact>> = {
  id: () => ({ header: 'id', get: (c) => c.id, maxWidth: 64, minWidth: 14, truncate: 'middle', cutAfter: 55, priority: 100 }),
  email: () => ({
    header: 'email',
    get: (c) => c.email,
    maxWidth: 254,
    minWidth: 20,
    priority: 90,
    orElse: { header: 'phone', get: (c) => c.phone },
  }),
  email_consent: () => ({ header: 'email consent', get: (c) => c.email_consent, priority: 80 }),
  sms_consent: () => ({ header: 'sms consent', get: (c) => c.sms_consent, priority: 70 }),
  phone: () => ({ header: 'phone', get: (c) => c.phone, noTruncate: true, priority: 60 }),
  updated_at: (now) => ({ header: 'updated', get: (c) => relativeTime(c.updated_at, now), noTruncate: true, priority: 50 }),
  first_name: () => ({ header: 'first name', get: (c) => c.first_name, priority: 45 }),
  last_name: () => ({ header: 'last name', get: (c) => c.last_name, priority: 40 }),
  orders_count: () => ({ header: 'orders', get: (c) => c.orders_count, noTruncate: true, priority: 35 }),
  total_spent: () => ({ header: 'total spent', get: spentText, priority: 30 }),
  last_order_at: (now) => ({ header: 'last order', get: (c) => relativeTime(c.last_order_at, now), noTruncate: true, priority: 25 }),
  created_at: (now) => ({ header: 'created', get: (c) => relativeTime(c.created_at, now), noTruncate: true, priority: 20 }),
};

/**
 * The default table: id, email, phone, name, email and SMS consent, orders, total spent, updated.
 * Name, orders and total spent are left out when the first page has none (a service that does not
 * return them) and are the first to go at a narrower terminal: a wide one shows them all.
 */
function defaultTableColumns(now: number): Column<Contact>[] {
  const name: Column<Contact> = {
    header: 'name',
    get: (c) => [c.first_name, c.last_name].filter((p) => p).join(' '),
    maxWidth: 30,
    priority: 42,
    dropWhenEmpty: true,
  };
  const t = (f: ContactField) => TABLE_COLUMNS[f](now);
  return [
    t('id'),
    t('email'),
    t('phone'),
    name,
    t('email_consent'),
    t('sms_consent'),
    { ...t('orders_count'), dropWhenEmpty: true },
    { ...t('total_spent'), dropWhenEmpty: true },
    t('updated_at'),
  ];
}

/**
 * Table columns (human view): by default those of defaultTableColumns; with --fields, those
 * fields in that order. The table fits the terminal (io/table.ts).
 */
export function contactTableColumns(now: number, fields?: readonly ContactField[]): Column<Contact>[] {
  return fields ? fields.map((f) => TABLE_COLUMNS[f](now)) : defaultTableColumns(now);
}

/** TSV (stdout not a terminal, no format chosen): the table's columns, values in full. */
export const CONTACT_TSV_COLUMNS: Column<Contact>[] = [
  { header: 'id', get: (c) => c.id },
  { header: 'email', get: (c) => c.email },
  { header: 'phone', get: (c) => c.phone },
  { header: 'email consent', get: (c) => c.email_consent },
  { header: 'sms consent', get: (c) => c.sms_consent },
  { header: 'updated', get: (c) => c.updated_at },
];

/** CSV columns (and TSV ones with --fields): each field headed by its API name; total_spent is one JSON cell. */
export function contactFieldColumns(fields: readonly ContactField[] = CONTACT_FIELDS): Column<Contact>[] {
  return fields.map((f) => ({ header: f, get: (c: Contact) => c[f] }));
}

/** CSV columns: every field. */
export const CONTACT_CSV_COLUMNS: Column<Contact>[] = contactFieldColumns();

/** Shows one contact as `key  value` lines (human output): every field, or those of --fields in their order. */
export function printContactRecord(ctx: Context, c: Contact, fields: readonly ContactField[] = CONTACT_FIELDS): void {
  ctx.out.record(fields.map((f) => (f === 'total_spent' ? [f, spentText(c)] : [f, c[f]])));
}

/**
 * Prints the result of a write: the contact object with --json, the record on a terminal, and
 * only the id when stdout is a pipe (so `id=$(svc contacts create …)` works, as with gh).
 */
export function printWrittenContact(ctx: Context, c: Contact): void {
  if (ctx.settings.json) ctx.out.json(c);
  else if (ctx.io.stdoutIsTTY) printContactRecord(ctx, c);
  else ctx.out.stdout(`${c.id}\n`);
}

/** Why a consent value is not known: a former name renamed since, or the value probably meant. */
function formerHint(value: string, allowed: readonly string[]): string {
  const now = FORMER_CONSENT_VALUES[value];
  return now ? ` (${JSON.stringify(value)} was renamed ${JSON.stringify(now)})` : didYouMean(value, allowed);
}

/** A list filter value for --email-consent: any value, read-only ones included. */
export function parseEmailConsentFilter(value: string | undefined) {
  if (value === undefined) return undefined;
  if (isEmailConsent(value)) return value;
  throw new UsageError(
    `invalid --email-consent ${JSON.stringify(value)}${formerHint(value, EMAIL_CONSENT_VALUES)}: must be one of ${EMAIL_CONSENT_VALUES.join(', ')}`,
  );
}

/** A list filter value for --sms-consent: any value, read-only ones included. */
export function parseSmsConsentFilter(value: string | undefined) {
  if (value === undefined) return undefined;
  if (isSmsConsent(value)) return value;
  throw new UsageError(
    `invalid --sms-consent ${JSON.stringify(value)}${formerHint(value, SMS_CONSENT_VALUES)}: must be one of ${SMS_CONSENT_VALUES.join(', ')}`,
  );
}

/** A consent value in a write: writable values only (read-only and unknown values exit 2). */
export function parseWritableConsent(flag: '--email-consent', value: string): WritableEmailConsent;
export function parseWritableConsent(flag: '--sms-consent', value: string): WritableSmsConsent;
export function parseWritableConsent(flag: '--email-consent' | '--sms-consent', value: string): string {
  const field = flag === '--email-consent' ? 'email_consent' : 'sms_consent';
  const problem = consentWriteError(field, value);
  if (problem === undefined) return value;
  const writable = field === 'email_consent' ? EMAIL_CONSENT_WRITABLE : SMS_CONSENT_WRITABLE;
  const prefix = problem.startsWith('must') ? `invalid ${flag} ${JSON.stringify(value)}${formerHint(value, writable)}: ` : `${flag}: `;
  throw new ValidationError(`${prefix}${problem}`, { field });
}

export function parseEmail(flag: string, value: string): string {
  const v = value.trim();
  const r = checkEmail(v);
  if (!r.ok) {
    const why = r.message === 'must be an email address' ? 'not an email address' : r.message;
    throw new ValidationError(`invalid ${flag} ${JSON.stringify(value)}: ${why}`, { field: 'email' });
  }
  return v;
}

export function parseUpdatedSince(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // A bare date (YYYY-MM-DD) is midnight UTC, as order_date reads it.
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && isRfc3339DateTime(`${value}T00:00:00Z`)) return `${value}T00:00:00Z`;
  if (!isRfc3339DateTime(value)) {
    throw new UsageError(
      `invalid --updated-since ${JSON.stringify(value)}: must be a date (YYYY-MM-DD, midnight UTC) or an RFC 3339 time with an offset`,
      'for example 2026-01-31 or 2026-01-31T00:00:00Z',
    );
  }
  return value;
}

/**
 * Resolves the country for local phone numbers: --default-country, else the profile's
 * default_country. An unsupported code given on the command line exits 2.
 */
export async function defaultCountry(ctx: Context, flag: string | undefined) {
  if (flag !== undefined) {
    const cc = normalizeCountry(flag);
    if (!cc)
      throw new UsageError(`invalid --default-country ${JSON.stringify(flag)}: not an ISO 3166 two-letter country code such as US or GB`);
    return cc;
  }
  try {
    const store = await ctx.store();
    return normalizeCountry(store.getProfile(ctx.settings.profile)?.default_country);
  } catch {
    return undefined;
  }
}

/** Normalises a phone typed by a person to E.164; an impossible number exits 2. */
export async function parsePhone(ctx: Context, flag: string, value: string, countryFlag: string | undefined): Promise<string> {
  // Only look up the profile when the number needs a country.
  const trimmed = value.trim();
  const needsCountry = !trimmed.startsWith('+') && !trimmed.startsWith('00');
  const cc = needsCountry || countryFlag !== undefined ? await defaultCountry(ctx, countryFlag) : undefined;
  const r = normalizePhone(value, cc);
  if (!r.ok) throw new ValidationError(`invalid ${flag}: ${r.message}`, { field: 'phone' });
  return r.e164;
}

/** Turns the field flags into a contact write body, checking every value before sending. */
export async function buildContactWrite(ctx: Context, opts: ContactFieldOptions): Promise<ContactWrite> {
  const body: ContactWrite = {};
  if (opts.defaultCountry !== undefined) await defaultCountry(ctx, opts.defaultCountry);
  if (opts.email !== undefined) body.email = parseEmail('--email', opts.email);
  if (opts.phone !== undefined) body.phone = await parsePhone(ctx, '--phone', opts.phone, opts.defaultCountry);
  for (const [flag, key, value] of [
    ['--first-name', 'first_name', opts.firstName],
    ['--last-name', 'last_name', opts.lastName],
  ] as const) {
    if (value === undefined) continue;
    if (value.length > 255) throw new ValidationError(`${flag} is longer than 255 characters`, { field: key });
    body[key] = value;
  }
  if (opts.emailConsent !== undefined) body.email_consent = parseWritableConsent('--email-consent', opts.emailConsent);
  if (opts.smsConsent !== undefined) body.sms_consent = parseWritableConsent('--sms-consent', opts.smsConsent);
  return body;
}

/** True when the body changes something (send_welcome_sms alone changes nothing). */
export function hasFields(body: ContactWrite): boolean {
  return Object.keys(body).some((k) => k !== 'send_welcome_sms');
}

/** The usage error for an SMS value that needs a phone the contact does not have. */
export function phoneRequiredError(sms: string, id?: string): ValidationError {
  const who = id ? `contact ${id} has no phone number` : 'the new contact would have no phone number';
  return new ValidationError(`--sms-consent ${sms} needs a phone number, and ${who}`, {
    field: 'phone',
    hint: 'add --phone (E.164 such as +14155550100, or a local number with --default-country)',
  });
}

/** Checks the phone requirement of single_opt_in/subscribed against the contact after the write. */
export function checkPhoneRequirement(body: ContactWrite, current: Pick<Contact, 'phone'> | undefined, id?: string): void {
  if (!smsConsentNeedsPhone(body.sms_consent)) return;
  if (body.phone) return;
  if (current?.phone) return;
  throw phoneRequiredError(body.sms_consent as string, id);
}

export type WelcomeSms = 'sent' | 'suppressed' | 'none' | 'unknown';

/**
 * Whether this write triggered the welcome SMS (spec: a move from any other SMS state into
 * `subscribed`, unless send_welcome_sms is false). `previous` undefined: not known.
 */
export function welcomeSmsOutcome(body: ContactWrite, previous: SmsConsent | undefined, after: Contact): WelcomeSms {
  if (body.sms_consent !== 'subscribed' || after.sms_consent !== 'subscribed') return 'none';
  if (previous === 'subscribed') return 'none';
  if (previous === undefined) return 'unknown';
  return body.send_welcome_sms === false ? 'suppressed' : 'sent';
}

/** Tells the user about the welcome SMS on stderr. */
export function reportWelcomeSms(ctx: Context, outcome: WelcomeSms, id: string): void {
  if (outcome === 'sent') ctx.out.info(`SMS consent is now subscribed: a welcome SMS will be sent to contact ${id}.`);
  else if (outcome === 'suppressed') ctx.out.info(`SMS consent is now subscribed; the welcome SMS was suppressed (--no-welcome-sms).`);
  else if (outcome === 'unknown') {
    ctx.out.info(`SMS consent is subscribed; a welcome SMS is sent only if contact ${id} was not subscribed to SMS before.`);
  }
}

/** Rewrites the service's 404 and 422 into messages that say what to do; other errors unchanged. */
export function explainContactError(err: unknown, id?: string): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.kind === 'suppressed' || err.code === 'compliance_suppressed') {
    const who = id ? `contact ${id}` : 'the contact with this email or phone';
    return err.withMessage(
      `${who} is suppressed by the system (compliance: email_consent compliance_suppressed) and cannot be changed; nothing was changed`,
    );
  }
  if (err.kind === 'not_found' && id) return err.withMessage(`no contact with id ${id} (check the id with \`svc contacts list\`)`);
  return err;
}

/**
 * Fetches the contact before a write, to know its phone and SMS state. A token that may write
 * but not read (contacts_write without contacts_read) answers 403: then the write goes ahead and
 * the service does the checks.
 */
export async function fetchBeforeWrite(ctx: Context, client: ApiClient, id: string): Promise<Contact | undefined> {
  try {
    return await client.getContact(id, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof MissingScopeError || (err instanceof ApiError && err.code === 'insufficient_scope')) {
      ctx.log.debug(`cannot read contact ${id} before writing (no contacts_read); the service will check the write`);
      return undefined;
    }
    throw explainContactError(err, id);
  }
}

/** Validates a contact id argument (opaque, but never empty or containing a slash or spaces). */
export function parseContactId(id: string | undefined, what = 'contact id'): string {
  const v = (id ?? '').trim();
  if (v === '') throw new UsageError(`missing ${what}`, 'find ids with `svc contacts list`');
  if (/[\s/?#]/.test(v))
    throw new UsageError(`invalid ${what} ${JSON.stringify(id)}`, 'ids look like ct_…; find them with `svc contacts list`');
  return v;
}
