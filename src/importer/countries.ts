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

/** Each language's names (first country wins a name), built when a lookup first needs it. */
const byLanguage: Array<Map<string, CountryCode>> = [];

function namesIn(i: number): Map<string, CountryCode> {
  let map = byLanguage[i];
  if (map) return map;
  map = new Map();
  try {
    const display = new Intl.DisplayNames([LANGUAGES[i] as string], { type: 'region' });
    for (const cc of getCountries()) {
      const name = display.of(cc);
      if (name && name !== cc && !map.has(key(name))) map.set(key(name), cc);
    }
  } catch {
    // A Node built without this language's data: its names are not known.
  }
  byLanguage[i] = map;
  return map;
}

/**
 * A name's country: the usual short forms first, then the languages in order (English first), each
 * built only when the ones before it do not know the name (some 250 names a language, a few
 * milliseconds each: an export in English never builds the others).
 */
function byName(k: string): CountryCode | undefined {
  if (Object.hasOwn(ALIASES, k)) return ALIASES[k];
  for (let i = 0; i < LANGUAGES.length; i++) {
    const cc = namesIn(i).get(k);
    if (cc) return cc;
  }
  return undefined;
}

/**
 * The answers given so far, by cell: an export writes a few distinct countries over and over, and
 * the name's key (Unicode decomposition, two replacements) was a few µs per row. Bounded: past
 * 1,000 distinct cells, the others are worked out each time.
 */
const answered = new Map<string, CountryCode | null>();
const ANSWERED_MAX = 1000;

/** The ISO code of a country cell (code or name), or undefined. */
export function countryOf(value: string | undefined): CountryCode | undefined {
  if (!value) return undefined;
  const known = answered.get(value);
  if (known !== undefined) return known ?? undefined;
  const cc = lookUp(value);
  if (answered.size < ANSWERED_MAX) answered.set(value, cc ?? null);
  return cc;
}

function lookUp(value: string): CountryCode | undefined {
  const v = value.trim();
  if (v.length === 2) return normalizeCountry(v) ?? ALIASES[v.toLowerCase()];
  if (v.length < 2) return undefined;
  return byName(key(v));
}
