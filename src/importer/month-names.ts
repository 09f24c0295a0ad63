/**
 * Month names as exports write them, English and German (eBay.de writes `10-Dez-25`), and the
 * century of a two-digit year.
 */
const MONTHS: readonly string[] = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
/** German month names: eBay.de writes `10-Dez-25`; names that are English too (`Jun`, `August`) are listed once. */
const GERMAN_MONTHS: readonly string[] = [
  'januar',
  'februar',
  'märz',
  'april',
  'mai',
  'juni',
  'juli',
  'august',
  'september',
  'oktober',
  'november',
  'dezember',
];
/** Month names and abbreviations (`jun`, `june`, `sept`, `jun.`, `dez`, `mär`, `mrz`) → 1–12: one lookup per cell. */
const MONTH_NUMBER = new Map<string, number>();
for (const names of [MONTHS, GERMAN_MONTHS])
  names.forEach((m, i) => {
    for (const name of [m, m.slice(0, 3), `${m.slice(0, 3)}.`]) MONTH_NUMBER.set(name, i + 1);
  });
MONTH_NUMBER.set('sept', 9).set('sept.', 9).set('mrz', 3).set('mrz.', 3).set('maerz', 3).set('mae', 3);

/** A month by its English or German name or abbreviation (`Jun`, `June`, `Sept`, `Dez`, `März`), 1–12, or 0. */
export function monthByName(name: string): number {
  return MONTH_NUMBER.get(name.normalize('NFC').toLowerCase()) ?? 0;
}

/** Two-digit years: 00–69 are 2000–2069, 70–99 are 1970–1999. */
export function fullYear(yy: string): number {
  return yy.length === 4 ? Number(yy) : Number(yy) + (Number(yy) < 70 ? 2000 : 1900);
}
