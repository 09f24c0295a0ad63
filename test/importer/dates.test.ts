import { getCountries } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { normalizeOrderDate, parseBoolean } from '../../src/importer/cell-values.js';
import { countryOf } from '../../src/importer/countries.js';
import { COMMON_DATE_FORMATS, type DateFormat, parseDateFormat, parseTimeZone, type ZoneReader } from '../../src/importer/dates.js';

const fmt = (p: string) => parseDateFormat(p) as DateFormat;
const zone = (z: string) => parseTimeZone(z) as ZoneReader;
const UTC = zone('UTC');

describe('--date-format patterns', () => {
  it('reads the documented patterns', () => {
    expect(fmt('MMM D, YYYY h:mm:ss A').read('Jun 10, 2024 10:00:00 AM', UTC)).toBe('2024-06-10T10:00:00Z');
    expect(fmt('MMM D, YYYY h:mm:ss A').read('Jun 10, 2024 12:05:09 AM', UTC)).toBe('2024-06-10T00:05:09Z');
    expect(fmt('MMM D, YYYY h:mm:ss A').read('Dec 1, 2024 12:00:00 PM', UTC)).toBe('2024-12-01T12:00:00Z');
    expect(fmt('DD/MM/YYYY').read('18/05/2022', UTC)).toBe('2022-05-18');
    expect(fmt('DD/MM/YYYY HH:mm').read('18/05/2022 09:30', UTC)).toBe('2022-05-18T09:30:00Z');
    expect(fmt('M/D/YY').read('5/18/22', UTC)).toBe('2022-05-18');
    expect(fmt('M/D/YY').read('5/18/99', UTC)).toBe('1999-05-18');
    expect(fmt('DD.MM.YYYY HH:mm:ss').read('01.02.2024 23:59:59', UTC)).toBe('2024-02-01T23:59:59Z');
    expect(fmt('D MMM YYYY').read('3 Sept 2024', UTC)).toBe('2024-09-03');
    expect(fmt('MMMM D, YYYY').read('January 5, 2024', UTC)).toBe('2024-01-05');
    expect(fmt('YYYY-MM-DDTHH:mm:ssZ').read('2024-06-10T10:00:00-0400', UTC)).toBe('2024-06-10T10:00:00-04:00');
    for (const p of COMMON_DATE_FORMATS) expect(parseDateFormat(p)).not.toBeInstanceOf(Error);
  });

  it('refuses a value that does not match, an impossible date, and a pattern without year, month and day', () => {
    expect((fmt('DD/MM/YYYY').read('2022-05-18', UTC) as Error).message).toBe('"2022-05-18" does not match --date-format "DD/MM/YYYY"');
    expect((fmt('DD/MM/YYYY').read('31/02/2022', UTC) as Error).message).toMatch(/not a calendar date/);
    expect((fmt('MMM D, YYYY').read('Foo 1, 2024', UTC) as Error).message).toMatch(/no month/);
    expect((parseDateFormat('YYYY-MM') as Error).message).toMatch(/needs a year .* a month .* and a day/);
    expect((parseDateFormat('YYYY-MM-DD q') as Error).message).toMatch(/"q" is no date token/);
    expect((parseDateFormat('M/D/YYYY h:mm') as Error).message).toMatch(/needs AM\/PM/);
  });

  it('--timezone gives zone-less times their offset at that date (summer and winter), UTC by default', () => {
    const berlin = zone('Europe/Berlin');
    expect(fmt('MMM D, YYYY h:mm:ss A').read('Jun 10, 2024 10:00:00 AM', berlin)).toBe('2024-06-10T10:00:00+02:00');
    expect(fmt('MMM D, YYYY h:mm:ss A').read('Jan 10, 2024 10:00:00 AM', berlin)).toBe('2024-01-10T10:00:00+01:00');
    expect(normalizeOrderDate('2024-06-10 10:00', { zone: zone('America/New_York') })).toBe('2024-06-10T10:00:00-04:00');
    expect(normalizeOrderDate('2024-01-10 10:00', { zone: zone('America/New_York') })).toBe('2024-01-10T10:00:00-05:00');
    expect(normalizeOrderDate('10/06/2024 10:00', { order: 'DMY', zone: zone('+05:30') })).toBe('2024-06-10T10:00:00+05:30');
    // An offset in the cell wins over the zone.
    expect(normalizeOrderDate('2024-06-10 10:00:00 -0400', { zone: berlin })).toBe('2024-06-10T10:00:00-04:00');
    expect(normalizeOrderDate('2024-06-10 10:00')).toBe('2024-06-10T10:00:00Z');
    expect(parseTimeZone('Mars/Base')).toBeInstanceOf(Error);
    expect(parseTimeZone('+19:00')).toBeInstanceOf(Error);
    expect(zone('utc').name).toBe('UTC');
  });

  it('Excel serial dates are recognised and refused naming the option; --date-format excel reads them', () => {
    const refused = normalizeOrderDate('45453.416666');
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe(
      '"45453.416666" looks like an Excel serial date (2024-06-10 10:00:00): give --date-format excel to read such numbers, or export the column as dates',
    );
    expect(fmt('excel').read('45453', UTC)).toBe('2024-06-10');
    expect(fmt('excel').read('45453.5', zone('Europe/Berlin'))).toBe('2024-06-10T12:00:00+02:00');
    expect(fmt('excel').read('2024-06-10', UTC)).toBeInstanceOf(Error);
  });
});

