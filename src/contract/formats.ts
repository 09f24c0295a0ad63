/** Formats shared by the sandbox's validation and the client-side checks (open-points.md). */
import { domainToASCII } from 'node:url';
import type { FieldError } from './errors.js';
import { ExactNumber } from './exact-json.js';

/** E.164: `+`, then 8 to 15 digits, the first not 0. */
export const E164_PATTERN = /^\+[1-9]\d{7,14}$/;

/** A pragmatic address check: one `@`, no spaces, a dot in the domain. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

export function isE164(value: string): boolean {
  return E164_PATTERN.test(value);
}

/** Zero-width characters and bidi controls: invisible, they would make look-alike identities. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]/;

export type EmailCheck = { ok: true; value: string } | { ok: false; message: string };

/**
 * Checks an e-mail address and gives its stored form (the identity the service matches on):
 * Unicode NFC, lower-cased, an internationalised domain in its ASCII (punycode) form. Non-ASCII
 * local parts are accepted; zero-width characters and bidi controls are refused; compatibility
 * forms (fullwidth letters) are not folded, so a domain written with them is refused.
 */
export function checkEmail(value: string): EmailCheck {
  // Printable ASCII (nearly every address): NFC and NFKC leave it as it is, it holds no invisible
  // character and its domain needs no punycode, so the stored form is the lower-cased address.
  if (PRINTABLE_ASCII.test(value)) {
    const address = value.toLowerCase();
    if (value.lastIndexOf('@') <= 0 || address.length > 254 || !EMAIL_PATTERN.test(address)) {
      return { ok: false, message: 'must be an email address' };
    }
    return { ok: true, value: address };
  }
  const invisible = INVISIBLE.exec(value);
  if (invisible) {
    const code = (invisible[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    return { ok: false, message: `contains an invisible or text-direction control character (U+${code}); remove it` };
  }
  const nfc = value.normalize('NFC');
  const at = nfc.lastIndexOf('@');
  const invalid: EmailCheck = { ok: false, message: 'must be an email address' };
  if (at <= 0) return invalid;
  const local = nfc.slice(0, at).toLowerCase().normalize('NFC');
  const domain = nfc.slice(at + 1);
  if (domain.normalize('NFKC') !== domain) {
    return { ok: false, message: 'must be an email address; its domain has compatibility characters (such as fullwidth letters)' };
  }
  const ascii = PRINTABLE_ASCII.test(domain) ? domain.toLowerCase() : domainToASCII(domain);
  const address = `${local}@${ascii}`;
  if (ascii === '' || address.length > 254 || !EMAIL_PATTERN.test(address)) return invalid;
  return { ok: true, value: address };
}

export function isEmail(value: string): boolean {
  return checkEmail(value).ok;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Proleptic Gregorian calendar (as JavaScript dates are), for every year 0000-9999. */
function validCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : (DAYS_IN_MONTH[m - 1] as number));
}

/**
 * The number written by the ASCII digits at `from` (inclusive) to `to` (exclusive) of `s`, or -1
 * when any of them is not a digit (or lies past the end).
 */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** The first ten characters are `YYYY-MM-DD`, a real calendar date. */
function isDateOnlyAt(value: string): boolean {
  if (value.charCodeAt(4) !== 45 /* - */ || value.charCodeAt(7) !== 45) return false;
  const y = digitsAt(value, 0, 4);
  const m = digitsAt(value, 5, 7);
  const d = digitsAt(value, 8, 10);
  return y >= 0 && m >= 0 && d >= 0 && validCalendarDate(y, m, d);
}

/**
 * RFC 3339 date-time with an offset (Z or ±hh:mm): what DATE_TIME matches, on a real calendar
 * date, hours 0-23, minutes 0-59, seconds 0-60, an offset of hours 0-23 and minutes 0-59. Read
 * character by character, without a match array: the importer checks every row's date twice.
 */
export function isRfc3339DateTime(value: string): boolean {
  if (value.length < 20 || !isDateOnlyAt(value) || !isTimeAt(value)) return false;
  const i = afterFraction(value, 19);
  if (i < 0) return false;
  const z = value.charCodeAt(i);
  if (z === 90 /* Z */ || z === 122 /* z */) return i + 1 === value.length;
  return isOffsetAt(value, i);
}

/** `Thh:mm:ss` (or `t`, or a space, before it) at 10: hours 0-23, minutes 0-59, seconds 0-60. */
function isTimeAt(value: string): boolean {
  const t = value.charCodeAt(10);
  if (t !== 84 /* T */ && t !== 116 /* t */ && t !== 32 /* space */) return false;
  if (value.charCodeAt(13) !== 58 /* : */ || value.charCodeAt(16) !== 58) return false;
  const h = digitsAt(value, 11, 13);
  const mi = digitsAt(value, 14, 16);
  const sec = digitsAt(value, 17, 19);
  return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 60;
}

/** Past the seconds' fraction (`.` and 1 to 9 digits) at `i`, if any; -1 for a `.` without digits. */
function afterFraction(value: string, i: number): number {
  if (value.charCodeAt(i) !== 46 /* . */) return i;
  const start = i + 1;
  let end = start;
  while (end < value.length && end - start < 9 && digitsAt(value, end, end + 1) >= 0) end++;
  return end === start ? -1 : end;
}

/** `±hh:mm` ending the text at `i`: hours 0-23, minutes 0-59. */
function isOffsetAt(value: string, i: number): boolean {
  const sign = value.charCodeAt(i);
  if (sign !== 43 /* + */ && sign !== 45 /* - */) return false;
  if (i + 6 !== value.length || value.charCodeAt(i + 3) !== 58) return false;
  const oh = digitsAt(value, i + 1, i + 3);
  const om = digitsAt(value, i + 4, i + 6);
  return oh >= 0 && oh <= 23 && om >= 0 && om <= 59;
}

/** `YYYY-MM-DD`, a real calendar date. */
export function isDateOnly(value: string): boolean {
  return value.length === 10 && isDateOnlyAt(value);
}

/** An order date: RFC 3339 date-time with offset, or `YYYY-MM-DD` (midnight UTC). */
export function isOrderDate(value: string): boolean {
  return isDateOnly(value) || isRfc3339DateTime(value);
}

/**
 * Epoch milliseconds of an RFC 3339 date-time (NaN when it is not one). A leap second (`:60`,
 * which RFC 3339 allows and JavaScript dates cannot hold) is the instant just after `:59`.
 */
export function rfc3339ToMs(value: string): number {
  const m = DATE_TIME.exec(value);
  if (!m) return Number.NaN;
  if (m[6] !== '60') return Date.parse(value);
  return Date.parse(`${value.slice(0, 17)}59${value.slice(19)}`) + 1000;
}

/** Already in the form orderDateToUtc produces: whole seconds, upper-case T and Z. */
const CANONICAL_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:[0-5]\dZ$/;

/** Converts an order date to RFC 3339 UTC with `Z` (a date alone is midnight UTC). */
export function orderDateToUtc(value: string): string {
  if (isDateOnly(value)) return `${value}T00:00:00Z`;
  if (CANONICAL_UTC.test(value)) return value;
  return new Date(rfc3339ToMs(value)).toISOString().replace('.000Z', 'Z');
}

/**
 * A plain decimal of any length (the spec sets no bound; a row's length is bounded by the CSV
 * record limit): it is kept as written, never through a float, so 20 or more digits stay exact.
 */
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Already what parseDecimal returns ("49.90" for 2 places, "1200" for 0): digits, no superfluous
 * leading zero, exactly `decimals` places. Most files write their amounts so; read character by
 * character, without the match array and the strings of the general path.
 */
function isCanonicalDecimal(text: string, decimals: number): boolean {
  const intLength = decimals > 0 ? text.length - decimals - 1 : text.length;
  if (intLength < 1 || intLength > 18 || (intLength > 1 && text.charCodeAt(0) === 0x30)) return false;
  if (decimals > 0 && (decimals > 18 || text.charCodeAt(intLength) !== 0x2e)) return false;
  for (let i = 0; i < text.length; i++) {
    if (i === intLength) continue;
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * Parses a non-negative decimal given as a string or a JSON number and returns it as a canonical
 * string with exactly `decimals` places, or an error message. Never goes through a float for
 * strings; a JSON number is taken through its shortest decimal representation.
 */
export function parseDecimal(value: unknown, decimals: number): { ok: true; value: string } | { ok: false; message: string } {
  const text = decimalText(value);
  if (typeof text !== 'string') return text;
  if (isCanonicalDecimal(text, decimals)) return { ok: true, value: text };
  if (text.startsWith('-')) return { ok: false, message: 'must be zero or more' };
  const m = DECIMAL.exec(text);
  if (!m) return { ok: false, message: `must be a decimal like "49.90", got ${JSON.stringify(text.slice(0, 40))}` };
  const intPart = (m[1] as string).replace(/^0+(?=\d)/, '');
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > decimals) {
    return {
      ok: false,
      message: `has ${frac.length} decimal${frac.length === 1 ? '' : 's'}; at most ${decimals} allowed for this currency`,
    };
  }
  const padded = frac.padEnd(decimals, '0');
  return { ok: true, value: decimals > 0 ? `${intPart}.${padded}` : intPart };
}

/** The decimal's text as written (a string trimmed, a number's shortest form), or why it is none. */
function decimalText(value: unknown): string | { ok: false; message: string } {
  if (typeof value === 'string') return value.trim();
  let text: string;
  if (value instanceof ExactNumber) text = value.text;
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, message: 'must be a finite number' };
    text = String(value);
  } else return { ok: false, message: 'must be a decimal number or a string like "49.90"' };
  return /e/i.test(text) ? { ok: false, message: 'must be a plain decimal, not an exponent' } : text;
}

