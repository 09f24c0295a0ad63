/** Formats shared by the sandbox's validation and the client-side checks (open-points.md). */
import { domainToASCII } from 'node:url';

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

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Proleptic Gregorian calendar (as JavaScript dates are), for every year 0000-9999. */
function validCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : (DAYS_IN_MONTH[m - 1] as number));
}

/** RFC 3339 date-time with an offset (Z or ±hh:mm). */
export function isRfc3339DateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as number[];
  if (!validCalendarDate(y as number, mo as number, d as number)) return false;
  if ((h as number) > 23 || (mi as number) > 59 || (s as number) > 60) return false;
  const off = m[8] as string;
  if (off.length === 6) {
    const oh = Number(off.slice(1, 3));
    const om = Number(off.slice(4, 6));
    if (oh > 23 || om > 59) return false;
  }
  return true;
}

/** `YYYY-MM-DD`, a real calendar date. */
export function isDateOnly(value: string): boolean {
  const m = DATE_ONLY.exec(value);
  return m !== null && validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
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

const DECIMAL = /^(\d{1,18})(?:\.(\d{1,18}))?$/;

/**
 * Parses a non-negative decimal given as a string or a JSON number and returns it as a canonical
 * string with exactly `decimals` places, or an error message. Never goes through a float for
 * strings; a JSON number is taken through its shortest decimal representation.
 */
export function parseDecimal(value: unknown, decimals: number): { ok: true; value: string } | { ok: false; message: string } {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { ok: false, message: 'must be a finite number' };
    text = String(value);
    if (/e/i.test(text)) return { ok: false, message: 'must be a plain decimal, not an exponent' };
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return { ok: false, message: 'must be a decimal number or a string like "49.90"' };
  }
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
