/**
 * The value forms of marketplace and payment exports (issue 34): money with symbols and signs
 * written either way, decimal commas, eBay's named-month dates (US, UK, German), Stripe's UTC
 * times without a zone marker and Shopify's offsets; each read exactly or refused by name.
 */
import { describe, expect, it } from 'vitest';
import { currenciesOfMark, normalizeOrderDate, parseAmount, parseMoney } from '../../src/importer/cell-values.js';
import { parseDateFormat, parseTimeZone, readNamedMonthDate, UTC_ZONE, type ZoneReader } from '../../src/importer/dates.js';

const zone = (z: string) => parseTimeZone(z) as ZoneReader;

describe('money as exports write it', () => {
  it('symbols before and after, eBay site prefixes, thousands and decimal commas: the exact decimal', () => {
    const cases: Array<[Parameters<typeof parseMoney>, string]> = [
      [['$1,299.00', ',', 'USD'], '1299.00'],
      [['US $1,299.00', ',', 'USD'], '1299.00'],
      [['AU $12.50', ',', 'AUD'], '12.50'],
      [['C $5.00', ',', 'CAD'], '5.00'],
      [['£1,299.99', ',', 'GBP'], '1299.99'],
      [['116,99 €', ';', 'EUR'], '116.99'],
      [['1.116,99 €', ';', 'EUR'], '1116.99'],
      [['EUR 116,99', ';', 'EUR'], '116.99'],
      // A quoted decimal comma in a comma-separated file (Stripe's dashboard in a European locale).
      [['0,25', ',', 'EUR'], '0.25'],
      [['12,5', ',', 'EUR'], '12.5'],
      // Three digits after the comma are thousands there, as before.
      [['1,299', ',', 'USD'], '1299'],
      // Never through a float: digits beyond a double's precision are kept.
      [['$9,007,199,254,740,993.01', ',', 'USD'], '9007199254740993.01'],
    ];
    for (const [args, want] of cases) expect(parseMoney(...args), args[0]).toBe(want);
  });

  it('negative amounts in both spellings and every symbol placement', () => {
    const cases: Array<[string, string, string]> = [
      ['-12.00', ',', 'USD'],
      ['(12.00)', ',', 'USD'],
      ['-$12.00', ',', 'USD'],
      ['$-12.00', ',', 'USD'],
      ['($12.00)', ',', 'USD'],
      ['$(12.00)', ',', 'USD'],
      ['US $-12.00', ',', 'USD'],
      ['\u221212.00', ',', 'USD'],
      ['- $12.00', ',', 'USD'],
    ];
    for (const [v, d, c] of cases) expect(parseMoney(v, d, c), v).toBe('-12.00');
    expect(parseMoney('-12,00 €', ';', 'EUR')).toBe('-12.00');
    expect(parseMoney('(1.234,50 €)', ';', 'EUR')).toBe('-1234.50');
    expect(parseMoney('€ -3,50', ';', 'EUR')).toBe('-3.50');
    expect(parseMoney('(0.00)', ',', 'USD')).toBe('0.00');
    expect((parseMoney('(-12.00)', ',', 'USD') as Error).message).toBe('"(-12.00)" is written negative twice: write -12.00 or (12.00)');
    expect((parseMoney('--12.00', ',', 'USD') as Error).message).toMatch(/negative twice/);
    // A sign does not excuse a symbol of another currency.
    expect((parseMoney('-£12.00', ',', 'USD') as Error).message).toBe('"£12.00" is in GBP, but the row\'s currency is USD');
    // A minus inside the digits is no sign: left for the contract to refuse as no decimal.
    expect(parseMoney('12-00', ',', 'USD')).toBe('12-00');
    expect(currenciesOfMark('(£12.00)')).toEqual(['GBP']);
    expect(currenciesOfMark('US $-1.00')).toEqual(['USD']);
  });

  it("an order's amounts refuse a negative, naming it as written", () => {
    expect((parseAmount('(12.00)', ',', 'USD') as Error).message).toBe(
      '"(12.00)" is negative (-12.00): an order\'s amounts are zero or more (a refund or credit note is no order)',
    );
    expect(parseAmount('-$12.00', ',', 'USD')).toBeInstanceOf(Error);
    expect(parseAmount('$12.00', ',', 'USD')).toBe('12.00');
    expect(parseAmount('(0.00)', ',', 'USD')).toBe('0.00');
  });
});

