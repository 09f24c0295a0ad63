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
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CountryCode } from 'libphonenumber-js/max';
import { isPlainObject } from '../contract/field-checks.js';
import { normalizeCountry } from '../contract/phone.js';
import { formatLimit, isAbortError, ReadLimitError, readPathCapped } from '../util/read-capped.js';
import type { DateOrder } from './cell-values.js';
import { parseDelimiter } from './delimiter.js';
import { InputError } from './errors.js';
import { type NumberedItemsSpec, parseNumberedItems } from './numbered-items.js';
import { PACKED_ITEM_FIELDS, type PackedItemsSpec } from './packed-items.js';

/** One field's `"values"`: by `valueKey` of the export's word, the word as written and the service's value. */
export type ValueWords = ReadonlyMap<string, { word: string; value: string }>;

/** What a caller checks a mapping file against: its kind and the fields a column can fill. */
export interface MappingSchema {
  kind: string;
  fields: readonly string[];
  /** The fields `"set"` may give a value (none without it). */
  settable?: readonly string[];
  /** Whether `"line_items_column"` is allowed (orders). */
  packedItems?: boolean;
  /** The fields whose words `"values"` may translate into the service's (contacts' consents). */
  translatable?: readonly string[];
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
  /** Field → the value every row gets, whatever the file holds (`"set"`). */
  set: Map<string, string>;
  /**
   * Field → the export's words for its values → the service's value (`"values"`: Omnisend's
   * `Non-subscribed` is `never_subscribed`). Keys are `valueKey`s: case, spaces and `-`/`_` do not count.
   */
  values: Map<string, ValueWords>;
  /** `--date-format` pattern and `--timezone` zone name, as written (checked by the command). */
  dateFormat?: string;
  timezone?: string;
  /** Line items packed in one cell (`"line_items_column"`). */
  packedItems?: PackedItemsSpec;
  /** Without a currency column, the total's symbol gives the currency when it names one only. */
  currencyFromSymbol: boolean;
  /** A row with no line-item name and no SKU is its order's summary row (eBay): it adds no line item. */
  summaryRows: boolean;
  /** Lines at the end that are not records (`"footer_pattern"`, a regular expression): CsvSource.dropFooter. */
  footerPattern?: RegExp;
  /** Fields whose columns the export may lack (`"optional_columns"`): absent, the field is not read. */
  optional: Set<string>;
  /** Header names that together identify a known export (presets); any one of the lists. */
  detect?: string[][];
  /** Line items in numbered columns, one item per cell (`"numbered_items"`: WebToffee's line_item_1…N). */
  numberedItems?: NumberedItemsSpec;
  /** A preset (or one of its variants) whose export has no e-mail and no phone (`"cannot"`); the remedy, if the exporter has one. */
  cannot?: { remedy?: string };
  /** The variant of a preset family the header matched (presets/; src/importer/presets/family.ts). */
  variant?: { name: string; label: string };
  /** The preset was recognised from the header (not named with --preset). */
  recognised?: boolean;
  /** Where it came from, for messages: `preset shopify` or the file's path. */
  origin: string;
}

/** Keys only a shipped preset may have (src/importer/presets/family.ts reads `variants`). */
const PRESET_KEYS = ['cannot', 'sources', 'variants'] as const;

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s.trim() !== '');
}

