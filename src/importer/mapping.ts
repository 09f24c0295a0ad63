/**
 * From CSV cells to an order body: which column holds which field (by name, or `--map
 * field=Column`), and how each cell is read (booleans, exact decimals, dates to RFC 3339, phones
 * to E.164). An empty cell means the field is absent. Validation is the shared contract's.
 */

import type { CountryCode } from 'libphonenumber-js/max';
import { InputError } from '../bulk/errors.js';
import type { FieldError } from '../contract/errors.js';
import { isDateOnly, isRfc3339DateTime } from '../contract/formats.js';
import { ORDER_FIELDS, ORDER_REQUIRED_FIELDS, type ValidOrder, validateOrderInput } from '../contract/orders.js';
import type { LineItem } from '../contract/types.js';
import { normalizePhone } from '../util/phone.js';

/** The order fields a CSV column can hold: every field of the contract's order but the line-item list. */
export const CSV_ORDER_FIELDS = ORDER_FIELDS.filter((f): f is Exclude<(typeof ORDER_FIELDS)[number], 'line_items'> => f !== 'line_items');
export const CSV_LINE_ITEM_FIELDS = ['line_item_sku', 'line_item_name', 'line_item_quantity', 'line_item_price'] as const;
type CsvField = (typeof CSV_ORDER_FIELDS)[number] | (typeof CSV_LINE_ITEM_FIELDS)[number];
const ALL_FIELDS: readonly string[] = [...CSV_ORDER_FIELDS, ...CSV_LINE_ITEM_FIELDS];
const REQUIRED_COLUMNS = ORDER_REQUIRED_FIELDS;

export interface ColumnLayout {
  /** Field → column index. */
  index: Partial<Record<CsvField, number>>;
  /** The file has line item columns: consecutive rows of one order_id form one order. */
  hasLineItems: boolean;
  /** Header names that map to no field (ignored; the command warns once). */
  ignored: string[];
}

