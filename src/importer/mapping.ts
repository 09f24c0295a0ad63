/**
 * From CSV cells to an order body: which column holds which field (by name, or `--map
 * field=Column`), and how each cell is read (booleans, exact decimals, dates to RFC 3339, phones
 * to E.164). An empty cell means the field is absent. Validation is the shared contract's.
 */

import type { CountryCode } from 'libphonenumber-js/max';
import { InputError } from '../bulk/errors.js';
import type { FieldError } from '../contract/errors.js';
import { ORDER_FIELDS, ORDER_REQUIRED_FIELDS, type ValidOrder, validateOrderInput } from '../contract/orders.js';
import { normalizeCountry, normalizePhone } from '../contract/phone.js';
import type { LineItem } from '../contract/types.js';
import { normalizeName, suggestMaps } from './column-names.js';
import { type DateOrder, normalizeOrderDate, parseBoolean, parseMoney } from './formats.js';

/** The order fields a CSV column can hold: every field of the contract's order but the line-item list. */
export const CSV_ORDER_FIELDS = ORDER_FIELDS.filter((f): f is Exclude<(typeof ORDER_FIELDS)[number], 'line_items'> => f !== 'line_items');
export const CSV_LINE_ITEM_FIELDS = ['line_item_sku', 'line_item_name', 'line_item_quantity', 'line_item_price'] as const;
type CsvField = (typeof CSV_ORDER_FIELDS)[number] | (typeof CSV_LINE_ITEM_FIELDS)[number];
const ALL_FIELDS: readonly string[] = [...CSV_ORDER_FIELDS, ...CSV_LINE_ITEM_FIELDS];
/** What an orders mapping file or preset is checked against (importer/map-file.ts). */
export const ORDER_MAPPING_SCHEMA = { kind: 'orders', fields: ALL_FIELDS } as const;
const REQUIRED_COLUMNS = ORDER_REQUIRED_FIELDS;
/** Words shop exports use for the required order fields (for the `--map` a missing column's message proposes). */
const ORDER_ALIASES: FieldSpec<CsvField>['aliases'] = {
  order_id: ['order', 'number', 'no', 'nr', 'name', 'reference', 'ref'],
  total: ['amount', 'sum', 'grand', 'price', 'value', 'revenue'],
  currency: ['cur', 'ccy', 'iso'],
  order_date: ['date', 'created', 'placed', 'time', 'day'],
  email: ['mail', 'e_mail', 'customer'],
  phone: ['mobile', 'tel', 'telephone', 'cell', 'sms'],
};

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
  /** Each mapped field and the column(s) it reads, in field order (for --dry-run). */
  sources: Array<{ field: string; columns: string[] }>;
}

export interface ColumnLayout extends FieldLayout<CsvField> {
  /** The file has line item columns: consecutive rows of one order_id form one order. */
  hasLineItems: boolean;
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
}

/** Parses `--map field=Column` values into field → column name (`fields`: the kind's; orders' by default). */
export function parseMaps(maps: readonly string[], fields: readonly string[] = ALL_FIELDS): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of maps) {
    const eq = m.indexOf('=');
    const field = eq > 0 ? m.slice(0, eq).trim() : '';
    const column = eq > 0 ? m.slice(eq + 1).trim() : '';
    if (!field || !column)
      throw new InputError(`--map must look like field=Column, got ${JSON.stringify(m)}`, `e.g. --map ${fields[0]}="Column Name"`);
    if (!fields.includes(field)) {
      throw new InputError(`--map names an unknown field ${JSON.stringify(field)}`, `fields: ${fields.join(', ')}`);
    }
    if (out.has(field)) throw new InputError(`--map gives the field ${field} twice`);
    out.set(field, column);
  }
  return out;
}

/** Columns are numbered from 1 for people: `#3` is header[2]. */
function describeColumns(header: readonly string[], columns: number[]): string {
  return columns.map((i) => `${JSON.stringify(header[i])} (column ${i + 1})`).join(', ');
}

function ambiguous(header: readonly string[], field: string, columns: number[]): InputError {
  return new InputError(
    `the CSV header has ${columns.length} columns that could be ${field}: ${describeColumns(header, columns)}`,
    `pick one by its number: --map ${field}=#${(columns[0] as number) + 1}`,
  );
}

/**
 * The column a mapping names: `#N` by number, else by its exact name (then case-insensitively);
 * -1 when there is none. A name that several columns have is refused: the first would be a guess.
 */
function findColumn(header: readonly string[], column: string, field: string): number {
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
  if (matches.length > 1) throw ambiguous(header, field, matches);
  return matches[0] ?? -1;
}

