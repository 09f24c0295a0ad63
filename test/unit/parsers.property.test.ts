/**
 * Property-based tests (fast-check) for the parsers every input goes through: exact decimals
 * (contract/formats.ts and the importer's spreadsheet forms), RFC 3339 dates (kept as written,
 * offsets included) and phone numbers (contract/phone.ts). Round-trips: what is formatted parses back
 * to the same value. Rejections: random junk is never accepted as something else and never throws.
 * Bounded runs (a few hundred cases each) so the whole file stays within a few seconds.
 */
import fc from 'fast-check';
import { type CountryCode, getCountries, getExampleNumber, parsePhoneNumberWithError } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { describe, expect, it } from 'vitest';
import { currencyDecimals, normalizeCurrency } from '../../src/contract/currency.js';
import {
  addDecimals,
  isDateOnly,
  isE164,
  isRfc3339DateTime,
  orderDateToUtc,
  parseDecimal,
  rfc3339ToMs,
} from '../../src/contract/formats.js';
import { normalizePhone } from '../../src/contract/phone.js';
import { normalizeDecimalText, normalizeOrderDate } from '../../src/importer/cell-values.js';

const RUNS = { numRuns: 300 };
const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
/** Junk of every kind: printable ASCII, any UTF-16 (lone surrogates included), any JSON value. */
const junkText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/** The canonical form parseDecimal promises: no leading zeros, exactly `places` decimals. */
function canonical(intPart: string, frac: string, places: number): string {
  const i = intPart.replace(/^0+(?=\d)/, '') || '0';
  return places > 0 ? `${i}.${frac.padEnd(places, '0')}` : i;
}

