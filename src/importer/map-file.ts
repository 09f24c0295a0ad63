/**
 * Mapping files: which column holds which field, plus the options a mapping needs (date order,
 * delimiter, default country). A user's `--map-file FILE` and a shipped preset
 * (`presets/<kind>/<name>.json`) are the same format. Kind-agnostic: the caller gives the kind
 * and its field list (orders, contacts). Errors name the file and the key (InputError, exit 2).
 *
 * ```json
 * { "kind": "orders", "name": "shopify", "description": "…",
 *   "columns": { "order_id": "Name", "phone": ["Phone", "Billing Phone"] },
 *   "country_columns": ["Billing Country"], "date_order": "MDY", "delimiter": ",",
 *   "default_country": "US", "ignore_unmapped": true,
 *   "detect": { "header_includes": ["Name", "Lineitem name"] } }
 * ```
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CountryCode } from 'libphonenumber-js/max';
import { InputError } from '../bulk/errors.js';
import { normalizeCountry } from '../contract/phone.js';
import { formatLimit, ReadLimitError, readFileCapped } from '../util/read-capped.js';
import type { DateOrder } from './formats.js';
import { parseDelimiter } from './sniff.js';

/** What a caller checks a mapping file against: its kind and the fields a column can fill. */
export interface MappingSchema {
  kind: string;
  fields: readonly string[];
}

export interface MapFile {
  kind: string;
  name?: string;
  description?: string;
  /** Field → column names, first choice first (a later one is read when the earlier cell is empty or the column missing). */
  columns: Map<string, string[]>;
  /** Columns holding an ISO country code, for local phone numbers (before --default-country). */
  countryColumns: string[];
  dateOrder?: DateOrder;
  delimiter?: string;
  defaultCountry?: CountryCode;
  /** Columns no field reads are expected: no warning. */
  ignoreUnmapped: boolean;
  /** Header names that together identify a known export (presets). */
  detect?: string[];
  /** Where it came from, for messages: `preset shopify` or the file's path. */
  origin: string;
}

const KEYS = [
  'kind',
  'name',
  'description',
  'columns',
  'country_columns',
  'date_order',
  'delimiter',
  'default_country',
  'ignore_unmapped',
  'detect',
] as const;

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s.trim() !== '');
}