/**
 * Finds each field's column: a mapped column (a plain string is a `--map` column) by its number
 * (`#3`) or its exact name (then case-insensitively; a mapping file's later choices are fallbacks),
 * else the column named like the field (case, spaces and dashes ignored). Two columns that could be
 * one field are a usage error unless a mapping picks one. Missing required columns are a usage
 * error naming the header and the delimiter (the usual cause of a one-column header).
 */
export function resolveColumns(
  header: readonly string[],
  choices: ReadonlyMap<string, string | ColumnChoice>,
  delimiter: string,
  countryColumns: readonly string[] = [],
): ColumnLayout {
  const layout = resolveFieldColumns(header, choices, delimiter, countryColumns, {
    fields: ALL_FIELDS as readonly CsvField[],
    missing(index) {
      const missing: string[] = REQUIRED_COLUMNS.filter((f) => index[f] === undefined);
      if (index.email === undefined && index.phone === undefined) missing.push('email or phone');
      return missing;
    },
    aliases: ORDER_ALIASES,
  });
  const { index } = layout;
  const hasLineItems = index.line_item_name !== undefined || index.line_item_price !== undefined || index.line_item_quantity !== undefined;
  return { ...layout, hasLineItems };
}

/** resolveColumns for any kind of row: the fields and required columns come from `spec`. */
export function resolveFieldColumns<F extends string>(
  header: readonly string[],
  choices: ReadonlyMap<string, string | ColumnChoice>,
  delimiter: string,
  countryColumns: readonly string[],
  spec: FieldSpec<F>,
): FieldLayout<F> {
  const fieldNames: readonly string[] = spec.fields;
  const index: FieldLayout<F>['index'] = {};
  const fallbacks: FieldLayout<F>['fallbacks'] = {};
  const used = new Set<number>();
  for (const [field, given] of choices) {
    const choice = typeof given === 'string' ? { columns: [given], from: '--map' } : given;
    const found = choice.columns.map((c) => findColumn(header, c, field)).filter((i) => i !== -1);
    if (found.length === 0) {
      const what =
        choice.columns.length > 1
          ? `any of the columns ${choice.columns.map((c) => JSON.stringify(c)).join(', ')}`
          : `a column ${JSON.stringify(choice.columns[0])}`;
      throw new InputError(
        `${choice.from === '--map' ? `--map ${field}=${choice.columns[0]}` : `${choice.from}: ${field}`}: the file has no ${what.replace(/^a column/, 'column')}`,
        `its columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
      );
    }
    index[field as F] = found[0];
    if (found.length > 1) fallbacks[field as F] = found.slice(1);
    for (const i of found) used.add(i);
  }
  const candidates = new Map<string, number[]>();
  header.forEach((h, i) => {
    const name = normalizeName(h);
    if (fieldNames.includes(name) && index[name as F] === undefined && !used.has(i)) {
      candidates.set(name, [...(candidates.get(name) ?? []), i]);
    }
  });
  for (const [name, columns] of candidates) {
    // Two columns that both read as this field: taking the first silently could import the wrong one.
    if (columns.length > 1) throw ambiguous(header, name, columns);
    index[name as F] = columns[0] as number;
    used.add(columns[0] as number);
  }
  const countryIndexes = countryColumns.map((c) => findColumn(header, c, '(phone country)')).filter((i) => i !== -1);
  for (const i of countryIndexes) used.add(i);
  const missing = spec.missing(index);
  if (missing.length > 0) {
    const shown =
      header.length === 1
        ? `one column ${JSON.stringify(header[0]?.slice(0, 80))}`
        : `columns ${header.map((h) => JSON.stringify(h)).join(', ')}`;
    const d = delimiter === '\t' ? 'tab' : JSON.stringify(delimiter);
    throw new InputError(
      `the CSV header lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (read ${shown} with delimiter ${d})`,
      header.length === 1
        ? 'is the delimiter right? give it with --delimiter'
        : `name the columns after the fields, or map them: ${suggestMaps(missing, header, used, spec.aliases)}`,
    );
  }
  const ignored = header.filter((_, i) => !used.has(i));
  const sources: ColumnLayout['sources'] = [];
  for (const field of spec.fields) {
    const i = index[field];
    if (i === undefined) continue;
    const more = fallbacks[field] ?? [];
    sources.push({ field, columns: [i, ...more].map((j) => header[j] as string) });
  }
  if (countryIndexes.length > 0) sources.push({ field: '(phone country)', columns: countryIndexes.map((j) => header[j] as string) });
  return { index, fallbacks, countryIndexes, ignored, sources };
}

export interface MappingOptions {
  delimiter: string;
  defaultCountry?: CountryCode;
  /** How numeric day/month dates are read; without it they are refused. */
  dateOrder?: DateOrder;
  initialSync: boolean;
}

/** The row's cell for a field: its first non-empty mapped column, or undefined. */
export function cellOf<F extends string>(cells: readonly string[], layout: FieldLayout<F>, f: F): string | undefined {
  const i = layout.index[f];
  if (i === undefined) return undefined;
  const v = cells[i];
  if (v !== undefined && v.trim() !== '') return v;
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
    const cc = normalizeCountry(cells[j]);
    if (cc) return cc;
  }
  return fallback;
}

/** The order-level fields of a row, before validation; errors name the field. */
export function readOrderFields(
  cells: readonly string[],
  layout: ColumnLayout,
  opts: MappingOptions,
): { body: Record<string, unknown>; errors: FieldError[] } {
  const body: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const cell = (f: CsvField) => cellOf(cells, layout, f);
  const orderId = cell('order_id');
  if (orderId !== undefined) body.order_id = orderId.trim();
  const currency = cell('currency');
  if (currency !== undefined) body.currency = currency.trim();
  const total = cell('total');
  if (total !== undefined) {
    const t = parseMoney(total, opts.delimiter, currency);
    if (t instanceof Error) errors.push({ field: 'total', message: t.message });
    else body.total = t;
  }
  const date = cell('order_date');
  if (date !== undefined) {
    const d = normalizeOrderDate(date, opts.dateOrder);
    if (d instanceof Error) errors.push({ field: 'order_date', message: d.message });
    else body.order_date = d;
  }
  const email = cell('email');
  if (email !== undefined) body.email = email.trim();
  const phone = cell('phone');
  if (phone !== undefined) {
    const local = layout.countryIndexes.length > 0 && !/^\s*(\+|00)/.test(phone);
    const p = normalizePhone(phone, local ? phoneCountry(cells, layout, opts.defaultCountry) : opts.defaultCountry);
    if (p.ok) body.phone = p.e164;
    else errors.push({ field: 'phone', message: p.message });
  }
  for (const f of ['accepts_email_marketing', 'accepts_sms_marketing', 'initial_sync'] as const) {
    const v = cell(f);
    if (v === undefined) continue;
    const b = parseBoolean(v);
    if (b instanceof Error) errors.push({ field: f, message: b.message });
    else if (b !== undefined) body[f] = b;
  }
  if (opts.initialSync) body.initial_sync = true;
  return { body, errors };
}

/**
 * The line item on a row, or undefined when its line item cells are all empty. Its price may carry
 * a currency mark that must agree with the order's `currency`; a mismatch goes to `errors` as
 * `line_items[itemIndex].price`.
 */
export function readLineItem(
  cells: readonly string[],
  layout: ColumnLayout,
  delimiter: string,
  currency?: unknown,
  errors?: FieldError[],
  itemIndex = 0,
): Record<string, unknown> | undefined {
  const get = (f: (typeof CSV_LINE_ITEM_FIELDS)[number]) => cellOf(cells, layout, f)?.trim();
  const sku = get('line_item_sku');
  const name = get('line_item_name');
  const quantity = get('line_item_quantity');
  const price = get('line_item_price');
  if (sku === undefined && name === undefined && quantity === undefined && price === undefined) return undefined;
  const item: Record<string, unknown> = {};
  if (sku !== undefined) item.sku = sku;
  if (name !== undefined) item.name = name;
  if (quantity !== undefined) item.quantity = /^\d+$/.test(quantity) ? Number(quantity) : quantity;
  if (price !== undefined) {
    const p = parseMoney(price, delimiter, typeof currency === 'string' ? currency : undefined);
    if (p instanceof Error) errors?.push({ field: `line_items[${itemIndex}].price`, message: p.message });
    else item.price = p;
  }
  return item;
}

/** One row (or group of rows with line items) as a validated order, or the problems found. */
export function buildOrder(
  fields: { body: Record<string, unknown>; errors: FieldError[] },
  items: Array<Record<string, unknown>> | undefined,
): { ok: true; order: ValidOrder } | { ok: false; errors: FieldError[] } {
  const body = items && items.length > 0 ? { ...fields.body, line_items: items as unknown as LineItem[] } : fields.body;
  const checked = validateOrderInput(body);
  // The usual row: no conversion error, so the contract's answer is the row's (no lists built).
  if (fields.errors.length === 0) return checked.ok ? { ok: true, order: checked.value } : { ok: false, errors: checked.errors };
  // Conversion errors first; skip the contract's complaint about the same field being absent.
  const seen = new Set(fields.errors.map((e) => e.field));
  const redundant = (e: FieldError) =>
    seen.has(e.field) || (e.field === 'email' && e.message.startsWith('one of') && (seen.has('phone') || seen.has('email')));
  const errors = [...fields.errors, ...(checked.ok ? [] : checked.errors.filter((e) => !redundant(e)))];
  if (errors.length > 0) return { ok: false, errors };
  if (!checked.ok) return { ok: false, errors: checked.errors };
  return { ok: true, order: checked.value };
}

/** "total: must be …; phone: …" */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
