/**
 * Preset families: one file per exporter (`presets/<kind>/<name>.json`) covering its versions and
 * languages. A family is a mapping file (importer/map-file.ts) whose columns list each field's
 * aliases, plus `variants`: the distinguishing columns (`detect`) that tell each version's header,
 * each with its own overrides of the family's keys. A family or a variant may say it `cannot` be
 * imported (no e-mail and no phone in the export). The format: docs/presets.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { columnKey } from '../column-names.js';
import { InputError } from '../errors.js';
import { type MapFile, type MappingSchema, mapFileDoc, parseMapDoc, presetsRoot } from '../map-file.js';

export interface PresetVariant {
  name: string;
  label: string;
  /** The distinguishing columns: all present in a header, the variant matches. */
  detect: string[];
  /** The family merged with the variant's overrides. */
  mapFile: MapFile;
}

export interface PresetFamily {
  name: string;
  description: string;
  /** The family's own keys (what `--preset NAME` applies when no variant matches the header). */
  base: MapFile;
  variants: PresetVariant[];
  /** Where its headers were read (repository: path), for the docs. */
  sources: string[];
}

/**
 * Names every export shares: they tell no exporter from another, so they never count towards
 * recognising one, and a variant's `detect` made only of them is refused.
 */
export const GENERIC_COLUMNS: ReadonlySet<string> = new Set(
  [
    'order_id',
    'order_number',
    'id',
    'order',
    'order_total',
    'total',
    'email',
    'e_mail',
    'phone',
    'date',
    'order_date',
    'currency',
    'status',
    'name',
    'sku',
    'quantity',
    'price',
  ].map(columnKey),
);

/** The keys a variant may override; anything else in a variant is refused. */
const VARIANT_KEYS = new Set([
  'name',
  'label',
  'detect',
  'columns',
  'optional_columns',
  'country_columns',
  'line_items_column',
  'numbered_items',
  'date_format',
  'date_order',
  'timezone',
  'delimiter',
  'set',
  'currency_from_symbol',
  'summary_rows',
  'footer_pattern',
  'cannot',
]);

function isNameList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s.trim() !== '');
}

/** A family from its file's text; `name` is the file's name. Errors name the preset and the key. */
export function parseFamily(text: string, name: string, schema: MappingSchema): PresetFamily {
  const origin = `preset ${name}`;
  const doc = mapFileDoc(text, origin);
  const fail = (message: string): never => {
    throw new InputError(`${origin}: ${message}`);
  };
  const { variants: rawVariants, sources: rawSources, ...familyDoc } = doc;
  const base = parseMapDoc(familyDoc, origin, schema, true);
  base.name = name;
  const sources =
    rawSources === undefined ? [] : isNameList(rawSources) ? rawSources : fail('"sources" must list where the header was read');
  if (rawVariants !== undefined && !Array.isArray(rawVariants)) fail('"variants" must be a list');
  const family = { name, origin, schema, doc: familyDoc, fail };
  const variants = ((rawVariants as unknown[]) ?? []).map((raw, i) => readVariant(raw, i, family));
  // The older single form: `"detect": { "header_includes": [...] }` is one unnamed variant.
  for (const [i, list] of (base.detect ?? []).entries()) {
    if (list.every((c) => GENERIC_COLUMNS.has(columnKey(c)))) fail(`"detect" lists only names every export shares`);
    const vName = i === 0 ? 'default' : `default-${i + 1}`;
    const label = base.description ?? name;
    variants.push({ name: vName, label, detect: list, mapFile: { ...base, variant: { name: vName, label } } });
  }
  return { name, description: base.description ?? name, base, variants, sources };
}

/** The family a variant is read in: its name, its document (less variants and sources), its error. */
interface FamilyContext {
  name: string;
  origin: string;
  schema: MappingSchema;
  doc: Record<string, unknown>;
  fail: (message: string) => never;
}