/** The text of a mapping file as a JSON object, or an InputError naming `origin`. */
export function mapFileDoc(text: string, origin: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new InputError(`${origin}: is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new InputError(`${origin}: must be a JSON object`);
  return doc as Record<string, unknown>;
}

/** Parses and checks a mapping file's text; `origin` names it in errors. */
export function parseMapFile(text: string, origin: string, schema: MappingSchema): MapFile {
  return parseMapDoc(mapFileDoc(text, origin), origin, schema);
}

/** Refuses a key a mapping file (or, unless `preset`, a user's file) does not have. */
function checkKeys(d: Record<string, unknown>, preset: boolean, fail: Fail): void {
  for (const key of Object.keys(d)) {
    if (KEYS.includes(key) || (preset && (PRESET_KEYS as readonly string[]).includes(key))) continue;
    fail(
      `unknown key ${JSON.stringify(key)}`,
      (PRESET_KEYS as readonly string[]).includes(key) ? `"${key}" is for the presets shipped with svc` : `known keys: ${KEYS.join(', ')}`,
    );
  }
}

type Fail = (message: string, hint?: string) => never;

/** What a key's reader writes into and checks against. */
interface KeyContext {
  out: MapFile;
  schema: MappingSchema;
  fail: Fail;
}

/**
 * Checks a mapping file's object. A preset (`preset`: true) may also say it `cannot` be imported
 * (then `columns` may be absent) and cite its `sources`; its `variants` are read by presets/family.ts.
 */
export function parseMapDoc(d: Record<string, unknown>, origin: string, schema: MappingSchema, preset = false): MapFile {
  const fail: Fail = (message, hint) => {
    throw new InputError(`${origin}: ${message}`, hint);
  };
  checkKeys(d, preset, fail);
  if (d.kind !== schema.kind) fail(`"kind" must be ${JSON.stringify(schema.kind)}, got ${JSON.stringify(d.kind)}`);
  for (const key of ['name', 'description'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'string') fail(`"${key}" must be a string`);
  }
  const cannot = preset ? readCannot(d.cannot, fail) : undefined;
  const out: MapFile = {
    kind: schema.kind,
    columns: readColumns(d.columns, cannot !== undefined, schema, fail),
    countryColumns: [],
    ignoreUnmapped: false,
    origin,
    set: new Map(),
    values: new Map(),
    currencyFromSymbol: false,
    summaryRows: false,
    optional: new Set(),
  };
  if (cannot) out.cannot = cannot;
  if (typeof d.name === 'string') out.name = d.name;
  if (typeof d.description === 'string') out.description = d.description;
  const context: KeyContext = { out, schema, fail };
  for (const [key, read] of KEY_READERS) if (d[key] !== undefined) read(d[key], context, key);
  return out;
}

/** `columns`: field → a column name or a list of them (may be absent or empty when the preset `cannot`). */
function readColumns(value: unknown, cannot: boolean, schema: MappingSchema, fail: Fail): Map<string, string[]> {
  const raw = value ?? (cannot ? {} : undefined);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || (Object.keys(raw).length === 0 && !cannot))
    fail('"columns" must be an object of field → column name (or a list of column names)', 'e.g. "columns": { "order_id": "Name" }');
  const columns = new Map<string, string[]>();
  for (const [field, column] of Object.entries(raw as Record<string, unknown>)) {
    if (!schema.fields.includes(field))
      fail(`"columns" names an unknown ${schema.kind} field ${JSON.stringify(field)}`, `fields: ${schema.fields.join(', ')}`);
    if (typeof column === 'string' && column.trim() !== '') columns.set(field, [column]);
    else if (isStringList(column)) columns.set(field, column);
    else fail(`"columns.${field}" must be a column name or a non-empty list of column names`);
  }
  return columns;
}

/** Checks a key's value (`key` names it in errors) and reads it into the mapping. */
type KeyReader = (value: unknown, c: KeyContext, key: string) => void;

/**
 * How each key beyond kind, name, description and columns is checked and read, in the order they
 * are read: `optional_columns` after `columns`, `numbered_items` after `line_items_column`.
 */
const KEY_READERS: ReadonlyArray<readonly [string, KeyReader]> = [
  [
    'country_columns',
    (v, { out, fail }) => {
      if (!isStringList(v)) fail('"country_columns" must be a non-empty list of column names');
      out.countryColumns = v as string[];
    },
  ],
  [
    'date_order',
    (v, { out, fail }) => {
      if (v !== 'MDY' && v !== 'DMY') fail(`"date_order" must be "MDY" or "DMY", got ${JSON.stringify(v)}`);
      out.dateOrder = v as DateOrder;
    },
  ],
  ['delimiter', readDelimiterKey],
  [
    'default_country',
    (v, { out, fail }) => {
      const cc = typeof v === 'string' ? normalizeCountry(v) : undefined;
      if (!cc) fail(`"default_country" must be an ISO 3166 country code such as US, got ${JSON.stringify(v)}`);
      out.defaultCountry = cc;
    },
  ],
  ['ignore_unmapped', flagInto('ignoreUnmapped')],
  [
    'detect',
    (v, c) => {
      c.out.detect = (Array.isArray(v) ? (v as unknown[]) : [v]).map((entry) => readDetect(entry, c.fail));
    },
  ],
  ['set', readSet],
  ['values', readValues],
  ['date_format', textInto('dateFormat')],
  ['timezone', textInto('timezone')],
  ['optional_columns', readOptionalColumns],
  ['footer_pattern', readFooterPattern],
  ['summary_rows', flagInto('summaryRows')],
  ['currency_from_symbol', flagInto('currencyFromSymbol')],
  ['line_items_column', readPackedItemsKey],
  ['numbered_items', readNumberedItemsKey],
];
/** Every key a mapping file may have (a preset's own: PRESET_KEYS). */
const KEYS: readonly string[] = ['kind', 'name', 'description', 'columns', ...KEY_READERS.map(([key]) => key)];

/** A key that is true or false, read into `prop`. */
function flagInto(prop: 'ignoreUnmapped' | 'summaryRows' | 'currencyFromSymbol'): KeyReader {
  return (v, { out, fail }, key) => {
    if (typeof v !== 'boolean') fail(`"${key}" must be true or false`);
    out[prop] = v as boolean;
  };
}

/** A key that is a non-empty string, read trimmed into `prop`. */
function textInto(prop: 'dateFormat' | 'timezone'): KeyReader {
  return (v, { out, fail }, key) => {
    if (typeof v !== 'string' || v.trim() === '') fail(`"${key}" must be a non-empty string`);
    out[prop] = (v as string).trim();
  };
}

function readDelimiterKey(v: unknown, { out, fail }: KeyContext): void {
  if (typeof v !== 'string') fail('"delimiter" must be a string such as "," or "tab"');
  try {
    out.delimiter = parseDelimiter(v as string);
  } catch (err) {
    fail(`"delimiter": ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One `{ "header_includes": [column, …] }`. */
function readDetect(entry: unknown, fail: Fail): string[] {
  const det = entry as Record<string, unknown> | null;
  if (typeof det !== 'object' || det === null || Array.isArray(det) || Object.keys(det).some((k) => k !== 'header_includes'))
    fail('"detect" must be { "header_includes": [column, …] } or a list of them');
  if (!isStringList(det?.header_includes)) fail('"detect.header_includes" must be a non-empty list of column names');
  return det?.header_includes as string[];
}

/** `"cannot": { "remedy": "…" }` (the remedy optional), or `true`. */
function readCannot(v: unknown, fail: Fail): { remedy?: string } | undefined {
  if (v === undefined) return undefined;
  if (v === true) return {};
  const c = v as Record<string, unknown> | null;
  if (typeof c !== 'object' || c === null || Array.isArray(c) || Object.keys(c).some((k) => k !== 'remedy'))
    return fail('"cannot" must be true or { "remedy": "which export or setting gives an e-mail or phone" }');
  if (c.remedy === undefined) return {};
  if (typeof c.remedy !== 'string' || c.remedy.trim() === '') return fail('"cannot.remedy" must be a non-empty string');
  return { remedy: c.remedy.trim() };
}

/** `set`: field → the value every row gets. */
function readSet(value: unknown, { out, schema, fail }: KeyContext): void {
  const set = value as Record<string, unknown> | null;
  if (typeof set !== 'object' || set === null || Array.isArray(set))
    fail('"set" must be an object of field → value', 'e.g. "set": { "currency": "EUR" }');
  const settable = schema.settable ?? [];
  if (settable.length === 0) fail(`"set" is for orders mapping files (${schema.kind} take their values from columns)`);
  for (const [field, v] of Object.entries(set as Record<string, unknown>)) {
    if (!settable.includes(field))
      fail(`"set" cannot give the field ${JSON.stringify(field)}`, `fields it can give: ${settable.join(', ')}`);
    if (typeof v !== 'string' || v.trim() === '') fail(`"set.${field}" must be a non-empty string`);
    out.set.set(field, (v as string).trim());
  }
}

/** How a cell is looked up in a `"values"` map: `Non-subscribed`, `non subscribed` and `NON_SUBSCRIBED` are one. */
export function valueKey(cell: string): string {
  return cell.toLowerCase().replace(/[\s_-]+/g, '');
}

const VALUES_EXAMPLE = 'e.g. "values": { "email_consent": { "Non-subscribed": "never_subscribed" } }';

/** `values`: field → { the export's word → the service's value }. */
function readValues(value: unknown, { out, schema, fail }: KeyContext): void {
  if (!isPlainObject(value)) fail('"values" must be an object of field → { word in the file → value }', VALUES_EXAMPLE);
  const translatable = schema.translatable ?? [];
  if (translatable.length === 0) fail(`"values" is for contacts mapping files (the consent columns)`);
  for (const [field, words] of Object.entries(value as Record<string, unknown>)) {
    if (!translatable.includes(field))
      fail(`"values" cannot translate the field ${JSON.stringify(field)}`, `fields it can translate: ${translatable.join(', ')}`);
    out.values.set(field, readValueWords(field, words, fail));
  }
}

/** One field's `{ "Non-subscribed": "never_subscribed", … }`, keyed by `valueKey`. */
function readValueWords(field: string, words: unknown, fail: Fail): ValueWords {
  if (!isPlainObject(words) || Object.keys(words).length === 0)
    return fail(`"values.${field}" must be a non-empty object of word → value`, VALUES_EXAMPLE);
  const map = new Map<string, { word: string; value: string }>();
  for (const [word, to] of Object.entries(words)) {
    if (typeof to !== 'string' || to.trim() === '') fail(`"values.${field}.${word}" must be a non-empty string`);
    if (valueKey(word) === '') fail(`"values.${field}" has an empty word`);
    if (map.has(valueKey(word))) fail(`"values.${field}" gives ${JSON.stringify(word)} twice (case, spaces, - and _ do not count)`);
    map.set(valueKey(word), { word, value: (to as string).trim() });
  }
  return map;
}

/** `optional_columns`: fields `columns` maps whose columns an export may lack. */
function readOptionalColumns(v: unknown, { out, fail }: KeyContext): void {
  if (!isStringList(v)) fail('"optional_columns" must be a non-empty list of fields');
  for (const f of v as string[]) {
    if (!out.columns.has(f)) fail(`"optional_columns" names ${JSON.stringify(f)}, which "columns" does not map`);
    out.optional.add(f);
  }
}

function readFooterPattern(v: unknown, { out, fail }: KeyContext): void {
  if (typeof v !== 'string' || v.trim() === '') fail('"footer_pattern" must be a regular expression');
  try {
    out.footerPattern = new RegExp(v as string, 'i');
  } catch (err) {
    fail(`"footer_pattern": ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `line_items_column`: the packed cell's column, separators and item field labels (orders only). */
function readPackedItemsKey(v: unknown, { out, schema, fail }: KeyContext): void {
  if (!schema.packedItems) fail(`"line_items_column" is for orders mapping files`);
  const shape =
    '"line_items_column" must be { "column", "item_separator", "field_separator", "fields": { sku|name|quantity|price|total: label } }';
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(shape);
  const l = v as Record<string, unknown>;
  for (const k of ['column', 'item_separator', 'field_separator'])
    if (typeof l[k] !== 'string' || l[k] === '') fail(`"line_items_column.${k}" must be a non-empty string`);
  const fields = l.fields as Record<string, unknown> | null;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) fail(shape);
  out.packedItems = {
    column: l.column as string,
    itemSeparator: l.item_separator as string,
    fieldSeparator: l.field_separator as string,
    fields: packedItemLabels(fields as Record<string, unknown>, fail),
  };
}

/** `line_items_column.fields`: item field → the label the export writes. */
function packedItemLabels(fields: Record<string, unknown>, fail: Fail): PackedItemsSpec['fields'] {
  const labels: PackedItemsSpec['fields'] = {};
  for (const [f, label] of Object.entries(fields)) {
    if (!(PACKED_ITEM_FIELDS as readonly string[]).includes(f))
      fail(`"line_items_column.fields" names an unknown item field ${JSON.stringify(f)}`, `item fields: ${PACKED_ITEM_FIELDS.join(', ')}`);
    if (typeof label !== 'string' || label.trim() === '') fail(`"line_items_column.fields.${f}" must be the label the export writes`);
    labels[f as keyof PackedItemsSpec['fields']] = label as string;
  }
  return labels;
}

function readNumberedItemsKey(v: unknown, { out, schema, fail }: KeyContext): void {
  if (!schema.packedItems) fail(`"numbered_items" is for orders mapping files`);
  if (out.packedItems) fail('"numbered_items" and "line_items_column" do not go together: an export writes its items one way');
  const spec = parseNumberedItems(v);
  if (spec instanceof Error) fail(`"numbered_items": ${spec.message}`);
  out.numberedItems = spec as NumberedItemsSpec;
}

/** A mapping file's columns as the column resolver takes them (fallbacks, optional fields, where they come from). */
export function mapFileChoices(mapFile: MapFile | undefined): Map<string, { columns: string[]; from: string; optional?: boolean }> {
  const out = new Map<string, { columns: string[]; from: string; optional?: boolean }>();
  for (const [field, columns] of mapFile?.columns ?? [])
    out.set(field, { columns, from: mapFile?.origin ?? '', optional: mapFile?.optional.has(field) });
  return out;
}

/** The largest mapping file read: a real one is a few kilobytes; /dev/zero must not fill the memory. */
export const MAP_FILE_LIMIT = 1024 * 1024;

/**
 * Reads a user's mapping file (`--map-file FILE`, at most MAP_FILE_LIMIT bytes). A FIFO (`<(jq …)`)
 * is read as a stream that `signal` interrupts, so one nobody writes to ends on Ctrl-C.
 */
export async function loadMapFile(path: string, schema: MappingSchema, signal?: AbortSignal): Promise<MapFile> {
  let text: string;
  try {
    text = (await readPathCapped(path, MAP_FILE_LIMIT, signal)).toString('utf8');
  } catch (err) {
    if (isAbortError(err)) throw err;
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