describe('decimals', () => {
  const places = fc.constantFrom(0, 2, 3, 4);

  it('a decimal with 0 to N places parses to its canonical form, leading and trailing zeros aside', () => {
    fc.assert(
      fc.property(places, digits(1, 18), digits(0, 4), fc.nat(3), fc.nat(3), (n, intPart, fracRaw, lead, trail) => {
        const frac = fracRaw.slice(0, n);
        const text = `${'0'.repeat(lead)}${intPart}${frac || trail ? `.${frac}${'0'.repeat(trail)}` : ''}`;
        if (text.replace(/^0+(?=\d)/, '').length > 18 + lead || `${'0'.repeat(lead)}${intPart}`.length > 18) return;
        const r = parseDecimal(text, n);
        expect(r).toEqual({ ok: true, value: canonical(intPart, frac, n) });
        // Parsing the canonical form again gives itself.
        expect(parseDecimal((r as { value: string }).value, n)).toEqual(r);
      }),
      RUNS,
    );
  });

  it('any string of digits, dots and signs gets the same answer as the general path (the canonical fast path changes nothing)', () => {
    // The general path, as parseDecimal had it before its fast path for canonical amounts.
    const general = (text: string, n: number) => {
      if (text.startsWith('-')) return { ok: false };
      const m = /^(\d{1,18})(?:\.(\d{1,18}))?$/.exec(text);
      if (!m) return { ok: false };
      const frac = (m[2] ?? '').replace(/0+$/, '');
      if (frac.length > n) return { ok: false };
      return { ok: true, value: canonical(m[1] as string, frac, n) };
    };
    fc.assert(
      fc.property(places, fc.string({ unit: fc.constantFrom('0', '1', '9', '.', '-', ' '), maxLength: 24 }), (n, text) => {
        const r = parseDecimal(text, n);
        const g = general(text.trim(), n);
        expect(r.ok).toBe(g.ok);
        if (r.ok) expect(r).toEqual(g);
      }),
      RUNS,
    );
  });

  it('a JSON number of minor units parses to the exact decimal (never through a float rounding)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (cents) => {
        const expected = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        expect(parseDecimal(cents / 100, 2)).toEqual({ ok: true, value: expected });
      }),
      RUNS,
    );
  });

  it('more places than the currency has are refused with the count', () => {
    fc.assert(
      fc.property(places, digits(1, 6), digits(0, 3), fc.integer({ min: 1, max: 9 }), (n, intPart, extra, last) => {
        const frac = `${'5'.repeat(n)}${extra}${last}`;
        const r = parseDecimal(`${intPart}.${frac}`, n);
        expect(r).toEqual({
          ok: false,
          message: `has ${frac.length} decimal${frac.length === 1 ? '' : 's'}; at most ${n} allowed for this currency`,
        });
      }),
      RUNS,
    );
  });

  it('spreadsheet forms (1,234.50 and 1.234,50 and 1 234,50) read as the plain decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1000n, max: 10n ** 15n }), digits(2, 2), (int, frac) => {
        const plain = `${int}.${frac}`;
        const grouped = int.toString().replace(/\B(?=(\d{3})+$)/g, ',');
        expect(normalizeDecimalText(`${grouped}.${frac}`, ',')).toBe(plain);
        expect(normalizeDecimalText(`${grouped.replace(/,/g, '.')},${frac}`, ';')).toBe(plain);
        expect(normalizeDecimalText(` ${grouped.replace(/,/g, '\u00a0')},${frac} `, ';')).toBe(plain);
        expect(normalizeDecimalText(`${int},${frac}`, ';')).toBe(plain);
      }),
      RUNS,
    );
  });

  it('adding then subtracting gives the first amount back, in every currency precision', () => {
    fc.assert(
      fc.property(places, fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), (n, a, b) => {
        const fmt = (v: bigint) => {
          const s = v.toString().padStart(n + 1, '0');
          return n > 0 ? `${s.slice(0, -n)}.${s.slice(-n)}` : s;
        };
        expect(addDecimals(addDecimals(fmt(a), fmt(b), n), fmt(b), n, -1)).toBe(fmt(a));
      }),
      RUNS,
    );
  });

  it('junk is never accepted as a number and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(junkText, fc.anything()), places, (value, n) => {
        const r = parseDecimal(value, n);
        if (!r.ok) {
          expect(typeof r.message).toBe('string');
          return;
        }
        // Accepted only if it was a decimal (a string of digits with at most one dot, or a number).
        if (typeof value === 'string') expect(value.trim()).toMatch(/^\d+(\.\d+)?$/);
        else expect(typeof value).toBe('number');
        expect(r.value).toMatch(n > 0 ? new RegExp(`^\\d+\\.\\d{${n}}$`) : /^\d+$/);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(junkText, fc.constantFrom(',', ';', '\t'), (value, delimiter) => {
        const r = normalizeDecimalText(value, delimiter);
        if (r instanceof Error) expect(r.message).toContain('do not group digits by three');
        else expect(typeof r).toBe('string');
      }),
      RUNS,
    );
  });

  it('currency codes: any known code in any case reads as itself; junk is undefined', () => {
    fc.assert(
      fc.property(fc.constantFrom('EUR', 'usd', 'Jpy', 'BHD', 'clf'), junkText, (code, junk) => {
        expect(normalizeCurrency(` ${code} `)).toBe(code.toUpperCase());
        expect(currencyDecimals(code)).toBeGreaterThanOrEqual(0);
        const j = normalizeCurrency(junk);
        if (j !== undefined) expect(j).toBe(junk.trim().toUpperCase());
      }),
      RUNS,
    );
  });
});

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** A valid RFC 3339 date-time with any offset, as text, from its parts. */
const rfc3339 = fc
  .record({
    y: fc.integer({ min: 1, max: 9999 }),
    mo: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 31 }),
    h: fc.integer({ min: 0, max: 23 }),
    mi: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    frac: fc.option(digits(1, 9), { nil: undefined }),
    offset: fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 15, 30, 45))
        .map(([sign, oh, om]) => `${sign}${pad(oh)}:${pad(om)}`),
    ),
  })
  .map(({ y, mo, d, h, mi, s, frac, offset }) => {
    const day = Math.min(d, mo === 2 && !isLeap(y) ? 28 : (DAYS[mo - 1] as number));
    return `${pad(y, 4)}-${pad(mo)}-${pad(day)}T${pad(h)}:${pad(mi)}:${pad(s)}${frac ? `.${frac}` : ''}${offset}`;
  });

