/**
 * Dates written by shop systems in their own words: a pattern the user names (`--date-format
 * "MMM D, YYYY h:mm:ss A"`), Excel serial numbers (read only when asked), and the time zone a
 * time without an offset is in (`--timezone`, UTC by default). Nothing goes through this
 * machine's zone: an offset comes from the pattern, the cell or the named zone.
 */

/** How a zone-less local time becomes an offset: `Z` for UTC, else the zone's offset at that moment. */
export interface ZoneReader {
  /** The name as given (`UTC`, `Europe/Berlin`, `+02:00`). */
  name: string;
  /** `Z` or `+hh:mm` / `-hh:mm` for a local date-time (fields as written). */
  offsetAt(year: number, month: number, day: number, hour: number, minute: number, second: number): string;
}

import { fullYear, monthByName } from './month-names.js';

const UTC_NAMES = new Set(['utc', 'z', 'gmt', 'etc/utc', 'etc/gmt', '+00:00', '+0000', '+00']);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function formatOffset(minutes: number): string {
  if (minutes === 0) return 'Z';
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/**
 * A zone by IANA name (`Europe/Berlin`, `America/New_York`), `UTC`, or a fixed offset (`+02:00`,
 * `-0500`); an Error naming the value when it is none of them.
 */
export function parseTimeZone(value: string): ZoneReader | Error {
  const v = value.trim();
  if (UTC_NAMES.has(v.toLowerCase())) return { name: 'UTC', offsetAt: () => 'Z' };
  const fixed = /^([+-])(\d{2}):?(\d{2})$/.exec(v);
  if (fixed) {
    const minutes = (Number(fixed[2]) * 60 + Number(fixed[3])) * (fixed[1] === '-' ? -1 : 1);
    if (Math.abs(minutes) > 18 * 60) return new Error(`--timezone ${v}: an offset is at most 18 hours`);
    const offset = formatOffset(minutes);
    return { name: v, offsetAt: () => offset };
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: v,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return new Error(
      `unknown time zone ${JSON.stringify(v)}: give an IANA name such as Europe/Berlin or America/New_York, UTC, or an offset such as +02:00`,
    );
  }
  const canonical = format.resolvedOptions().timeZone;
  /** The zone's offset (minutes east of UTC) at an instant. */
  const offsetOfInstant = (ms: number): number => {
    const parts: Record<string, number> = {};
    for (const p of format.formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const asUtc = Date.UTC(parts.year as number, (parts.month as number) - 1, parts.day, parts.hour, parts.minute, parts.second);
    return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000);
  };
  // Offsets change at most a few times a year: one answer per local hour is plenty.
  const cache = new Map<string, string>();
  return {
    name: canonical,
    offsetAt(year, month, day, hour, minute, second) {
      const key = `${year}-${month}-${day}T${hour}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const local = Date.UTC(year, month - 1, day, hour, minute, second);
      // The offset at the local time read as UTC, then at the instant that gives: right except in
      // the hour a clock skips or repeats, where the later offset is taken (as most systems do).
      let offset = offsetOfInstant(local);
      offset = offsetOfInstant(local - offset * 60000);
      const out = formatOffset(offset);
      if (cache.size > 10_000) cache.clear();
      cache.set(key, out);
      return out;
    },
  };
}

export const UTC_ZONE: ZoneReader = { name: 'UTC', offsetAt: () => 'Z' };

const MONTH_WORD = '(\\p{L}{3,9}\\.?)';
const TIME_PART = '(?:[ T]+(\\d{1,2}):(\\d{2})(?::(\\d{2}))?)?';
/** `Jun-10-24`, `Jun-10-2024 14:03:22` (eBay US: month first). */
const MONTH_FIRST = new RegExp(`^${MONTH_WORD}[- ](\\d{1,2})(?:-|,? )(\\d{2}|\\d{4})${TIME_PART}$`, 'u');
/** `10-Jun-24`, `10-Dez-25`, `10 Jun 2024` (eBay UK and DE: day first). */
const DAY_FIRST = new RegExp(`^(\\d{1,2})[- ]${MONTH_WORD}[- ](\\d{2}|\\d{4})${TIME_PART}$`, 'u');

/**
 * A date whose month is a name, so day and month cannot be mixed up: `Jun-10-24` (eBay US),
 * `10-Jun-24`, `10-Dez-25` (eBay UK, DE), `Jun 10, 2024`, `10 Jun 2024`, each with an optional time
 * (`14:03` or `14:03:22`, taken in `zone`). Undefined when the value is not of this form; an
 * Error when it is but names no month or no calendar date.
 */
export function readNamedMonthDate(value: string, zone: ZoneReader): string | Error | undefined {
  const v = value.trim();
  let parts: Array<string | undefined> | undefined;
  const first = MONTH_FIRST.exec(v);
  if (first) parts = [first[2], first[1], first[3], first[4], first[5], first[6]];
  const dayFirst = first ? null : DAY_FIRST.exec(v);
  if (dayFirst) parts = [dayFirst[1], dayFirst[2], dayFirst[3], dayFirst[4], dayFirst[5], dayFirst[6]];
  if (!parts) return undefined;
  const [day, monthName, year, hh, mm, ss] = parts as [string, string, string, string?, string?, string?];
  const month = monthByName(monthName);
  if (month === 0)
    return new Error(`${JSON.stringify(v.slice(0, 40))}: no month is named ${JSON.stringify(monthName)} (English or German month names)`);
  return composeDate(
    v,
    {
      year: fullYear(year),
      month,
      day: Number(day),
      hour: hh === undefined ? undefined : Number(hh),
      minute: mm === undefined ? 0 : Number(mm),
      second: ss === undefined ? 0 : Number(ss),
      frac: '',
    },
    zone,
  );
}

/** The pattern tokens and the group each reads. */
const TOKEN_PATTERN = {
  YYYY: '(\\d{4})',
  YY: '(\\d{2})',
  MMMM: '(\\p{L}+)',
  MMM: '(\\p{L}{3,4}\\.?)',
  MM: '(\\d{2})',
  M: '(\\d{1,2})',
  DD: '(\\d{2})',
  D: '(\\d{1,2})',
  HH: '(\\d{2})',
  H: '(\\d{1,2})',
  hh: '(\\d{2})',
  h: '(\\d{1,2})',
  mm: '(\\d{2})',
  m: '(\\d{1,2})',
  ss: '(\\d{2})',
  s: '(\\d{1,2})',
  SSS: '(\\d{1,9})',
  A: '([AaPp]\\.?[Mm]\\.?)',
  a: '([AaPp]\\.?[Mm]\\.?)',
  Z: '([Zz]|UTC|GMT|[+-]\\d{2}:?\\d{2})',
  ZZ: '([Zz]|UTC|GMT|[+-]\\d{2}:?\\d{2})',
};
type Token = keyof typeof TOKEN_PATTERN;
/** Longest first, so that `MMMM` is not read as `MM` twice. */
const TOKENS = (Object.keys(TOKEN_PATTERN) as Token[]).sort((x, y) => y.length - x.length);

/** A date pattern, compiled; `excel` for serial numbers. */
export interface DateFormat {
  pattern: string;
  read(value: string, zone: ZoneReader): string | Error;
}

/** The patterns docs/importer.md lists (any other combination of the tokens works too). */
export const COMMON_DATE_FORMATS = [
  'YYYY-MM-DD HH:mm:ss',
  'DD/MM/YYYY',
  'DD/MM/YYYY HH:mm',
  'MM/DD/YYYY',
  'M/D/YYYY h:mm A',
  'M/D/YY',
  'DD.MM.YYYY',
  'DD.MM.YYYY HH:mm:ss',
  'MMM D, YYYY h:mm:ss A',
  'D MMM YYYY',
  'MMMM D, YYYY',
  'YYYY-MM-DDTHH:mm:ssZ',
  'excel',
] as const;

/** Compiles `--date-format PATTERN` (tokens YYYY YY MMMM MMM MM M DD D HH H hh h mm m ss s SSS A Z; `excel` for serial numbers). */
export function parseDateFormat(pattern: string): DateFormat | Error {
  const p = pattern.trim();
  if (p.toLowerCase() === 'excel') return { pattern: 'excel', read: readExcelSerial };
  const compiled = compilePattern(p);
  if (compiled instanceof Error) return compiled;
  const { order, re } = compiled;
  const has = (...t: Token[]) => t.some((x) => order.includes(x));
  if (!has('YYYY', 'YY') || !has('MMMM', 'MMM', 'MM', 'M') || !has('DD', 'D'))
    return new Error(`--date-format ${JSON.stringify(p)} needs a year (YYYY or YY), a month (M, MM, MMM or MMMM) and a day (D or DD)`);
  if (has('h', 'hh') && !has('A', 'a')) return new Error(`--date-format ${JSON.stringify(p)}: a 12-hour hour (h, hh) needs AM/PM (A)`);
  return {
    pattern: p,
    read(value, zone) {
      const m = re.exec(value);
      if (!m) return new Error(`${JSON.stringify(value.slice(0, 40))} does not match --date-format ${JSON.stringify(p)}`);
      return readMatch(value, m, order, zone);
    },
  };
}

/** The pattern's tokens in order, and the regular expression with a group for each. */
function compilePattern(p: string): { order: Token[]; re: RegExp } | Error {
  const order: Token[] = [];
  let source = '';
  for (let i = 0; i < p.length; ) {
    const token = TOKENS.find((t) => p.startsWith(t, i));
    if (token) {
      order.push(token);
      source += TOKEN_PATTERN[token];
      i += token.length;
      continue;
    }
    const ch = p[i] as string;
    if (/\s/.test(ch)) source += '\\s*';
    else if (ch === 'T') source += '[Tt ]';
    else if (/[A-Za-z]/.test(ch))
      return new Error(
        `--date-format ${JSON.stringify(p)}: "${ch}" is no date token (tokens: YYYY YY MMMM MMM MM M DD D HH H hh h mm m ss s SSS A Z)`,
      );
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    i++;
  }
  return { order, re: new RegExp(`^\\s*${source}\\s*$`, 'u') };
}

/** The parts of a date a pattern's match gives, with AM/PM while it is read. */
interface MatchParts extends DateParts {
  pm?: boolean;
}

/** The part a numeric token's group gives. */
const NUMERIC_PART: Partial<Record<Token, 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second'>> = {
  YYYY: 'year',
  MM: 'month',
  M: 'month',
  DD: 'day',
  D: 'day',
  HH: 'hour',
  H: 'hour',
  hh: 'hour',
  h: 'hour',
  mm: 'minute',
  m: 'minute',
  ss: 'second',
  s: 'second',
};

/** What a token's group sets in `d`. */
function readToken(d: MatchParts, t: Token, v: string): void {
  const part = NUMERIC_PART[t];
  if (part) {
    d[part] = Number(v);
    return;
  }
  switch (t) {
    case 'YY':
      d.year = fullYear(v);
      break;
    case 'MMMM':
    case 'MMM':
      d.month = monthByName(v);
      break;
    case 'SSS':
      d.frac = `.${v}`;
      break;
    case 'A':
    case 'a':
      d.pm = v[0]?.toLowerCase() === 'p';
      break;
    default:
      d.offset = /^(z|utc|gmt)$/i.test(v) ? 'Z' : `${v.slice(0, 3)}:${v.slice(-2)}`;
  }
}

/** A pattern's match as RFC 3339: a month name it knows, a 12-hour time made 24-hour. */
function readMatch(value: string, m: RegExpExecArray, order: readonly Token[], zone: ZoneReader): string | Error {
  const d: MatchParts = { year: 0, month: 0, day: 0, minute: 0, second: 0, frac: '' };
  for (let k = 0; k < order.length; k++) readToken(d, order[k] as Token, m[k + 1] as string);
  if (d.month === 0) return new Error(`${JSON.stringify(value.slice(0, 40))}: no month is named like that (English or German month names)`);
  if (d.hour !== undefined && d.pm !== undefined) {
    if (d.hour < 1 || d.hour > 12) return new Error(`${JSON.stringify(value.slice(0, 40))}: a 12-hour time has hours 1 to 12`);
    d.hour = (d.hour % 12) + (d.pm ? 12 : 0);
  }
  return composeDate(value, d, zone);
}

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute: number;
  second: number;
  frac: string;
  offset?: string;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** RFC 3339 from parts: a date alone stays a date; a time without an offset takes the zone's. */
export function composeDate(value: string, d: DateParts, zone: ZoneReader): string | Error {
  if (d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysInMonth(d.year, d.month))
    return new Error(`${JSON.stringify(value.slice(0, 40))} is not a calendar date`);
  const date = `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;
  if (d.hour === undefined) return date;
  if (d.hour > 23 || d.minute > 59 || d.second > 59) return new Error(`${JSON.stringify(value.slice(0, 40))} is not a time of day`);
  const offset = d.offset ?? zone.offsetAt(d.year, d.month, d.day, d.hour, d.minute, d.second);
  return `${date}T${pad(d.hour)}:${pad(d.minute)}:${pad(d.second)}${d.frac}${offset}`;
}

/** Excel's day 0 is 1899-12-30 (its 1900 leap-year bug folded in); serials from 1982 to 2119. */
const EXCEL_SERIAL = /^(\d{5})(?:[.,](\d+))?$/;
const EXCEL_MIN = 30000;
const EXCEL_MAX = 80000;

/** The serial a cell holds when it looks like an Excel date (a 5-digit day count, optional fraction). */
export function excelSerial(value: string): number | undefined {
  const m = EXCEL_SERIAL.exec(value.trim());
  if (!m) return undefined;
  const n = Number(`${m[1]}.${m[2] ?? '0'}`);
  return n >= EXCEL_MIN && n < EXCEL_MAX ? n : undefined;
}

/** An Excel serial to a local date(-time) in the zone, to the second. */
function readExcelSerial(value: string, zone: ZoneReader): string | Error {
  const serial = excelSerial(value);
  if (serial === undefined)
    return new Error(`${JSON.stringify(value.slice(0, 40))} is not an Excel serial date (a day count such as 45453 or 45453.5)`);
  const whole = Math.floor(serial);
  const seconds = Math.round((serial - whole) * 86400);
  const at = new Date(Date.UTC(1899, 11, 30) + whole * 86400000 + seconds * 1000);
  const parts = { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate(), minute: 0, second: 0, frac: '' };
  if (!value.includes('.') && !value.includes(',')) return composeDate(value, parts, zone);
  return composeDate(value, { ...parts, hour: at.getUTCHours(), minute: at.getUTCMinutes(), second: at.getUTCSeconds() }, zone);
}

/** What an Excel serial in a date column reads as (for the message that refuses it). */
export function describeExcelSerial(value: string): string {
  const read = readExcelSerial(value, UTC_ZONE);
  return read instanceof Error ? value : read.replace('T', ' ').replace(/Z$/, '');
}
