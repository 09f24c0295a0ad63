/**
 * Which mapping an `orders import` uses: `--preset NAME` or `--map-file FILE` (the same format),
 * with `--map` and `--set` on top; the options a mapping may carry (date order, date format, time
 * zone, delimiter, default country) unless given on the command line; without either, the
 * preset the header is recognised as (src/importer/presets/).
 */
import type { CountryCode } from 'libphonenumber-js/max';
import type { ImportInput } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { normalizeCurrency } from '../../contract/currency.js';
import { UsageError } from '../../errors.js';
import type { DateOrder, DateReading } from '../../importer/cell-values.js';
import { parseDateFormat, parseTimeZone, UTC_ZONE } from '../../importer/dates.js';
import { loadMapFile, type MapFile, mapFileChoices } from '../../importer/map-file.js';
import { type ColumnChoice, type ColumnLayout, ORDER_ALIASES, ORDER_MAPPING_SCHEMA, resolveColumns } from '../../importer/mapping.js';
import { NoContactColumnsError, noContactColumns } from '../../importer/presets/cannot.js';
import { loadFamily } from '../../importer/presets/family.js';
import { type MappingChoice, presetJson } from '../../importer/presets/recognise.js';
import { type FieldQuestion, layoutWithQuestions } from '../mapping-questions.js';

export interface MappingFlags {
  preset?: string;
  mapFile?: string;
  dateOrder?: string;
  set?: string[];
  dateFormat?: string;
  timezone?: string;
}

/** `--set field=value` values (repeatable) into field → value; the flag names the field it cannot give. */
export function parseSets(values: readonly string[]): Map<string, string> {
  const settable: readonly string[] = ORDER_MAPPING_SCHEMA.settable;
  const out = new Map<string, string>();
  for (const v of values) {
    const eq = v.indexOf('=');
    const field = eq > 0 ? v.slice(0, eq).trim() : '';
    const value = eq > 0 ? v.slice(eq + 1).trim() : '';
    if (!field || !value) throw new UsageError(`--set must look like field=value, got ${JSON.stringify(v)}`, 'e.g. --set currency=EUR');
    if (!settable.includes(field))
      throw new UsageError(
        field === 'order_id'
          ? '--set cannot give order_id: every row would be the same order'
          : `--set names an unknown field ${JSON.stringify(field)}`,
        `fields it can give: ${settable.join(', ')}`,
      );
    if (out.has(field)) throw new UsageError(`--set gives the field ${field} twice`);
    out.set(field, value);
  }
  return out;
}

/** The mapping of a run: its file (if any), the date reading and the constants (flags first, then the file's). */
export interface ImportMapping {
  mapFile?: MapFile;
  dateOrder?: DateOrder;
  /** Always set: the zone is UTC unless given. */
  dates: DateReading;
  constants: Map<string, string>;
}

/** `--preset NAME|none` or `--map-file FILE` (not both). */
export async function chooseMapping(opts: MappingFlags, signal?: AbortSignal): Promise<MappingChoice> {
  if (opts.preset !== undefined && opts.mapFile !== undefined)
    throw new UsageError(
      '--preset and --map-file do not go together',
      'a preset is a mapping file: copy it (svc orders presets show NAME) and adapt it',
    );
  if (opts.preset?.trim().toLowerCase() === 'none') return { none: true };
  if (opts.preset !== undefined) return { family: loadFamily(opts.preset, ORDER_MAPPING_SCHEMA), none: false };
  if (opts.mapFile !== undefined) return { mapFile: await loadMapFile(opts.mapFile, ORDER_MAPPING_SCHEMA, signal), none: false };
  return { none: false };
}

/** The delimiter known before the header: the flag's, else a named preset's or mapping file's. */
export function choiceDelimiter(choice: MappingChoice): string | undefined {
  return choice.mapFile?.delimiter ?? choice.family?.base.delimiter;
}

/** The date order, format and zone and the constants of a run: the flags first, then the mapping file's. */
export function loadImportMapping(opts: MappingFlags, mapFile: MapFile | undefined): ImportMapping {
  const dateOrder = opts.dateOrder !== undefined ? parseDateOrder(opts.dateOrder) : mapFile?.dateOrder;
  const format = dateFormatOf(opts, mapFile);
  const zone = timeZoneOf(opts, mapFile);
  const constants = new Map(mapFile?.set ?? []);
  for (const [field, value] of parseSets(opts.set ?? [])) constants.set(field, value);
  const dates: DateReading = { zone };
  if (dateOrder) dates.order = dateOrder;
  if (format) dates.format = format;
  return { mapFile, dateOrder, dates, constants };
}