describe('dates', () => {
  it('an RFC 3339 date-time is valid and kept as written, offset included', () => {
    fc.assert(
      fc.property(rfc3339, (v) => {
        expect(isRfc3339DateTime(v)).toBe(true);
        expect(normalizeOrderDate(v)).toBe(v);
        expect(normalizeOrderDate(` ${v} `)).toBe(v);
        // Converted to UTC it is the same instant.
        expect(Date.parse(orderDateToUtc(v))).toBe(rfc3339ToMs(v));
      }),
      RUNS,
    );
  });

  it('an instant formatted as ISO 8601 UTC parses back to the same instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(normalizeOrderDate(iso)).toBe(iso);
        expect(rfc3339ToMs(iso)).toBe(ms);
      }),
      RUNS,
    );
  });

  it('spreadsheet forms: a space for T, no offset (UTC), +hhmm without colon', () => {
    fc.assert(
      fc.property(rfc3339, (v) => {
        const [date, rest] = [v.slice(0, 10), v.slice(11)];
        const time = rest.replace(/(Z|[+-]\d{2}:\d{2})$/, '');
        const offset = rest.slice(time.length);
        expect(normalizeOrderDate(`${date} ${time}${offset}`)).toBe(v);
        expect(normalizeOrderDate(`${date} ${time}`)).toBe(`${date}T${time}Z`);
        if (offset !== 'Z') expect(normalizeOrderDate(`${date}T${time}${offset.replace(':', '')}`)).toBe(v);
      }),
      RUNS,
    );
  });

  it('the character-by-character date checks accept exactly what the regular expressions of their definition do', () => {
    // The definitions the checks were written from (formats.ts reads without match arrays).
    const calendar = (y: number, m: number, d: number) =>
      m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 ? (isLeap(y) ? 29 : 28) : (DAYS[m - 1] as number));
    const dateOnly = (v: string) => {
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
      return m !== null && calendar(Number(m[1]), Number(m[2]), Number(m[3]));
    };
    const dateTime = (v: string) => {
      const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/.exec(v);
      if (!m || !calendar(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
      if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 60) return false;
      const off = m[8] as string;
      return off.length === 1 || (Number(off.slice(1, 3)) <= 23 && Number(off.slice(4, 6)) <= 59);
    };
    // Valid date-times, their dates, and both with one character replaced, dropped or repeated.
    const edited = fc
      .tuple(
        rfc3339,
        fc.boolean(),
        fc.nat(),
        fc.constantFrom('0', '9', '3', '6', '-', ':', 'T', 't', ' ', 'Z', 'z', '+', '.', 'x', '\u0661', ''),
        fc.boolean(),
      )
      .map(([v, dateOnlyForm, at, ch, repeat]) => {
        const s = dateOnlyForm ? v.slice(0, 10) : v;
        const i = at % (s.length + 1);
        return repeat ? s.slice(0, i) + s.slice(i, i + 1).repeat(2) + s.slice(i + 1) : s.slice(0, i) + ch + s.slice(i + 1);
      });
    fc.assert(
      fc.property(fc.oneof(edited, rfc3339, junkText), (v) => {
        expect(isDateOnly(v)).toBe(dateOnly(v));
        expect(isRfc3339DateTime(v)).toBe(dateTime(v));
      }),
      { numRuns: 3000 },
    );
    for (const v of [
      '2024-02-29',
      '2023-02-29',
      '0000-01-01',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-1-01',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00:00.1234567891Z',
      '2024-01-01T00:00:00.Z',
      '2024-01-01T00:00:00+23:59',
      '2024-01-01T00:00:00+2359',
      '2024-01-01T00:00:00z',
      '2024-01-01 00:00:00-00:00',
      '2024-01-01T00:00:00Z\n',
      '\uff12024-01-01',
    ]) {
      expect([v, isDateOnly(v)]).toEqual([v, dateOnly(v)]);
      expect([v, isRfc3339DateTime(v)]).toEqual([v, dateTime(v)]);
    }
  });

  it('impossible dates and times are refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), (y, mo) => {
        const last = mo === 2 && !isLeap(y) ? 28 : (DAYS[mo - 1] as number);
        expect(normalizeOrderDate(`${pad(y, 4)}-${pad(mo)}-${pad(last + 1)}`)).toBeInstanceOf(Error);
        expect(isRfc3339DateTime(`${pad(y, 4)}-${pad(mo)}-01T24:00:00Z`)).toBe(false);
        expect(isRfc3339DateTime(`${pad(y, 4)}-${pad(mo)}-01T12:60:00Z`)).toBe(false);
        expect(isRfc3339DateTime(`${pad(y, 4)}-${pad(mo)}-01T12:00:00+24:00`)).toBe(false);
        expect(normalizeOrderDate(`${pad(mo)}/01/${pad(y, 4)}`)).toBeInstanceOf(Error);
      }),
      RUNS,
    );
  });

  it('junk is never a date and never throws', () => {
    fc.assert(
      fc.property(junkText, (v) => {
        const r = normalizeOrderDate(v);
        if (r instanceof Error) return;
        // Accepted only what has the shape of a date.
        expect(r).toMatch(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|z|[+-]\d{2}:\d{2}))?$/);
      }),
      RUNS,
    );
  });
});

