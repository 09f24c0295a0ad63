/**
 * From CSV cells to a contact write (POST/PATCH /v1/contacts): which column holds which field (by
 * name, `--map field=Column`, or a preset's columns with fallbacks), and the consent each row asks
 * for, decided before anything is sent (docs/contacts.md, "Importing contacts"):
 * - `email_consent` / `sms_consent` columns take the spec's values; a read-only or unknown value
 *   rejects the row, naming the field;
 * - yes/no columns (`accepts_email_marketing`, `accepts_sms_marketing`, Shopify's "Accepts Email
 *   Marketing") give `subscribed` for yes; no writes nothing (no opt-in recorded is not an
 *   opt-out: a subscriber is never downgraded) unless `--no-means unsubscribed`;
 * - every write carries `send_welcome_sms: false` unless `--welcome-sms`.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import { WRITABLE_CONTACT_FIELDS } from '../contract/contact-fields.js';
import { consentWriteError, validateContactWrite } from '../contract/contacts.js';
import type { FieldError } from '../contract/errors.js';
import { normalizePhone } from '../contract/phone.js';
import type { ContactWrite } from '../contract/types.js';
import { parseBoolean } from './cell-values.js';
import { type ValueWords, valueKey } from './map-file.js';
import { type ColumnChoice, cellOf, describeFieldErrors, type FieldLayout, phoneCountry, resolveFieldColumns } from './mapping.js';

/** The fields a contacts CSV column can hold: every writable contact field, and the yes/no opt-ins. */
export const CONTACT_CSV_FIELDS = [...WRITABLE_CONTACT_FIELDS, 'accepts_email_marketing', 'accepts_sms_marketing'] as const;
export type ContactCsvField = (typeof CONTACT_CSV_FIELDS)[number];

/**
 * What a contacts mapping file or preset is checked against (importer/map-file.ts); `settable`: the
 * consent a preset's `"set"` or `--set` gives every row (Mailchimp's, from which file it is).
 */
export const CONTACT_MAPPING_SCHEMA = {
  kind: 'contacts',
  fields: CONTACT_CSV_FIELDS,
  settable: ['email_consent', 'sms_consent'],
  translatable: ['email_consent', 'sms_consent'],
} as const;

export type ContactLayout = FieldLayout<ContactCsvField>;

/** Words contact exports use for e-mail and phone (for the `--map` a missing column's message proposes). */
export const CONTACT_ALIASES: Partial<Record<string, readonly string[]>> = {
  email: ['mail', 'e_mail'],
  phone: ['mobile', 'tel', 'telephone', 'cell', 'sms'],
};

/**
 * Finds each field's column(s) (mapping.ts resolveFieldColumns: `--map` and a mapping file's
 * choices, then columns named like a field); an email or a phone column is required.
 */
export function resolveContactColumns(
  header: readonly string[],
  choices: ReadonlyMap<string, string | ColumnChoice>,
  delimiter: string,
  countryColumns: readonly string[] = [],
  constants: ReadonlyMap<string, string> = new Map(),
): ContactLayout {
  return resolveFieldColumns(
    header,
    choices,
    delimiter,
    countryColumns,
    {
      fields: CONTACT_CSV_FIELDS,
      missing: (index) => (index.email === undefined && index.phone === undefined ? ['email or phone'] : []),
      aliases: CONTACT_ALIASES,
    },
    constants,
  );
}

export interface ContactRowOptions {
  defaultCountry?: CountryCode;
  /** What `no` in a yes/no opt-in column writes: nothing (default) or `unsubscribed`. */
  noMeans: 'nothing' | 'unsubscribed';
  welcomeSms: boolean;
  /** An export's words for the consents (a preset's or mapping file's `"values"`), by `valueKey`. */
  values?: ReadonlyMap<string, ValueWords>;
}

/** One row read: the write to send (or the problems), and the person's email and phone for the report and affinity. */
export interface ContactRow {
  write?: ContactWrite;
  problem?: { code: string; message: string; field?: string };
  /** As sent (lower-cased e-mail, E.164 phone), or as written when it is invalid. */
  email: string;
  phone: string;
  /** The channels whose yes/no column said no and wrote nothing (a "no" never downgrades): the plan shows them. */
  noKept?: Array<'email' | 'sms'>;
}

function consentFromYesNo(
  field: 'accepts_email_marketing' | 'accepts_sms_marketing',
  value: string,
  noMeans: ContactRowOptions['noMeans'],
  errors: FieldError[],
): 'subscribed' | 'unsubscribed' | undefined {
  const b = parseBoolean(value);
  if (b instanceof Error) {
    errors.push({ field, message: b.message });
    return undefined;
  }
  if (b === true) return 'subscribed';
  return b === false && noMeans === 'unsubscribed' ? 'unsubscribed' : undefined;
}