/** Adds two canonical decimal strings exactly (for order statistics). */
export function addDecimals(a: string, b: string, decimals: number, sign: 1 | -1 = 1): string {
  const toMinor = (s: string) => {
    const neg = s.startsWith('-');
    const [i, f = ''] = (neg ? s.slice(1) : s).split('.');
    const v = BigInt((i as string) + f.padEnd(decimals, '0').slice(0, decimals));
    return neg ? -v : v;
  };
  const sum = toMinor(a) + BigInt(sign) * toMinor(b);
  const neg = sum < 0n;
  const digits = (neg ? -sum : sum).toString().padStart(decimals + 1, '0');
  const body = decimals > 0 ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
  return neg ? `-${body}` : body;
}

/**
 * The e-mail and phone of a write (a contact's or an event's), each checked when present: the
 * normalised e-mail and the E.164 phone copied into `out`, or an error naming the field.
 */
export function checkEmailAndPhone(
  body: { email?: unknown; phone?: unknown },
  out: { email?: string; phone?: string },
  errors: FieldError[],
): void {
  if (body.email !== undefined) {
    const email = typeof body.email === 'string' ? checkEmail(body.email) : undefined;
    if (email?.ok) out.email = email.value;
    else errors.push({ field: 'email', message: email?.message ?? 'must be an email address' });
  }
  if (body.phone !== undefined) {
    if (typeof body.phone === 'string' && isE164(body.phone)) out.phone = body.phone;
    else errors.push({ field: 'phone', message: 'must be an E.164 phone number like +14155550100' });
  }
}
