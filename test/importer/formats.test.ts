import { describe, expect, it } from 'vitest';
import { normalizeOrderDate, parseBoolean, parseMoney } from '../../src/importer/cell-values.js';

describe('cell formats of real exports', () => {
  it('date-times: a space before the offset, no colon in it, fractional seconds, Z; the offset kept as written', () => {
    const cases: Array<[Parameters<typeof normalizeOrderDate>, unknown]> = [
      [['2024-06-10 10:00:00 -0400'], '2024-06-10T10:00:00-04:00'],
      [['2024-06-10 10:00:00 -04:00'], '2024-06-10T10:00:00-04:00'],
      [['2024-06-10T10:00:00.123456+0530'], '2024-06-10T10:00:00.123456+05:30'],
      [['2024-06-10 10:00:00.5 +02:00'], '2024-06-10T10:00:00.5+02:00'],
      [['2024-06-10 10:00:00 Z'], '2024-06-10T10:00:00Z'],
      [['2024-06-10 10:00:00 UTC'], '2024-06-10T10:00:00Z'],
      [['2024-06-10T10:00:00.250Z'], '2024-06-10T10:00:00.250Z'],
      [['2024-06-10 10:00 +0200'], '2024-06-10T10:00:00+02:00'],
    ];
    for (const [args, want] of cases) expect(normalizeOrderDate(...args), String(args)).toBe(want);
    expect(normalizeOrderDate('2024-06-10 10:00:00 -2500')).toBeInstanceOf(Error);
    expect(normalizeOrderDate('2024-06-31 10:00:00 -0400')).toBeInstanceOf(Error);
  });

  it('day/month dates only with a date order, never guessed', () => {
    const ambiguous = normalizeOrderDate('03/04/2024');
    expect(ambiguous).toBeInstanceOf(Error);
    expect((ambiguous as Error).message).toMatch(/ambiguous .*--date-order MDY or DMY/);
    expect(normalizeOrderDate('13/04/2024')).toBeInstanceOf(Error);
    const cases: Array<[Parameters<typeof normalizeOrderDate>, unknown]> = [
      [['03/04/2024', 'MDY'], '2024-03-04'],
      [['03/04/2024', 'DMY'], '2024-04-03'],
      [['3/4/2024 14:30', 'MDY'], '2024-03-04T14:30:00Z'],
      [['3.4.2024 14:30:15 +0200', 'DMY'], '2024-04-03T14:30:15+02:00'],
    ];
    for (const [args, want] of cases) expect(normalizeOrderDate(...args), String(args)).toBe(want);
    expect((normalizeOrderDate('13/04/2024', 'MDY') as Error).message).toMatch(/not a calendar date \(read as MDY\)/);
    expect(normalizeOrderDate('13/04/2024', 'DMY')).toBe('2024-04-13');
    expect(normalizeOrderDate('3/4/24', 'MDY')).toBeInstanceOf(Error);
  });

  it('booleans TRUE/FALSE and yes/no in any case; empty is absent', () => {
    expect(['TRUE', 'True', 'yes', 'YES', 'Yes'].map(parseBoolean)).toEqual([true, true, true, true, true]);
    expect(['FALSE', 'false', 'no', 'NO', 'No'].map(parseBoolean)).toEqual([false, false, false, false, false]);
    expect(parseBoolean('  ')).toBeUndefined();
  });

  it('money with a currency symbol or code beside it, when it agrees with the row currency', () => {
    const cases: Array<[Parameters<typeof parseMoney>, unknown]> = [
      [['$1,234.50', ',', 'USD'], '1234.50'],
      [['$1,234.50', ',', 'cad'], '1234.50'],
      [['1.234,50 €', ',', 'EUR'], '1234.50'],
      [['1 234,50 €', ';', 'EUR'], '1234.50'],
      [['EUR 12.00', ',', 'EUR'], '12.00'],
      [['12.00 eur', ',', 'EUR'], '12.00'],
      [['£9.99', ',', 'GBP'], '9.99'],
      [['US$ 5', ',', 'USD'], '5'],
      [['49.90', ',', undefined], '49.90'],
    ];
    for (const [args, want] of cases) expect(parseMoney(...args), String(args)).toBe(want);
    expect((parseMoney('$1,234.50', ',', 'EUR') as Error).message).toBe(
      '"$1,234.50" is in one of USD, CAD, AUD, NZD, SGD, HKD, …, but the row\'s currency is EUR',
    );
    expect((parseMoney('EUR 12.00', ',', 'USD') as Error).message).toBe('"EUR 12.00" is in EUR, but the row\'s currency is USD');
    expect(parseMoney('12.00 ZZZ', ',', 'USD')).toBe('12.00 ZZZ');
    expect(parseMoney('49,90x', ';', 'EUR')).toBe('49,90x');
  });

  it('spaces in an amount only as 3-digit grouping (issue 26: "5 5" was stored as 55.00, "1 0.5" as 10.50)', () => {
    const cases: Array<[Parameters<typeof parseMoney>, unknown]> = [
      [['1 234,50', ';', 'EUR'], '1234.50'],
      [['1 234,50', ',', 'EUR'], '1234.50'],
      [['12 345 678.9', ',', 'USD'], '12345678.9'],
      [['1\u202f234,50 €', ';', 'EUR'], '1234.50'],
      [["1'234.50", ',', 'CHF'], '1234.50'],
      [['1 234', ';', undefined], '1234'],
    ];
    for (const [args, want] of cases) expect(parseMoney(...args), String(args)).toBe(want);
    for (const bad of ['5 5', '1 0.5', '12 34', '1 2345', '1 234 5', '1234 567', '1 234.567,50', '1 234\u00a0567', '€ 5 5'])
      expect(parseMoney(bad, ';', 'EUR'), bad).toBeInstanceOf(Error);
    expect((parseMoney('5 5', ';', 'EUR') as Error).message).toBe(
      '"5 5" has spaces that do not group digits by three: write 1234.50 or 1 234,50',
    );
  });
});