/** Each consent and the yes/no column that stands for it in a shop's export. */
const CONSENT_COLUMNS = [
  ['email_consent', 'accepts_email_marketing'],
  ['sms_consent', 'accepts_sms_marketing'],
] as const;

/**
 * A consent from its own column (a consent value) or else from its yes/no column; a "no" that
 * means nothing (kept as it is) is noted in `noKept`.
 */
function readConsent(
  field: (typeof CONSENT_COLUMNS)[number][0],
  yesNo: (typeof CONSENT_COLUMNS)[number][1],
  cell: (f: ContactCsvField) => string | undefined,
  noMeans: ContactRowOptions['noMeans'],
  body: Record<string, unknown>,
  errors: FieldError[],
  noKept: Array<'email' | 'sms'>,
  values: ContactRowOptions['values'],
): void {
  const explicit = cell(field);
  if (explicit !== undefined) {
    // The export's own word (Omnisend's `Non-subscribed`), else the service's value in any case.
    const words = values?.get(field);
    const value = words?.get(valueKey(explicit))?.value ?? explicit.toLowerCase();
    const why = consentWriteError(field, value);
    if (why) errors.push({ field, message: words ? unknownWord(explicit, words, why) : why });
    else body[field] = value;
    return;
  }
  const v = cell(yesNo);
  const consent = v === undefined ? undefined : consentFromYesNo(yesNo, v, noMeans, errors);
  if (consent !== undefined) body[field] = consent;
  else if (v !== undefined && parseBoolean(v) === false) noKept.push(field === 'email_consent' ? 'email' : 'sms');
}

/** `"Pending" is none of the export's words (Subscribed, …) and not a consent: must be one of: …`. */
function unknownWord(cell: string, words: ValueWords, why: string): string {
  const known = [...words.values()].map((w) => w.word).join(', ');
  return `${JSON.stringify(cell)} is none of the export's words (${known}) and not a consent: ${why}`;
}

/** Reads one row into a contact write; every problem names its field. */
export function readContactRow(cells: readonly string[], layout: ContactLayout, opts: ContactRowOptions): ContactRow {
  const cell = (f: ContactCsvField): string | undefined => cellOf(cells, layout, f)?.trim();
  const errors: FieldError[] = [];
  const body: Record<string, unknown> = {};
  const noKept: Array<'email' | 'sms'> = [];
  const email = cell('email');
  if (email !== undefined) body.email = email;
  // Spreadsheet exports (Shopify's among them) write phones as '+1 415… to keep them text.
  const rawPhone = cell('phone')?.replace(/^'/, '');
  let phone = rawPhone ?? '';
  if (rawPhone) {
    const p = normalizePhone(rawPhone, phoneCountry(cells, layout, opts.defaultCountry));
    if (p.ok) phone = body.phone = p.e164;
    else errors.push({ field: 'phone', message: p.message });
  }
  for (const f of ['first_name', 'last_name'] as const) {
    const v = cell(f);
    if (v !== undefined) body[f] = v;
  }
  for (const [field, yesNo] of CONSENT_COLUMNS) readConsent(field, yesNo, cell, opts.noMeans, body, errors, noKept, opts.values);
  body.send_welcome_sms = opts.welcomeSms;
  return checkedContactRow(body, errors, noKept, email, phone);
}

/** The row's write checked against the contract; its errors and the contract's in one problem. */
function checkedContactRow(
  body: Record<string, unknown>,
  errors: FieldError[],
  noKept: Array<'email' | 'sms'>,
  email: string | undefined,
  phone: string,
): ContactRow {
  const shownEmail = typeof body.email === 'string' ? body.email.toLowerCase() : (email ?? '');
  const checked = validateContactWrite(body, 'create');
  if (checked.ok && errors.length === 0) {
    const row: ContactRow = { write: checked.value, email: checked.value.email ?? shownEmail, phone };
    if (noKept.length > 0) row.noKept = noKept;
    return row;
  }
  const seen = new Set(errors.map((e) => e.field));
  const all = [
    ...errors,
    ...(checked.ok ? [] : checked.errors.filter((e) => !seen.has(e.field) && !(e.field === 'email' && seen.has('phone')))),
  ];
  return { email: shownEmail, phone, problem: { code: 'invalid_row', message: describeFieldErrors(all), field: all[0]?.field } };
}
