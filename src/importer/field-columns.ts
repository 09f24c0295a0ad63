/**
 * Which column holds which field, for any kind of row (orders, contacts): a mapping's choices by
 * number or name (exact, then ignoring case, then ignoring spaces and punctuation), constants,
 * then columns named like a field; the missing fields' hint. Split from mapping.ts.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import { columnKey, suggestMaps } from './column-names.js';
import { countryOf } from './countries.js';
import { InputError } from './errors.js';

/** Which columns hold which fields of a kind (orders, contacts). */
export interface FieldLayout<F extends string> {
  /** Field → column index. */
  index: Partial<Record<F, number>>;
  /** Field → further columns read, in order, when the first one's cell is empty (a mapping's fallbacks). */
  fallbacks: Partial<Record<F, number[]>>;
  /** Columns holding the row's ISO country code, for local phone numbers. */
  countryIndexes: number[];
  /** Header names that map to no field (ignored; the command warns once unless the mapping expects them). */
  ignored: string[];
  /** Each mapped field and the column(s) it reads, or the value `set` gives it, in field order (for --dry-run). */
  sources: Array<{ field: string; columns: string[]; value?: string }>;
  /** Field → the value every row gets (`--set`, a mapping's `"set"`); its index is -1. */
  constants: Partial<Record<F, string>>;
}

/**
 * The fields of a kind and the required columns missing from a layout (`"email or phone"` when
 * either will do); `aliases` are the words a header may use for a field (an export's "Amount" for
 * `total`), for the `--map` the message proposes.
 */
export interface FieldSpec<F extends string> {
  fields: readonly F[];
  missing(index: Partial<Record<F, number>>): string[];
  aliases: Partial<Record<F, readonly string[]>>;
}

/** The columns a field may be read from, first choice first, and where that choice was made. */
export interface ColumnChoice {
  columns: string[];
  /** `--map` (a missing column is an error) or a mapping file / preset (absent choices are skipped). */
  from: string;
  /** The export may lack the field's columns (they depend on its settings): absent, the field is not read. */
  optional?: boolean;
}

/** Columns are numbered from 1 for people: `#3` is header[2]. */
function describeColumns(header: readonly string[], columns: number[]): string {
  return columns.map((i) => `${JSON.stringify(header[i])} (column ${i + 1})`).join(', ');
}

/** Several columns could be one field and nothing picks one: a terminal may ask which (commands/mapping-questions.ts). */
export class AmbiguousColumnError extends InputError {
  constructor(
    message: string,
    hint: string,
    readonly field: string,
    /** The candidates' indexes in the header. */
    readonly columns: readonly number[],
  ) {
    super(message, hint);
  }
}

/** Required fields no column holds (`"email or phone"` when either will do): a terminal may ask for each. */
export class MissingColumnsError extends InputError {
  constructor(
    message: string,
    hint: string,
    readonly missing: readonly string[],
    /** Columns the mapping already gives a field. */
    readonly used: readonly number[] = [],
  ) {
    super(message, hint);
  }
}

export function ambiguous(header: readonly string[], field: string, columns: number[]): InputError {
  return new AmbiguousColumnError(
    `the CSV header has ${columns.length} columns that could be ${field}: ${describeColumns(header, columns)}`,
    `pick one by its number: --map ${field}=#${(columns[0] as number) + 1}`,
    field,
    columns,
  );
}

/**
 * The column a mapping names: `#N` by number, else by its exact name (then case-insensitively);
 * -1 when there is none. A name that several columns have is refused: the first would be a guess.
 */
export function findColumn(header: readonly string[], column: string, field: string): number {
  const byNumber = /^#(\d+)$/.exec(column);
  if (byNumber) {
    const i = Number(byNumber[1]) - 1;
    if (i < 0 || i >= header.length) {
      throw new InputError(`--map ${field}=${column}: the file has ${header.length} columns`, `number them from 1 to ${header.length}`);
    }
    return i;
  }
  let matches = header.flatMap((h, i) => (h === column ? [i] : []));
  if (matches.length === 0) matches = header.flatMap((h, i) => (h.toLowerCase() === column.toLowerCase() ? [i] : []));
  // Labels a merchant or a version writes a little differently: `Email (billing)`, `E-Mail`.
  if (matches.length === 0 && columnKey(column) !== '') matches = header.flatMap((h, i) => (columnKey(h) === columnKey(column) ? [i] : []));
  if (matches.length > 1) throw ambiguous(header, field, matches);
  return matches[0] ?? -1;
}

/**
 * The columns a --map or a preset names for a field that the header has, in the order named;
 * none for an optional choice the file lacks; an InputError for a required one.
 */