function parseDateOrder(given: string): 'MDY' | 'DMY' {
  const v = given.trim().toUpperCase();
  if (v !== 'MDY' && v !== 'DMY')
    throw new UsageError(`--date-order must be MDY (03/04/2024 is March 4) or DMY (3 April), got ${JSON.stringify(given)}`);
  return v;
}

/** --date-format, else the mapping file's; a bad pattern named where it came from. */
function dateFormatOf(opts: MappingFlags, mapFile: MapFile | undefined) {
  const pattern = opts.dateFormat ?? mapFile?.dateFormat;
  const format = pattern === undefined ? undefined : parseDateFormat(pattern);
  if (format instanceof Error)
    throw new UsageError(
      opts.dateFormat === undefined
        ? `${mapFile?.origin}: "date_format": ${format.message.replace(/^--date-format /, '')}`
        : format.message,
      'patterns such as "MMM D, YYYY h:mm:ss A", "DD/MM/YYYY", "M/D/YY" or excel: see docs/importer.md',
    );
  return format;
}

/** --timezone, else the mapping file's, else UTC; a bad zone named where it came from. */
function timeZoneOf(opts: MappingFlags, mapFile: MapFile | undefined) {
  const zoneName = opts.timezone ?? mapFile?.timezone;
  const zone = zoneName === undefined ? UTC_ZONE : parseTimeZone(zoneName);
  if (zone instanceof Error)
    throw new UsageError(`${opts.timezone === undefined ? `${mapFile?.origin}: "timezone"` : '--timezone'}: ${zone.message}`);
  return zone;
}

/** A mapping file's default country unless --default-country was given. */
export function mappingDefaultCountry(given: CountryCode | undefined, mapFile: MapFile | undefined): CountryCode | undefined {
  return given ?? mapFile?.defaultCountry;
}

/**
 * The column layout of the file: the mapping file's columns, `--map` over them, fields by name for
 * the rest. A preset that cannot be imported, or a file with no e-mail and no phone column, stops
 * here (exit 2) with the sentence saying why.
 */
export function importLayout(
  name: string,
  header: readonly string[],
  maps: Map<string, string>,
  mapFile: MapFile | undefined,
  delimiter: string,
  constants: ReadonlyMap<string, string> = mapFile?.set ?? new Map(),
): ColumnLayout {
  if (mapFile?.cannot && maps.size === 0) throw noContactColumns(name, mapFile);
  const choices = new Map<string, string | ColumnChoice>();
  for (const [field, choice] of mapFileChoices(mapFile)) choices.set(field, choice);
  for (const [field, column] of maps) choices.set(field, column);
  try {
    return resolveColumns(header, choices, delimiter, mapFile?.countryColumns, {
      constants,
      packed: mapFile?.packedItems,
      numbered: mapFile?.numberedItems,
      currencyFromSymbol: mapFile?.currencyFromSymbol,
      summaryRows: mapFile?.summaryRows,
    });
  } catch (err) {
    if (err instanceof NoContactColumnsError) throw noContactColumns(name, mapFile, maps.size === 0);
    throw err;
  }
}

/** What a terminal's question says about each required order field. */
const ORDER_QUESTIONS: Record<string, FieldQuestion> = {
  order_id: { what: "the order's number or id" },
  total: { what: "the order's total, the amount paid" },
  currency: {
    what: 'its ISO code: EUR, USD…',
    constant: 'EUR',
    check: (v) => (normalizeCurrency(v) ? true : `${JSON.stringify(v)} is no ISO 4217 currency code (EUR, USD, GBP…)`),
  },
  order_date: { what: 'when the order was placed' },
  email: { what: "the buyer's e-mail address" },
  phone: { what: "the buyer's phone number" },
};

/**
 * importLayout, asking on a terminal for the fields the header does not give (mapping-questions.ts).
 * Answers join `opts.map` and `opts.set`, so the journal and the resume command carry them.
 */
export async function orderLayoutAsking(args: {
  ctx: Context;
  input: ImportInput;
  name: string;
  header: readonly string[];
  delimiter: string;
  maps: Map<string, string>;
  constants: Map<string, string>;
  mapFile: MapFile | undefined;
  opts: MappingFlags & { map?: string[] };
  /** The `svc orders import` command for these options (commandFor). */
  command(opts: MappingFlags & { map?: string[] }): string;
}): Promise<{ layout: ColumnLayout; maps: Map<string, string>; constants: Map<string, string> }> {
  const { opts } = args;
  const answers = await layoutWithQuestions({
    ctx: args.ctx,
    input: args.input,
    kind: 'orders',
    header: args.header,
    delimiter: args.delimiter,
    fields: ORDER_QUESTIONS,
    aliases: ORDER_ALIASES,
    maps: args.maps,
    sets: args.constants,
    mapFileInUse: args.mapFile !== undefined,
    layout: (m, c) => importLayout(args.name, args.header, new Map(m), args.mapFile, args.delimiter, c),
    reuse: (how) =>
      'mapFile' in how
        ? args.command({ ...opts, map: [], set: [], preset: undefined, mapFile: how.mapFile })
        : args.command({ ...opts, map: [...(opts.map ?? []), ...how.map], set: [...(opts.set ?? []), ...how.set] }),
  });
  if (answers.asked) {
    opts.map = [...answers.maps].map(([f, c]) => `${f}=${c}`);
    const given = new Set((opts.set ?? []).map((s) => s.slice(0, s.indexOf('=')).trim()));
    for (const [f, v] of answers.sets) if (!args.constants.has(f) && !given.has(f)) opts.set = [...(opts.set ?? []), `${f}=${v}`];
  }
  return { layout: answers.layout, maps: answers.maps, constants: answers.sets };
}

