/**
 * Which mapping an `orders import` uses: `--preset NAME` or `--map-file FILE` (the same format),
 * with `--map` on top; the options a mapping may carry (date order, delimiter, default country)
 * unless given on the command line; and the stop, before sending, when a file is a known export
 * imported without its preset.
 */
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { DateOrder } from '../../importer/formats.js';
import { detectPreset, loadMapFile, loadPreset, type MapFile } from '../../importer/map-file.js';
import { type ColumnChoice, type ColumnLayout, ORDER_MAPPING_SCHEMA, resolveColumns } from '../../importer/mapping.js';
import { shellQuote } from '../../io/shell-quote.js';

export interface MappingFlags {
  preset?: string;
  mapFile?: string;
  dateOrder?: string;
}

/** The mapping file of the run (if any) and the date order (flag first, then the file's). */
export function loadImportMapping(opts: MappingFlags): { mapFile?: MapFile; dateOrder?: DateOrder } {
  if (opts.preset !== undefined && opts.mapFile !== undefined)
    throw new UsageError(
      '--preset and --map-file do not go together',
      'a preset is a mapping file: copy it (svc orders presets show NAME) and adapt it',
    );
  const mapFile =
    opts.preset !== undefined
      ? loadPreset(opts.preset, ORDER_MAPPING_SCHEMA)
      : opts.mapFile !== undefined
        ? loadMapFile(opts.mapFile, ORDER_MAPPING_SCHEMA)
        : undefined;
  let dateOrder = mapFile?.dateOrder;
  if (opts.dateOrder !== undefined) {
    const v = opts.dateOrder.trim().toUpperCase();
    if (v !== 'MDY' && v !== 'DMY')
      throw new UsageError(`--date-order must be MDY (03/04/2024 is March 4) or DMY (3 April), got ${JSON.stringify(opts.dateOrder)}`);
    dateOrder = v;
  }
  return { mapFile, dateOrder };
}

/** A mapping file's default country unless --default-country was given. */
export function mappingDefaultCountry(given: CountryCode | undefined, mapFile: MapFile | undefined): CountryCode | undefined {
  return given ?? mapFile?.defaultCountry;
}

/**
 * The column layout of the file: the mapping file's columns, `--map` over them, fields by name for
 * the rest. A known export's header without a mapping stops here (exit 2) with the option to add.
 */
export function importLayout(
  name: string,
  header: readonly string[],
  maps: Map<string, string>,
  mapFile: MapFile | undefined,
  delimiter: string,
): ColumnLayout {
  if (!mapFile && maps.size === 0) {
    const known = detectPreset(header, ORDER_MAPPING_SCHEMA);
    if (known)
      throw new UsageError(
        `${name} has the header of a known export (preset ${known.name}: ${known.description ?? known.name}); its columns are not the order fields`,
        `add --preset ${known.name} to import it as exported: svc orders import ${shellQuote(name)} --preset ${known.name} …  (svc orders presets show ${known.name} prints the mapping)`,
      );
  }
  const choices = new Map<string, string | ColumnChoice>();
  for (const [field, columns] of mapFile?.columns ?? []) choices.set(field, { columns, from: mapFile?.origin ?? '' });
  for (const [field, column] of maps) choices.set(field, column);
  return resolveColumns(header, choices, delimiter, mapFile?.countryColumns);
}

/** The ignored columns' warning, unless the mapping expects them. */
export function warnIgnored(ctx: Context, layout: ColumnLayout, mapFile: MapFile | undefined): void {
  if (layout.ignored.length === 0 || mapFile?.ignoreUnmapped) return;
  ctx.log.warn(
    `ignoring column${layout.ignored.length > 1 ? 's' : ''} ${layout.ignored.map((c) => JSON.stringify(c)).join(', ')} (not order fields)`,
  );
}

/** `mapping (preset shopify):` then `  order_id ← Name` lines, for --dry-run on stderr. */
export function describeMapping(layout: ColumnLayout, mapFile: MapFile | undefined, dateOrder: DateOrder | undefined): string {
  const lines = [`mapping${mapFile ? ` (${mapFile.origin})` : ''}:`];
  for (const s of layout.sources) lines.push(`  ${s.field} ← ${s.columns.join(', else ')}`);
  if (dateOrder) lines.push(`  numeric dates read as ${dateOrder}`);
  if (layout.ignored.length > 0) lines.push(`  ${layout.ignored.length} column(s) ignored`);
  return lines.join('\n');
}

/** The part of the journal's identity a mapping adds (nothing without one, so older journals still match). */
export function mappingIdentity(mapFile: MapFile | undefined, dateOrder: DateOrder | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
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
  return parts;
}
