/**
 * How cells written by people and shop systems are read: booleans, decimals with thousands
 * separators and currency marks, dates with the offset written in any of the usual ways, and
 * day/month dates in the order the user names (never guessed).
 */
import { normalizeCurrency } from '../contract/currency.js';
import { isDateOnly, isRfc3339DateTime } from '../contract/formats.js';
import { type DateFormat, describeExcelSerial, excelSerial, readNamedMonthDate, UTC_ZONE, type ZoneReader } from './dates.js';

/** How a numeric date such as 03/04/2024 is read: month first (US) or day first. */
export type DateOrder = 'MDY' | 'DMY';

/** How order dates are read: numeric day/month order, a named pattern, the zone of zone-less times. */
export interface DateReading {
  order?: DateOrder;
  format?: DateFormat;
  /** UTC when absent. */
  zone?: ZoneReader;
}

/**
 * The words shop systems and spreadsheets write for yes and no, in the languages shops export in
 * (docs/importer.md lists them): English, German, French, Spanish, Italian, Portuguese, Dutch,
 * Swedish/Danish/Norwegian, Polish; plus 1/0, x for a ticked box, and Excel's TRUE/FALSE.
 */
const TRUE_WORDS = new Set([
  'true',
  'yes',
  '1',
  'y',
  'ja',
  'j',
  'wahr',
  'oui',
  'vrai',
  'si',
  'sí',
  'sì',
  'vero',
  'sim',
  'verdadeiro',
  'verdadero',
  'waar',
  'tak',
  'x',
]);
const FALSE_WORDS = new Set([
  'false',
  'no',
  '0',
  'n',
  'nein',
  'falsch',
  'non',
  'faux',
  'falso',
  'não',
  'nao',
  'nee',
  'onwaar',
  'nej',
  'nei',
  'nie',
]);

/** A yes/no cell in any of the languages above (any case); undefined for an empty cell. */
export function parseBoolean(value: string): boolean | undefined | Error {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return new Error(`must be true/false, yes/no or 1/0 (or ja/nein, oui/non, sí/no…), got ${JSON.stringify(value.slice(0, 40))}`);
}