/** The ignored columns' warning, unless the mapping expects them. */
export function warnIgnored(ctx: Context, layout: ColumnLayout, mapFile: MapFile | undefined): void {
  if (layout.ignored.length === 0 || mapFile?.ignoreUnmapped) return;
  ctx.log.warn(
    `ignoring column${layout.ignored.length > 1 ? 's' : ''} ${layout.ignored.map((c) => JSON.stringify(c)).join(', ')} (not order fields)`,
  );
}

/**
 * `mapping (preset shopify):` then `  order_id ← Name` lines (`  currency = EUR` for a constant),
 * how dates are read and in which zone, for --dry-run on stderr.
 */
export function describeMapping(
  layout: ColumnLayout,
  mapFile: MapFile | undefined,
  dateOrder: DateOrder | undefined,
  dates?: DateReading,
): string {
  const lines = [`mapping${mapFile ? ` (${mapFile.origin})` : ''}:`];
  if (mapFile?.variant && !mapFile.variant.name.startsWith('default'))
    lines.push(`  variant ${mapFile.variant.name}: ${mapFile.variant.label}`);
  for (const s of layout.sources)
    lines.push(s.value !== undefined ? `  ${s.field} = ${s.value}` : `  ${s.field} ← ${s.columns.join(', else ')}`);
  if (dates?.format) lines.push(`  dates read as ${JSON.stringify(dates.format.pattern)}`);
  if (dateOrder) lines.push(`  numeric dates read as ${dateOrder}`);
  lines.push(`  times without an offset read in ${dates?.zone?.name ?? 'UTC'} (--timezone)`);
  if (layout.ignored.length > 0) lines.push(`  ${layout.ignored.length} column(s) ignored`);
  return lines.join('\n');
}

/** The mapping as --dry-run --json gives it: field → columns (or value), date format, zone. */
export function mappingJson(layout: ColumnLayout, mapFile: MapFile | undefined, dates: DateReading | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const s of layout.sources) fields[s.field] = s.value !== undefined ? { value: s.value } : { columns: s.columns };
  return {
    ...(mapFile ? { from: mapFile.origin } : {}),
    ...(presetJson(mapFile) ? { preset: presetJson(mapFile) } : {}),
    fields,
    ...(dates?.format ? { date_format: dates.format.pattern } : {}),
    ...(dates?.order ? { date_order: dates.order } : {}),
    timezone: dates?.zone?.name ?? 'UTC',
    ignored: layout.ignored,
  };
}

/** The part of the journal's identity a mapping adds (nothing without one, so older journals still match). */
export function mappingIdentity(
  mapFile: MapFile | undefined,
  dateOrder: DateOrder | undefined,
  dates?: DateReading,
  constants?: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (constants && constants.size > 0) out.set = [...constants].sort(([a], [b]) => a.localeCompare(b));
  if (dates?.format) out.date_format = dates.format.pattern;
  if (dates?.zone && dates.zone.name !== 'UTC') out.timezone = dates.zone.name;
  if (mapFile)
    out.mapping = {
      columns: [...mapFile.columns].sort(([a], [b]) => a.localeCompare(b)),
      country_columns: mapFile.countryColumns,
    };
  if (dateOrder) out.date_order = dateOrder;
  return out;
}

/** The mapping options of the resume command. */
export function mappingResumeArgs(opts: MappingFlags, quote: (s: string) => string): string[] {
  const parts: string[] = [];
  if (opts.preset !== undefined) parts.push('--preset', quote(opts.preset));
  if (opts.mapFile !== undefined) parts.push('--map-file', quote(opts.mapFile));
  if (opts.dateOrder !== undefined) parts.push('--date-order', opts.dateOrder.toUpperCase());
  if (opts.dateFormat !== undefined) parts.push('--date-format', quote(opts.dateFormat));
  if (opts.timezone !== undefined) parts.push('--timezone', quote(opts.timezone));
  for (const s of opts.set ?? []) parts.push('--set', quote(s));
  return parts;
}