function chosenColumns(header: readonly string[], field: string, given: string | ColumnChoice): number[] {
  const choice = typeof given === 'string' ? { columns: [given], from: '--map' } : given;
  const found = choice.columns.map((c) => findColumn(header, c, field)).filter((i) => i !== -1);
  if (found.length > 0 || choice.optional) return found;
  const what =
    choice.columns.length > 1
      ? `any of the columns ${choice.columns.map((c) => JSON.stringify(c)).join(', ')}`
      : `a column ${JSON.stringify(choice.columns[0])}`;
  throw new InputError(
    `${choice.from === '--map' ? `--map ${field}=${choice.columns[0]}` : `${choice.from}: ${field}`}: the file has no ${what.replace(/^a column/, 'column')}`,
    `its columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
  );
}

/** Where each field comes from, for the mapping shown: its columns by name, or its constant. */
function fieldSources<F extends string>(
  header: readonly string[],
  fields: readonly F[],
  index: FieldLayout<F>['index'],
  fallbacks: FieldLayout<F>['fallbacks'],
  fixed: FieldLayout<F>['constants'],
): FieldLayout<F>['sources'] {
  const sources: FieldLayout<F>['sources'] = [];
  for (const field of fields) {
    const i = index[field];
    if (i === undefined) continue;
    const value = fixed[field];
    if (value !== undefined) {
      sources.push({ field, columns: [], value });
      continue;
    }
    const more = fallbacks[field] ?? [];
    sources.push({ field, columns: [i, ...more].map((j) => header[j] as string) });
  }
  return sources;
}

/** The fields not chosen yet whose name a free column of the header reads as (one column each, or an error). */
function guessedColumns<F extends string>(
  header: readonly string[],
  byKey: ReadonlyMap<string, F>,
  index: FieldLayout<F>['index'],
  used: ReadonlySet<number>,
): Map<F, number> {
  const candidates = new Map<F, number[]>();
  header.forEach((h, i) => {
    const name = byKey.get(columnKey(h));
    if (name !== undefined && index[name] === undefined && !used.has(i)) {
      candidates.set(name, [...(candidates.get(name) ?? []), i]);
    }
  });
  const guessed = new Map<F, number>();
  for (const [name, columns] of candidates) {
    // Two columns that both read as this field: taking the first silently could import the wrong one.
    if (columns.length > 1) throw ambiguous(header, name, columns);
    guessed.set(name, columns[0] as number);
  }
  return guessed;
}

function missingColumns(
  missing: string[],
  header: readonly string[],
  delimiter: string,
  used: ReadonlySet<number>,
  aliases: FieldSpec<string>['aliases'],
): MissingColumnsError {
  const shown =
    header.length === 1
      ? `one column ${JSON.stringify(header[0]?.slice(0, 80))}`
      : `columns ${header.map((h) => JSON.stringify(h)).join(', ')}`;
  const d = delimiter === '\t' ? 'tab' : JSON.stringify(delimiter);
  return new MissingColumnsError(
    `the CSV header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (read ${shown} with delimiter ${d})`,
    header.length === 1
      ? 'is the delimiter right? give it with --delimiter'
      : `name the columns after the fields, or map them: ${suggestMaps(missing, header, used, aliases)}`,
    missing,
    [...used],
  );
}

/** resolveColumns for any kind of row: the fields and required columns come from `spec`. */
export function resolveFieldColumns<F extends string>(
  header: readonly string[],
  choices: ReadonlyMap<string, string | ColumnChoice>,
  delimiter: string,
  countryColumns: readonly string[],
  spec: FieldSpec<F>,
  constants: ReadonlyMap<string, string> = new Map(),
  reserved: readonly number[] = [],
): FieldLayout<F> {
  const byKey = new Map(spec.fields.map((f) => [columnKey(f), f]));
  const index: FieldLayout<F>['index'] = {};
  const fallbacks: FieldLayout<F>['fallbacks'] = {};
  const fixed: FieldLayout<F>['constants'] = {};
  const used = new Set<number>(reserved);
  // A constant replaces any column of its field (the value every row gets).
  for (const [field, value] of constants) {
    index[field as F] = -1;
    fixed[field as F] = value;
  }
  for (const [field, given] of choices) {
    if (constants.has(field)) continue;
    const found = chosenColumns(header, field, given);
    if (found.length === 0) continue;
    index[field as F] = found[0];
    if (found.length > 1) fallbacks[field as F] = found.slice(1);
    for (const i of found) used.add(i);
  }
  for (const [name, column] of guessedColumns(header, byKey, index, used)) {
    index[name as F] = column;
    used.add(column);
  }
  const countryIndexes = countryColumns.map((c) => findColumn(header, c, '(phone country)')).filter((i) => i !== -1 && !used.has(i));
  for (const i of countryIndexes) used.add(i);
  const missing = spec.missing(index);
  if (missing.length > 0) throw missingColumns(missing, header, delimiter, used, spec.aliases);
  const ignored = header.filter((_, i) => !used.has(i));
  const sources = fieldSources(header, spec.fields, index, fallbacks, fixed);
  if (countryIndexes.length > 0) sources.push({ field: '(phone country)', columns: countryIndexes.map((j) => header[j] as string) });
  return { index, fallbacks, countryIndexes, ignored, sources, constants: fixed };
}

/** The row's cell for a field: its first non-empty mapped column, or undefined. */
export function cellOf<F extends string>(cells: readonly string[], layout: FieldLayout<F>, f: F): string | undefined {
  const i = layout.index[f];
  if (i === undefined) return undefined;
  const v = cells[i];
  if (v !== undefined && v.trim() !== '') return v;
  if (i < 0) return layout.constants[f];
  const more = layout.fallbacks[f];
  if (more === undefined) return undefined;
  for (const j of more) {
    const w = cells[j];
    if (w !== undefined && w.trim() !== '') return w;
  }
  return undefined;
}

/** The country of a local phone number: the row's first country column with a known code, else the default. */
export function phoneCountry(
  cells: readonly string[],
  layout: FieldLayout<string>,
  fallback: CountryCode | undefined,
): CountryCode | undefined {
  for (const j of layout.countryIndexes) {
    const cc = countryOf(cells[j]);
    if (cc) return cc;
  }
  return fallback;
}