/** `variants[i]`: a name, a label, the columns that tell the export, and keys that override the family's. */
function readVariant(raw: unknown, i: number, family: FamilyContext): PresetVariant {
  const { name, origin, schema, fail } = family;
  const v = raw as Record<string, unknown> | null;
  const at = `"variants[${i}]"`;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`${at} must be an object`);
  const r = v as Record<string, unknown>;
  for (const key of Object.keys(r)) if (!VARIANT_KEYS.has(key)) fail(`${at} has an unknown key ${JSON.stringify(key)}`);
  if (typeof r.name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/.test(r.name)) fail(`${at}.name must be a short lower-case name`);
  if (typeof r.label !== 'string' || r.label.trim() === '') fail(`${at}.label must say which export it is`);
  if (!isNameList(r.detect)) fail(`${at}.detect must list the columns that tell this export`);
  const detect = r.detect as string[];
  if (detect.every((c) => GENERIC_COLUMNS.has(columnKey(c))))
    fail(`${at}.detect lists only names every export shares (${detect.join(', ')}): add a column only this export writes`);
  const { name: vName, label, detect: _d, ...overrides } = r;
  const mapFile = parseMapDoc(variantDoc(family.doc, overrides), `${origin} (variant ${vName as string})`, schema, true);
  mapFile.name = name;
  mapFile.origin = origin;
  mapFile.variant = { name: vName as string, label: label as string };
  return { name: vName as string, label: label as string, detect, mapFile };
}

/** The family's document with a variant's keys laid over it (its columns added to the family's). */
function variantDoc(familyDoc: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const { columns, ...rest } = overrides;
  const merged: Record<string, unknown> = { ...familyDoc, ...rest };
  if (columns !== undefined) merged.columns = { ...((familyDoc.columns as object | undefined) ?? {}), ...(columns as object) };
  // `"line_items_column": null`: this variant has no packed cell (SkyVerge's one-row-per-item formats).
  if (rest.line_items_column === null) delete merged.line_items_column;
  if (merged.line_items_column !== undefined && rest.numbered_items !== undefined) delete merged.line_items_column;
  if (merged.numbered_items !== undefined && rest.line_items_column !== undefined) delete merged.numbered_items;
  return merged;
}

const cache = new Map<string, PresetFamily[]>();

/** The families of a kind, sorted by name (read once per process). */
export function listFamilies(schema: MappingSchema): PresetFamily[] {
  const root = presetsRoot();
  const dir = root ? join(root, schema.kind) : undefined;
  if (!dir || !existsSync(dir)) return [];
  const known = cache.get(dir);
  if (known) return known;
  const families = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort()
    .map((name) => parseFamily(readFileSync(join(dir, `${name}.json`), 'utf8'), name, schema));
  cache.set(dir, families);
  return families;
}

/** The presets of a kind as mapping files (each family's own keys), sorted by name. */
export function listPresets(schema: MappingSchema): MapFile[] {
  return listFamilies(schema).map((f) => f.base);
}

function presetPath(name: string, schema: MappingSchema): string {
  const root = presetsRoot();
  const path = root && /^[a-z0-9][a-z0-9_-]*$/i.test(name) ? join(root, schema.kind, `${name.toLowerCase()}.json`) : undefined;
  if (path && existsSync(path)) return path;
  const known = listFamilies(schema).map((p) => p.name);
  throw new InputError(
    `no ${schema.kind} preset named ${JSON.stringify(name)}`,
    known.length > 0 ? `known presets: ${known.join(', ')} (or none: columns by name)` : 'no presets are installed',
  );
}

/** A preset's file as shipped (for `presets show`), or an error listing the known ones. */
export function presetText(name: string, schema: MappingSchema): string {
  return readFileSync(presetPath(name, schema), 'utf8');
}

/** A family by name (`--preset woocommerce`), or an error listing the known ones. */
export function loadFamily(name: string, schema: MappingSchema): PresetFamily {
  presetPath(name, schema);
  const family = listFamilies(schema).find((f) => f.name === name.toLowerCase());
  if (!family) throw new InputError(`no ${schema.kind} preset named ${JSON.stringify(name)}`);
  return family;
}

/** A preset by name as a mapping file (its own keys; see recognise.ts for its variant). */
export function loadPreset(name: string, schema: MappingSchema): MapFile {
  return loadFamily(name, schema).base;
}