describe('phones', () => {
  const exampleOf = (cc: CountryCode) => getExampleNumber(cc, examples) as NonNullable<ReturnType<typeof getExampleNumber>>;
  const withExample = getCountries().filter((cc) => getExampleNumber(cc, examples) !== undefined);
  // A few countries' numbers are shorter than the service's E.164 (8 to 15 digits), e.g. Tokelau's.
  const countries = withExample.filter((cc) => isE164(exampleOf(cc).number));

  it('a number the service cannot store (fewer than 8 digits) is refused before sending', () => {
    const short = withExample.filter((cc) => !isE164(exampleOf(cc).number));
    expect(short.length).toBeGreaterThan(0);
    for (const cc of short) {
      const e164 = exampleOf(cc).number;
      expect(normalizePhone(e164)).toEqual({
        ok: false,
        message: `${JSON.stringify(e164)} reads as ${e164}, but the service takes 8 to 15 digits after the +`,
      });
    }
  });

  it('a valid E.164 number stays itself; its national form with the country gives it back', () => {
    fc.assert(
      fc.property(fc.constantFrom(...countries), (cc: CountryCode) => {
        const example = exampleOf(cc);
        const e164 = example.number;
        expect(normalizePhone(e164)).toEqual({ ok: true, e164 });
        expect(normalizePhone(` ${e164} `)).toEqual({ ok: true, e164 });
        expect(normalizePhone(example.formatInternational())).toEqual({ ok: true, e164 });
        expect(normalizePhone(`00${e164.slice(1)}`)).toEqual({ ok: true, e164 });
        expect(normalizePhone(example.formatNational(), cc)).toEqual({ ok: true, e164 });
        expect(isE164(e164)).toBe(true);
      }),
      { numRuns: Math.min(200, countries.length * 2) },
    );
  });

  it('a number with an extension is refused, naming the extension', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...countries),
        fc.integer({ min: 1, max: 99999 }),
        fc.constantFrom(' x', ' ext. ', ';ext='),
        (cc, ext, sep) => {
          const e164 = exampleOf(cc).number;
          const r = normalizePhone(`${e164}${sep}${ext}`);
          expect(r).toEqual({
            ok: false,
            message: `${JSON.stringify(`${e164}${sep}${ext}`)} has an extension (x${ext}), which SMS cannot use; remove it`,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('junk is never accepted as something other than E.164, and never throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          junkText,
          digits(1, 20).map((d) => `+${d}`),
        ),
        fc.option(fc.constantFrom<CountryCode>('US', 'DE', 'GB', 'FR'), { nil: undefined }),
        (v, cc) => {
          const r = normalizePhone(v, cc);
          if (!r.ok) {
            expect(r.message).toMatch(/\S/);
            return;
          }
          expect(isE164(r.e164)).toBe(true);
          // What was accepted is the same number libphonenumber reads, without an extension.
          const parsed = parsePhoneNumberWithError(v.trim().replace(/^00/, '+'), cc ? { defaultCountry: cc } : undefined);
          expect(parsed.number).toBe(r.e164);
          expect(parsed.ext).toBeUndefined();
        },
      ),
      RUNS,
    );
  });
});
