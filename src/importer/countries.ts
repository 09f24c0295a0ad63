/**
 * A country cell as shop exports write it, for the country of a local phone number: an ISO 3166
 * alpha-2 code (`US`), or the country's name in English, German, French, Spanish, Italian, Dutch
 * or Portuguese (`United States`, `Deutschland`, `Royaume-Uni`), as Intl.DisplayNames names it,
 * plus a few usual short forms (`USA`, `UK`). Case, accents and punctuation are ignored.
 */
import { type CountryCode, getCountries } from 'libphonenumber-js/max/es6';
import { normalizeCountry } from '../contract/phone.js';

const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt'];

/** Names Intl does not give but exports write. */
const ALIASES: Record<string, CountryCode> = {
  usa: 'US',
  unitedstatesofamerica: 'US',
  us: 'US',
  uk: 'GB',
  greatbritain: 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  northernireland: 'GB',
  unitedkingdomofgreatbritainandnorthernireland: 'GB',
  holland: 'NL',
  thenetherlands: 'NL',
  southkorea: 'KR',
  korearepublicof: 'KR',
  russia: 'RU',
  russianfederation: 'RU',
  czechia: 'CZ',
  czechrepublic: 'CZ',
  uae: 'AE',
  vietnam: 'VN',
};

/** A name as compared: lower case, no accents, letters only (`Côte d’Ivoire` → cotedivoire). */
function key(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

let byName: Map<string, CountryCode> | undefined;

/** Built on first use (some 1,700 names, a few milliseconds): most files hold codes. */
function names(): Map<string, CountryCode> {
  if (byName) return byName;
  const map = new Map<string, CountryCode>();
  for (const lang of LANGUAGES) {
    let display: Intl.DisplayNames;
    try {
      display = new Intl.DisplayNames([lang], { type: 'region' });
    } catch {
      continue;
    }
    for (const cc of getCountries()) {
      const name = display.of(cc);
      if (name && name !== cc && !map.has(key(name))) map.set(key(name), cc);
    }
  }
  for (const [alias, cc] of Object.entries(ALIASES)) map.set(alias, cc);
  byName = map;
  return map;
}

/** The ISO code of a country cell (code or name), or undefined. */
export function countryOf(value: string | undefined): CountryCode | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (v.length === 2) return normalizeCountry(v) ?? ALIASES[v.toLowerCase()];
  if (v.length < 2) return undefined;
  return names().get(key(v));
}