describe('dates as exports write them', () => {
  it('eBay US (Jun-10-24), UK (10-Jun-24) and German (10-Dez-25, 3-Mär-25) dates, with or without a time', () => {
    const cases: Array<[string, string]> = [
      ['Jun-10-24', '2024-06-10'],
      ['Dec-01-99', '1999-12-01'],
      ['Jun-10-2024', '2024-06-10'],
      ['Jun-10-24 14:03:22', '2024-06-10T14:03:22Z'],
      ['10-Jun-24', '2024-06-10'],
      ['10-Dez-25', '2025-12-10'],
      ['3-Mär-25', '2025-03-03'],
      ['03-Mai-25', '2025-05-03'],
      ['31-Okt-24', '2024-10-31'],
      ['10 Jun 2024', '2024-06-10'],
      ['Jun 10, 2024', '2024-06-10'],
      ['Sept-3-24', '2024-09-03'],
    ];
    for (const [v, want] of cases) expect(normalizeOrderDate(v), v).toBe(want);
    // A time without an offset is in the zone given (the seller's), UTC by default.
    expect(normalizeOrderDate('Jun-10-24 14:03:22', { zone: zone('America/Los_Angeles') })).toBe('2024-06-10T14:03:22-07:00');
  });

  it('a named-month date that is no date is refused naming what is wrong', () => {
    expect((normalizeOrderDate('Jun-31-24') as Error).message).toBe('"Jun-31-24" is not a calendar date');
    expect((normalizeOrderDate('Foo-10-24') as Error).message).toBe('"Foo-10-24": no month is named "Foo" (English or German month names)');
    expect((normalizeOrderDate('10-Jun-24 25:00') as Error).message).toBe('"10-Jun-24 25:00" is not a time of day');
    expect(readNamedMonthDate('2024-06-10', UTC_ZONE)).toBeUndefined();
    expect((normalizeOrderDate('yesterday') as Error).message).toMatch(/month named \(Jun-10-24, 10-Jun-24\), got "yesterday"/);
  });

  it("Stripe's times without a zone marker are UTC; Shopify's offset is kept as written", () => {
    expect(normalizeOrderDate('2024-06-10 14:03:22')).toBe('2024-06-10T14:03:22Z');
    expect(normalizeOrderDate('2024-06-10 14:03')).toBe('2024-06-10T14:03:00Z');
    expect(normalizeOrderDate('2024-06-10 14:03:22', { zone: UTC_ZONE })).toBe('2024-06-10T14:03:22Z');
    expect(normalizeOrderDate('2024-06-10 14:03:22 +0200')).toBe('2024-06-10T14:03:22+02:00');
    expect(normalizeOrderDate('2024-06-10 14:03:22 +0200', { zone: zone('America/New_York') })).toBe('2024-06-10T14:03:22+02:00');
  });

  it('--date-format reads German month names and patterns with dashes', () => {
    const f = parseDateFormat('DD-MMM-YY');
    expect(f).not.toBeInstanceOf(Error);
    if (f instanceof Error) return;
    expect(f.read('10-Dez-25', UTC_ZONE)).toBe('2025-12-10');
    expect(f.read('03-Mär-25', UTC_ZONE)).toBe('2025-03-03');
    const long = parseDateFormat('D. MMMM YYYY') as Exclude<ReturnType<typeof parseDateFormat>, Error>;
    expect(long.read('3. März 2025', UTC_ZONE)).toBe('2025-03-03');
  });
});