/** Parses and checks a mapping file's text; `origin` names it in errors. */
export function parseMapFile(text: string, origin: string, schema: MappingSchema): MapFile {
  const fail = (message: string, hint?: string): never => {
    throw new InputError(`${origin}: ${message}`, hint);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return fail(`is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return fail('must be a JSON object');
  const d = doc as Record<string, unknown>;
  for (const key of Object.keys(d)) {
    if (!(KEYS as readonly string[]).includes(key)) fail(`unknown key ${JSON.stringify(key)}`, `known keys: ${KEYS.join(', ')}`);
  }
  if (d.kind !== schema.kind) fail(`"kind" must be ${JSON.stringify(schema.kind)}, got ${JSON.stringify(d.kind)}`);
  for (const key of ['name', 'description'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'string') fail(`"${key}" must be a string`);
  }
  const raw = d.columns;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || Object.keys(raw).length === 0)
    fail('"columns" must be an object of field → column name (or a list of column names)', 'e.g. "columns": { "order_id": "Name" }');
  const columns = new Map<string, string[]>();
  for (const [field, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!schema.fields.includes(field))
      fail(`"columns" names an unknown ${schema.kind} field ${JSON.stringify(field)}`, `fields: ${schema.fields.join(', ')}`);
    if (typeof value === 'string' && value.trim() !== '') columns.set(field, [value]);
    else if (isStringList(value)) columns.set(field, value);
    else fail(`"columns.${field}" must be a column name or a non-empty list of column names`);
  }
  const out: MapFile = { kind: schema.kind, columns, countryColumns: [], ignoreUnmapped: false, origin };
  if (typeof d.name === 'string') out.name = d.name;
  if (typeof d.description === 'string') out.description = d.description;
  if (d.country_columns !== undefined) {
    if (!isStringList(d.country_columns)) fail('"country_columns" must be a non-empty list of column names');
    out.countryColumns = d.country_columns as string[];
  }
  if (d.date_order !== undefined) {
    if (d.date_order !== 'MDY' && d.date_order !== 'DMY') fail(`"date_order" must be "MDY" or "DMY", got ${JSON.stringify(d.date_order)}`);
    out.dateOrder = d.date_order as DateOrder;
  }
  if (d.delimiter !== undefined) {
    if (typeof d.delimiter !== 'string') fail('"delimiter" must be a string such as "," or "tab"');
    try {
      out.delimiter = parseDelimiter(d.delimiter as string);
    } catch (err) {
      fail(`"delimiter": ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (d.default_country !== undefined) {
    const cc = typeof d.default_country === 'string' ? normalizeCountry(d.default_country) : undefined;
    if (!cc) fail(`"default_country" must be an ISO 3166 country code such as US, got ${JSON.stringify(d.default_country)}`);
    out.defaultCountry = cc;
  }
  if (d.ignore_unmapped !== undefined) {
    if (typeof d.ignore_unmapped !== 'boolean') fail('"ignore_unmapped" must be true or false');
    out.ignoreUnmapped = d.ignore_unmapped as boolean;
  }
  if (d.detect !== undefined) {
    const det = d.detect as Record<string, unknown> | null;
    if (typeof det !== 'object' || det === null || Array.isArray(det) || Object.keys(det).some((k) => k !== 'header_includes'))
      fail('"detect" must be { "header_includes": [column, …] }');
    if (!isStringList(det?.header_includes)) fail('"detect.header_includes" must be a non-empty list of column names');
    out.detect = det?.header_includes as string[];
  }
  return out;
}

/** The largest mapping file read: a real one is a few kilobytes; /dev/zero must not fill the memory. */
export const MAP_FILE_LIMIT = 1024 * 1024;

/** Reads a user's mapping file (`--map-file FILE`, at most MAP_FILE_LIMIT bytes). */
export function loadMapFile(path: string, schema: MappingSchema): MapFile {
  let text: string;
  try {
    text = readFileCapped(path, MAP_FILE_LIMIT).toString('utf8');
  } catch (err) {
    if (err instanceof ReadLimitError)
      throw new InputError(`--map-file ${path} is larger than ${formatLimit(MAP_FILE_LIMIT)}: a mapping file is a few kilobytes of JSON`);
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(
      `--map-file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (err as Error).message}`,
    );
  }
  return parseMapFile(text, path, schema);
}

/** This tool's package folder (not a project that happens to have a presets/ folder above an install). */
function isOurPackage(dir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'svc';
  } catch {
    return false;
  }
}

/**
 * The shipped `presets/` folder: the nearest one above this code, which is `src/importer/` in a
 * checkout (tests) and `dist/` or `dist/chunks/` in a build or an installed package.
 */
export function presetsRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'presets');
    if (isOurPackage(dir) && existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** The presets of a kind, by name (file name without `.json`), sorted. */
export function listPresets(schema: MappingSchema): MapFile[] {
  const root = presetsRoot();
  const dir = root ? join(root, schema.kind) : undefined;
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => presetFromFile(join(dir, f), f.slice(0, -5), schema));
}

function presetFromFile(path: string, name: string, schema: MappingSchema): MapFile {
  const preset = parseMapFile(readFileSync(path, 'utf8'), `preset ${name}`, schema);
  preset.name = name;
  return preset;
}

/** A preset's file as shipped (for `presets show`), or an error listing the known ones. */
export function presetText(name: string, schema: MappingSchema): string {
  return readFileSync(presetPath(name, schema), 'utf8');
}

function presetPath(name: string, schema: MappingSchema): string {
  const root = presetsRoot();
  const path = root && /^[a-z0-9][a-z0-9_-]*$/i.test(name) ? join(root, schema.kind, `${name.toLowerCase()}.json`) : undefined;
  if (path && existsSync(path)) return path;
  const known = listPresets(schema).map((p) => p.name);
  throw new InputError(
    `no ${schema.kind} preset named ${JSON.stringify(name)}`,
    known.length > 0 ? `known presets: ${known.join(', ')}` : 'no presets are installed',
  );
}

/** Loads a shipped preset by name (`--preset shopify`). */
export function loadPreset(name: string, schema: MappingSchema): MapFile {
  return presetFromFile(presetPath(name, schema), name.toLowerCase(), schema);
}

/** The preset whose `detect.header_includes` columns all appear in the header, if any. */
export function detectPreset(header: readonly string[], schema: MappingSchema): MapFile | undefined {
  const names = new Set(header.map((h) => h.trim().toLowerCase()));
  return listPresets(schema).find((p) => p.detect?.every((c) => names.has(c.trim().toLowerCase())));
}