/** Spaces (plain, no-break, narrow no-break) and apostrophes people put between groups of thousands. */
const GROUP_MARKS = /[\u00a0\u202f ']/;
/** Those marks only between groups of exactly three digits, then an optional decimal part: 1 234,50 · 12 345 678.9 · 1'234.50. */
const GROUPED = /^\d{1,3}(?:([\u00a0\u202f ']))\d{3}(?:\1\d{3})*(?:[.,]\d+)?$/;

/**
 * A total as written in a spreadsheet: "49.90", " 49.90 ", "49,90" (decimal comma, when the file
 * is not comma-separated and there is no dot), "1,234.50" / "1 234,50" / "1'234.50" thousands
 * separators. Spaces and apostrophes inside are accepted only as valid 3-digit grouping (one kind
 * per amount): "5 5" or "1 0.5" is an error, never 55 or 10.5. Returns a plain decimal string;
 * exactness is kept by never going through a float.
 */
export function normalizeDecimalText(value: string, delimiter: string): string | Error {
  let v = value.trim();
  if (GROUP_MARKS.test(v)) {
    if (!GROUPED.test(v))
      return new Error(`${JSON.stringify(v.slice(0, 40))} has spaces that do not group digits by three: write 1234.50 or 1 234,50`);
    // Grouped by spaces, a comma can only be the decimal mark.
    return v.replace(/[\u00a0\u202f ']/g, '').replace(',', '.');
  }
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(v)) v = v.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+,\d+$/.test(v)) v = v.replace(/\./g, '').replace(',', '.');
  // One or two digits after a comma cannot be a group of thousands: a decimal comma in any file
  // (in a comma-separated one the cell was quoted: Stripe's `"0,25"`); three stay ambiguous.
  else if ((delimiter !== ',' && /^\d+,\d+$/.test(v)) || /^\d+,\d{1,2}$/.test(v)) v = v.replace(',', '.');
  return v;
}

/** Currency symbols and the ISO 4217 codes each may stand for. `$` alone is any dollar (or peso). */
const SYMBOLS: Record<string, readonly string[]> = {
  $: [
    'USD',
    'CAD',
    'AUD',
    'NZD',
    'SGD',
    'HKD',
    'MXN',
    'TWD',
    'BSD',
    'BBD',
    'BZD',
    'BMD',
    'BND',
    'FJD',
    'JMD',
    'TTD',
    'XCD',
    'CLP',
    'COP',
    'ARS',
  ],
  US$: ['USD'],
  C$: ['CAD'],
  CA$: ['CAD'],
  A$: ['AUD'],
  AU$: ['AUD'],
  NZ$: ['NZD'],
  HK$: ['HKD'],
  S$: ['SGD'],
  R$: ['BRL'],
  '€': ['EUR'],
  '£': ['GBP'],
  '¥': ['JPY', 'CNY'],
  '₹': ['INR'],
  '₩': ['KRW'],
  '₽': ['RUB'],
  '₺': ['TRY'],
  '₪': ['ILS'],
  '₫': ['VND'],
  '₱': ['PHP'],
  '₴': ['UAH'],
  zł: ['PLN'],
  kr: ['SEK', 'NOK', 'DKK', 'ISK'],
  'kr.': ['DKK', 'ISK'],
  Kč: ['CZK'],
  Fr: ['CHF'],
  'Fr.': ['CHF'],
};

const MONEY = /^(?:([^\d\s.,-]+)\s*)?([\d][\d.,\s\u00a0\u202f']*)(?:\s*([^\d\s.,-][^\d\s,-]*))?$/;

/** A minus sign: ASCII, or the typographic one (U+2212) spreadsheets and some locales write. */
const MINUS = /[-\u2212]/;
/** `US $1,299.00`, `AU $12.00`, `C $5`: eBay's site prefixes, with a space before the dollar. */
const SPACED_DOLLAR = /^([A-Z]{1,2}) \$/;

/**
 * The sign of an amount written either way, and the amount without it: `-12.00`, `−12.00`,
 * `-$12.00`, `$-12.00`, `US $-5`, `-12,00 €`, `(12.00)`, `($12.00)`, `$(12.00)`. An Error when both
 * spellings are used at once (`(-12.00)`) or a sign is somewhere else.
 */
function splitSign(value: string): { negative: boolean; text: string } | Error {
  let v = value;
  let parens = false;
  const wrapped = /^([^\d\s()]*)\s*\((.*)\)\s*([^\d\s()]*)$/.exec(v);
  if (wrapped) {
    parens = true;
    v = `${wrapped[1]}${(wrapped[2] as string).trim()}${wrapped[3] ? ` ${wrapped[3]}` : ''}`;
  }
  const at = v.search(MINUS);
  if (at < 0) return { negative: parens, text: v };
  const before = v.slice(0, at);
  // A minus first, or right after a currency mark (`$-12.00`, `US$ -5`, `€ -3,50`).
  if (before.trim() !== '' && !/^[^\d.,]+$/.test(before)) return { negative: false, text: value };
  const text = `${before.trim()}${v.slice(at + 1).trimStart()}`;
  if (parens || MINUS.test(text))
    return new Error(`${JSON.stringify(value.slice(0, 40))} is written negative twice: write -12.00 or (12.00)`);
  return { negative: true, text };
}

/**
 * A money amount with an optional currency mark before or after it (`$1,234.50`, `1.234,50 €`,
 * `US $1,299.00`, `EUR 12.00`, `12.00 eur`) and an optional sign either way (`-12.00`, `(12.00)`,
 * `-$12.00`, `$-12.00`): the amount as a plain decimal (`-12.00` when negative), and an error when
 * the mark does not agree with `currency` (the row's). Text that is neither a known symbol nor a
 * code is returned as it is, for the contract to reject as no decimal.
 */
export function parseMoney(value: string, delimiter: string, currency: string | undefined): string | Error {
  const v = value.trim();
  const first = v.charCodeAt(0);
  // The common case: a bare number.
  if (first >= 48 && first <= 57 && /\d$/.test(v)) return normalizeDecimalText(v, delimiter);
  const signed = splitSign(v.replace(SPACED_DOLLAR, '$1$$'));
  if (signed instanceof Error) return signed;
  const amount = unsignedMoney(signed.text, delimiter, currency);
  if (!signed.negative || amount instanceof Error) return amount;
  // Text the contract will refuse stays as written; a negative zero is zero.
  if (!/^\d+(\.\d+)?$/.test(amount)) return v;
  return /^[0.]+$/.test(amount) ? amount : `-${amount}`;
}

function unsignedMoney(v: string, delimiter: string, currency: string | undefined): string | Error {
  const first = v.charCodeAt(0);
  if (first >= 48 && first <= 57 && /\d$/.test(v)) return normalizeDecimalText(v, delimiter);
  const m = MONEY.exec(v);
  if (!m || (m[1] !== undefined && m[3] !== undefined)) return normalizeDecimalText(v, delimiter);
  const mark = (m[1] ?? m[3]) as string | undefined;
  const amount = normalizeDecimalText((m[2] as string).trim(), delimiter);
  if (mark === undefined || amount instanceof Error) return amount;
  const code = /^[A-Za-z]{3}$/.test(mark) ? normalizeCurrency(mark) : undefined;
  const means = code ? [code] : SYMBOLS[mark];
  // Not a currency mark (a typo such as 49,90x): left to the contract's "must be a decimal".
  if (!means) {
    const n = normalizeDecimalText(v, delimiter);
    return n instanceof Error ? v : n;
  }
  return otherCurrency(v, means, currency) ?? amount;
}

/** An amount marked with a currency (`means`: what its mark may stand for) that is not the row's. */
function otherCurrency(v: string, means: readonly string[], currency: string | undefined): Error | undefined {
  const rowCurrency = currency === undefined ? undefined : normalizeCurrency(currency);
  if (rowCurrency === undefined || means.includes(rowCurrency)) return undefined;
  const stands = means.length === 1 ? means[0] : `one of ${means.slice(0, 6).join(', ')}${means.length > 6 ? ', …' : ''}`;
  return new Error(`${JSON.stringify(v.slice(0, 40))} is in ${stands}, but the row's currency is ${rowCurrency}`);
}

/**
 * An amount that must not be negative (an order's total, an item's price): parseMoney, and a
 * negative amount refused with the form it was written in (`"(12.00)" is negative (-12.00)`).
 */
export function parseAmount(value: string, delimiter: string, currency: string | undefined): string | Error {
  const amount = parseMoney(value, delimiter, currency);
  if (typeof amount === 'string' && amount.startsWith('-'))
    return new Error(
      `${JSON.stringify(value.trim().slice(0, 40))} is negative (${amount}): an order's amounts are zero or more (a refund or credit note is no order)`,
    );
  return amount;
}

/**
 * The currencies the mark beside an amount may stand for (`€12.00` → EUR, `$12.00` → the
 * dollars and pesos, `12.00 CHF` → CHF); undefined for a bare number or an unknown mark.
 */
export function currenciesOfMark(value: string): readonly string[] | undefined {
  const signed = splitSign(value.trim().replace(SPACED_DOLLAR, '$1$$'));
  const m = signed instanceof Error ? null : MONEY.exec(signed.text);
  if (!m || (m[1] !== undefined && m[3] !== undefined)) return undefined;
  const mark = m[1] ?? m[3];
  if (mark === undefined) return undefined;
  const code = /^[A-Za-z]{3}$/.test(mark) ? normalizeCurrency(mark) : undefined;
  return code ? [code] : SYMBOLS[mark];
}

const NAIVE_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(\.\d{1,9})?)?$/;
/** A time followed by an offset written with a space, without a colon, or both: `10:00:00 -0400`, `10:00 +02:00`, `10:00:00 Z`. */
const LOOSE_OFFSET = /^(.*[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(?:([+-]\d{2}):?(\d{2})|([Zz]|UTC|GMT))$/;
/** 03/04/2024, 3.4.2024, 3-4-2024, with an optional time and offset. */
const NUMERIC_DATE = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(?:\s*(.*))?$/;

const pad = (s: string) => s.padStart(2, '0');

/** The message for an order date that is none of the accepted forms. */
function badDate(value: string): Error {
  return new Error(
    `must be a date YYYY-MM-DD, an RFC 3339 date-time such as 2024-03-01T14:30:00+01:00 or a date with its month named (Jun-10-24, 10-Jun-24), got ${JSON.stringify(value.slice(0, 40))}`,
  );
}

/**
 * A numeric day/month date (`03/04/2024`, `3/4/2024 14:30`) read in `dateOrder`: the date alone
 * (`YYYY-MM-DD`), or the date-time rewritten with ISO date for the rest of normalizeOrderDate.
 */
function fromNumericDate(value: string, numeric: RegExpExecArray, dateOrder: DateOrder | undefined): string | Error {
  if (!dateOrder)
    return new Error(
      `${JSON.stringify(value.slice(0, 40))} is ambiguous (day/month or month/day): give --date-order MDY or DMY, or write the date as YYYY-MM-DD`,
    );
  const [a, b, year, hh, mm, ss, frac, rest] = numeric.slice(1) as Array<string | undefined>;
  const [month, day] = dateOrder === 'MDY' ? [a as string, b as string] : [b as string, a as string];
  const date = `${year}-${pad(month)}-${pad(day)}`;
  if (hh !== undefined) return `${date}T${pad(hh)}:${mm}:${ss ?? '00'}${frac ?? ''}${rest ? ` ${rest}` : ''}`;
  if (rest) return badDate(value);
  if (!isDateOnly(date)) return new Error(`${JSON.stringify(value.slice(0, 40))} is not a calendar date (read as ${dateOrder})`);
  return date;
}

/** A date-time without offset (NAIVE_DATE_TIME's match) given the offset of `zone` at that time. */
function inZone(naive: RegExpExecArray, zone: ZoneReader): string {
  const time = `${naive[2]}${naive[3] ?? ':00'}`;
  if (zone.name === 'UTC') return `${naive[1]}T${time}Z`;
  const [y, mo, d] = (naive[1] as string).split('-').map(Number) as [number, number, number];
  const [h, mi, s] = time.split(':').map((x) => Number.parseInt(x, 10)) as [number, number, number];
  return `${naive[1]}T${time}${zone.offsetAt(y, mo, d, h, mi, s)}`;
}

/**
 * An order date to RFC 3339: a date alone stays `YYYY-MM-DD` (the service takes it as midnight
 * UTC); a date-time without offset is taken in `reading.zone` (UTC by default); an offset is kept as written (`-0400`,
 * ` -04:00` become `-04:00`; never shifted to this machine's zone); a space between date and time
 * becomes `T`. Numeric day/month dates (03/04/2024, 3/4/2024 14:30) are read only with a
 * `dateOrder`; without one they are ambiguous and refused.
 */
export function normalizeOrderDate(value: string, reading?: DateOrder | DateReading): string | Error {
  const v = value.trim();
  const r: DateReading = typeof reading === 'string' ? { order: reading } : (reading ?? {});
  if (r.format) return r.format.read(v, r.zone ?? UTC_ZONE);
  if (isDateOnly(v)) return v;
  const serial = excelSerial(v);
  if (serial !== undefined)
    return new Error(
      `${JSON.stringify(value.slice(0, 40))} looks like an Excel serial date (${describeExcelSerial(v)}): give --date-format excel to read such numbers, or export the column as dates`,
    );
  return fromDateTimeText(value, v, r);
}

/** normalizeOrderDate of a date-time as written (`v`: the value trimmed): numeric, loose offset, naive, or named month. */
function fromDateTimeText(value: string, text: string, r: DateReading): string | Error {
  let v = text;
  const numeric = NUMERIC_DATE.exec(v);
  if (numeric) {
    const read = fromNumericDate(value, numeric, r.order);
    if (read instanceof Error || isDateOnly(read)) return read;
    v = read;
  }
  const loose = LOOSE_OFFSET.exec(v);
  if (loose) v = `${loose[1]}${loose[4] !== undefined ? 'Z' : `${loose[2]}:${loose[3]}`}`;
  const naive = NAIVE_DATE_TIME.exec(v);
  if (naive) v = inZone(naive, r.zone ?? UTC_ZONE);
  v = v.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  // A time without seconds before an offset (2024-03-01T14:30+02:00).
  v = v.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})$/i, '$1:00$2');
  if (isRfc3339DateTime(v)) return v;
  return readNamedMonthDate(value, r.zone ?? UTC_ZONE) ?? badDate(value);
}