function normalizeName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Parses `--map field=Column` values into field → column name. */
export function parseMaps(maps: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of maps) {
    const eq = m.indexOf('=');
    const field = eq > 0 ? m.slice(0, eq).trim() : '';
    const column = eq > 0 ? m.slice(eq + 1).trim() : '';
    if (!field || !column)
      throw new InputError(`--map must look like field=Column, got ${JSON.stringify(m)}`, 'e.g. --map order_id="Order Number"');
    if (!ALL_FIELDS.includes(field)) {
      throw new InputError(`--map names an unknown field ${JSON.stringify(field)}`, `fields: ${ALL_FIELDS.join(', ')}`);
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

/** The column a --map names: `#N` by number, else by its exact name (then case-insensitively); a name that several columns have is refused. */
function mappedColumn(header: readonly string[], field: string, column: string): number {
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
  if (matches.length === 0) {
    throw new InputError(
      `--map ${field}=${column}: the file has no column ${JSON.stringify(column)}`,
      `its columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
    );
  }
  if (matches.length > 1) throw ambiguous(header, field, matches);
  return matches[0] as number;
}

/**
 * Finds each field's column: a --map column by its number (`#3`) or its exact name (then
 * case-insensitively), else the column named like the field (case, spaces and dashes ignored).
 * Two columns that could be one field are a usage error unless --map picks one. Missing required
 * columns are a usage error naming the header and the delimiter (the usual cause of a one-column
 * header).
 */
export function resolveColumns(header: readonly string[], maps: Map<string, string>, delimiter: string): ColumnLayout {
  const index: ColumnLayout['index'] = {};
  const used = new Set<number>();
  for (const [field, column] of maps) {
    const i = mappedColumn(header, field, column);
    index[field as CsvField] = i;
    used.add(i);
  }
  const candidates = new Map<string, number[]>();
  header.forEach((h, i) => {
    const name = normalizeName(h);
    if (ALL_FIELDS.includes(name) && index[name as CsvField] === undefined && !used.has(i)) {
      candidates.set(name, [...(candidates.get(name) ?? []), i]);
    }
  });
  for (const [name, columns] of candidates) {
    // Two columns that both read as this field: taking the first silently could import the wrong one.
    if (columns.length > 1) throw ambiguous(header, name, columns);
    index[name as CsvField] = columns[0] as number;
    used.add(columns[0] as number);
  }
  const missing = REQUIRED_COLUMNS.filter((f) => index[f] === undefined);
  if (index.email === undefined && index.phone === undefined) missing.push('email or phone' as never);
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
        : 'name the columns after the fields, or map them: --map order_id="Order Number"',
    );
  }
  const hasLineItems = index.line_item_name !== undefined || index.line_item_price !== undefined || index.line_item_quantity !== undefined;
  const ignored = header.filter((_, i) => !used.has(i));
  return { index, hasLineItems, ignored };
}

const TRUE_WORDS = new Set(['true', 'yes', '1', 'y']);
const FALSE_WORDS = new Set(['false', 'no', '0', 'n']);

/** true/false/yes/no/1/0 (any case); undefined for an empty cell. */
export function parseBoolean(value: string): boolean | undefined | Error {
  const v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return new Error(`must be true/false, yes/no or 1/0, got ${JSON.stringify(value.slice(0, 40))}`);
}

/**
 * A total as written in a spreadsheet: "49.90", " 49.90 ", "49,90" (decimal comma, when the file
 * is not comma-separated and there is no dot), "1,234.50" / "1 234,50" thousands separators.
 * Returns a plain decimal string; exactness is kept by never going through a float.
 */
export function normalizeDecimalText(value: string, delimiter: string): string {
  let v = value.trim().replace(/[\u00a0\u202f ]/g, '');
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(v)) v = v.replace(/,/g, '');
  else if (/^\d{1,3}(\.\d{3})+,\d+$/.test(v)) v = v.replace(/\./g, '').replace(',', '.');
  else if (delimiter !== ',' && /^\d+,\d+$/.test(v)) v = v.replace(',', '.');
  return v;
}

const NAIVE_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(:\d{2}(\.\d{1,9})?)?$/;
const OFFSET_NO_COLON = /^(.*[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)([+-]\d{2})(\d{2})$/;

/**
 * An order date to RFC 3339: a date alone stays `YYYY-MM-DD` (the service takes it as midnight
 * UTC); a date-time without offset is taken as UTC; `+0200` becomes `+02:00`; a space between
 * date and time becomes `T`. Day-first or month-first dates (03/04/2024) are ambiguous: refused.
 */
export function normalizeOrderDate(value: string): string | Error {
  let v = value.trim();
  if (isDateOnly(v)) return v;
  const noColon = OFFSET_NO_COLON.exec(v);
  if (noColon) v = `${noColon[1]}${noColon[4]}:${noColon[5]}`;
  const naive = NAIVE_DATE_TIME.exec(v);
  if (naive) v = `${naive[1]}T${naive[2]}${naive[3] ?? ':00'}Z`;
  v = v.replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  if (isRfc3339DateTime(v)) return v;
  return new Error(
    `must be a date YYYY-MM-DD or an RFC 3339 date-time such as 2024-03-01T14:30:00+01:00, got ${JSON.stringify(value.slice(0, 40))}`,
  );
}

export interface MappingOptions {
  delimiter: string;
  defaultCountry?: CountryCode;
  initialSync: boolean;
}

/** The order-level fields of a row, before validation; errors name the field. */
export function readOrderFields(
  cells: readonly string[],
  layout: ColumnLayout,
  opts: MappingOptions,
): { body: Record<string, unknown>; errors: FieldError[] } {
  const body: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const cell = (f: CsvField) => {
    const i = layout.index[f];
    if (i === undefined) return undefined;
    const v = cells[i];
    return v === undefined || v.trim() === '' ? undefined : v;
  };
  const orderId = cell('order_id');
  if (orderId !== undefined) body.order_id = orderId.trim();
  const total = cell('total');
  if (total !== undefined) body.total = normalizeDecimalText(total, opts.delimiter);
  const currency = cell('currency');
  if (currency !== undefined) body.currency = currency.trim();
  const date = cell('order_date');
  if (date !== undefined) {
    const d = normalizeOrderDate(date);
    if (d instanceof Error) errors.push({ field: 'order_date', message: d.message });
    else body.order_date = d;
  }
  const email = cell('email');
  if (email !== undefined) body.email = email.trim();
  const phone = cell('phone');
  if (phone !== undefined) {
    const p = normalizePhone(phone, opts.defaultCountry);
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

/** The line item on a row, or undefined when its line item cells are all empty. */
export function readLineItem(cells: readonly string[], layout: ColumnLayout, delimiter: string): Record<string, unknown> | undefined {
  const get = (f: (typeof CSV_LINE_ITEM_FIELDS)[number]) => {
    const i = layout.index[f];
    const v = i === undefined ? undefined : cells[i];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const sku = get('line_item_sku');
  const name = get('line_item_name');
  const quantity = get('line_item_quantity');
  const price = get('line_item_price');
  if (sku === undefined && name === undefined && quantity === undefined && price === undefined) return undefined;
  const item: Record<string, unknown> = {};
  if (sku !== undefined) item.sku = sku;
  if (name !== undefined) item.name = name;
  if (quantity !== undefined) item.quantity = /^\d+$/.test(quantity) ? Number(quantity) : quantity;
  if (price !== undefined) item.price = normalizeDecimalText(price, delimiter);
  return item;
}

/** One row (or group of rows with line items) as a validated order, or the problems found. */
export function buildOrder(
  fields: { body: Record<string, unknown>; errors: FieldError[] },
  items: Array<Record<string, unknown>> | undefined,
): { ok: true; order: ValidOrder } | { ok: false; errors: FieldError[] } {
  const body = items && items.length > 0 ? { ...fields.body, line_items: items as unknown as LineItem[] } : fields.body;
  const checked = validateOrderInput(body);
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