describe('countries and booleans as shops write them', () => {
  it('country names in several languages as well as ISO codes', () => {
    expect(
      ['United States', 'Deutschland', 'Royaume-Uni', 'UK', 'España', 'Germany', 'us', 'UNITED KINGDOM', 'Schweiz'].map(countryOf),
    ).toEqual(['US', 'DE', 'GB', 'GB', 'ES', 'DE', 'US', 'GB', 'CH']);
    expect(countryOf('Narnia')).toBeUndefined();
    expect(countryOf('')).toBeUndefined();
  });

  it('every name Intl gives in the seven languages reads as the one map of them all did (first language wins; short forms last), asked twice', () => {
    // The reading before the lazy per-language maps and the answers kept per cell: the reference.
    const key = (n: string) =>
      n
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z]/g, '');
    const all = new Map<string, string>();
    const names: string[] = [];
    for (const lang of ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt']) {
      const display = new Intl.DisplayNames([lang], { type: 'region' });
      for (const cc of getCountries()) {
        const name = display.of(cc);
        if (!name || name === cc) continue;
        names.push(name);
        if (!all.has(key(name))) all.set(key(name), cc);
      }
    }
    for (const [alias, cc] of Object.entries({ usa: 'US', uk: 'GB', england: 'GB', holland: 'NL', czechia: 'CZ', vietnam: 'VN' }))
      all.set(alias, cc);
    const cells = [
      ...names,
      ...names.map((n) => ` ${n.toUpperCase()} `),
      'USA',
      'U.K.',
      'Holland',
      'Czechia',
      'Viet Nam',
      'Nowhere',
      'constructor',
      'x',
    ];
    for (let pass = 0; pass < 2; pass++) {
      for (const cell of cells) {
        const v = cell.trim();
        const expected = v.length === 2 || v.length < 2 ? undefined : all.get(key(v));
        if (v.length > 2) expect(countryOf(cell), cell).toBe(expected);
      }
    }
    expect(countryOf('constructor')).toBeUndefined();
  });

  it('yes and no in the languages shops export in', () => {
    for (const yes of ['ja', 'JA', 'j', 'oui', 'sí', 'si', 'sì', 'sim', 'tak', 'wahr', 'x', 'TRUE', 'Yes'])
      expect(parseBoolean(yes), yes).toBe(true);
    for (const no of ['nein', 'Nein', 'non', 'no', 'não', 'nee', 'nej', 'nie', 'falsch', 'FALSE', 'n'])
      expect(parseBoolean(no), no).toBe(false);
    expect((parseBoolean('vielleicht') as Error).message).toMatch(
      /must be true\/false, yes\/no or 1\/0 \(or ja\/nein, oui\/non, sí\/no…\)/,
    );
  });
});
