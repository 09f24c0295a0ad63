/**
 * From CSV cells to an order body: which column holds which field (by name, or `--map
 * field=Column`), and how each cell is read (booleans, exact decimals, dates to RFC 3339, phones
 * to E.164). An empty cell means the field is absent. Validation is the shared contract's.
 */

import type { CountryCode } from 'libphonenumber-js/max';
import type { FieldError } from '../contract/errors.js';
import { ORDER_FIELDS, ORDER_REQUIRED_FIELDS, type ValidOrder, validateOrderInput } from '../contract/orders.js';
import { normalizePhone } from '../contract/phone.js';
import type { LineItem } from '../contract/types.js';
import { currenciesOfMark, type DateOrder, type DateReading, normalizeOrderDate, parseAmount, parseBoolean } from './cell-values.js';
import { InputError } from './errors.js';
import {
  type ColumnChoice,
  cellOf,
  type FieldLayout,
  type FieldSpec,
  findColumn,
  phoneCountry,
  resolveFieldColumns,
} from './field-columns.js';
import { type NumberedItemsSpec, numberedColumns, readNumberedItems } from './numbered-items.js';
import { itemOf, type PackedItemsSpec, readPackedItems } from './packed-items.js';
import { mayHoldContact, NoContactColumnsError } from './presets/cannot.js';

/** The order fields a CSV column can hold: every field of the contract's order but the line-item list. */
export const CSV_ORDER_FIELDS = ORDER_FIELDS.filter((f): f is Exclude<(typeof ORDER_FIELDS)[number], 'line_items'> => f !== 'line_items');
/** `line_item_total` is the line's total (price × quantity): read when no `line_item_price` is, divided by the quantity. */
export const CSV_LINE_ITEM_FIELDS = [
  'line_item_sku',
  'line_item_name',
  'line_item_quantity',
  'line_item_price',
  'line_item_total',
] as const;
type CsvField = (typeof CSV_ORDER_FIELDS)[number] | (typeof CSV_LINE_ITEM_FIELDS)[number];
const ALL_FIELDS: readonly string[] = [...CSV_ORDER_FIELDS, ...CSV_LINE_ITEM_FIELDS];
/** What an orders mapping file or preset is checked against (importer/map-file.ts); `settable`: what `set` may give. */
export const ORDER_MAPPING_SCHEMA = {
  kind: 'orders',
  fields: ALL_FIELDS,
  settable: CSV_ORDER_FIELDS.filter((f) => f !== 'order_id'),
  packedItems: true,
} as const;
const REQUIRED_COLUMNS = ORDER_REQUIRED_FIELDS;
/** Words shop exports use for the required order fields (for the `--map` a missing column's message proposes). */
export const ORDER_ALIASES: FieldSpec<CsvField>['aliases'] = {
  order_id: ['order', 'number', 'no', 'nr', 'reference', 'ref', 'increment'],
  total: ['amount', 'sum', 'grand', 'price', 'value', 'revenue'],
  currency: ['cur', 'ccy', 'iso'],
  order_date: ['date', 'created', 'placed', 'time', 'day', 'purchase', 'purchased'],
  email: ['mail', 'e_mail'],
  phone: ['mobile', 'tel', 'telephone', 'cell', 'sms'],
};

export interface ColumnLayout extends FieldLayout<CsvField> {
  /** The file has line item columns: consecutive rows of one order_id form one order. */
  hasLineItems: boolean;
  /** Line items packed in one cell of the order's row (BigCommerce's `Product Details`). */
  packed?: { index: number; spec: PackedItemsSpec };
  /** Line items one per numbered column (WebToffee's `line_item_1…N`). */
  numbered?: { indexes: number[]; spec: NumberedItemsSpec };
  /** Without a currency column, a total's unambiguous symbol (`€`, `£`) gives the currency (Magento's grid). */
  currencyFromSymbol?: boolean;
  /** A row with no line-item name and no SKU is its order's summary row (eBay's multi-item orders): no line item. */
  summaryRows?: boolean;
}

/** What a mapping adds to the columns: constants, packed line items, the currency from the total's symbol. */
export interface LayoutExtras {
  constants?: ReadonlyMap<string, string>;
  packed?: PackedItemsSpec;
  numbered?: NumberedItemsSpec;
  currencyFromSymbol?: boolean;
  /** A row with no line-item name and no SKU is its order's summary row (eBay's multi-item orders): no line item. */
  summaryRows?: boolean;
}

export {
  type ColumnChoice,
  cellOf,
  type FieldLayout,
  type FieldSpec,
  phoneCountry,
  resolveFieldColumns,
} from './field-columns.js';

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
  extras: LayoutExtras = {},
): ColumnLayout {
  const packedIndex = extras.packed ? findColumn(header, extras.packed.column, 'line items') : -1;
  if (extras.packed && packedIndex < 0) throw noItemsColumn(header, extras.packed.column);
  const numberedIndexes = extras.numbered ? numberedColumns(header, extras.numbered) : [];
  if (extras.numbered && numberedIndexes.length === 0) throw noItemsColumn(header, `${extras.numbered.prefix}1`);
  const layout = resolveFieldColumns(
    header,
    choices,
    delimiter,
    countryColumns,
    {
      fields: ALL_FIELDS as readonly CsvField[],
      missing: (index) => missingOrderColumns(header, index, extras),
      aliases: ORDER_ALIASES,
    },
    extras.constants,
    packedIndex >= 0 ? [packedIndex] : numberedIndexes,
  );
  const { index } = layout;
  const hasLineItems =
    index.line_item_name !== undefined ||
    index.line_item_price !== undefined ||
    index.line_item_total !== undefined ||
    index.line_item_quantity !== undefined;
  const out: ColumnLayout = { ...layout, hasLineItems };
  if (extras.packed) {
    out.packed = { index: packedIndex, spec: extras.packed };
    out.sources.push({ field: 'line_items', columns: [header[packedIndex] as string] });
  }
  if (extras.numbered) addNumberedItems(out, header, numberedIndexes, extras.numbered);
  if (extras.summaryRows) out.summaryRows = true;
  if (extras.currencyFromSymbol && index.currency === undefined) {
    out.currencyFromSymbol = true;
    out.sources.push({ field: 'currency', columns: [], value: "the total's currency symbol" });
  }
  return out;
}

/** Line items one per numbered column, said in the sources as the first … the last column. */
function addNumberedItems(out: ColumnLayout, header: readonly string[], indexes: number[], spec: NumberedItemsSpec): void {
  out.numbered = { indexes, spec };
  const cols = indexes.map((i) => header[i] as string);
  out.sources.push({ field: 'line_items', columns: cols.length > 2 ? [`${cols[0]} … ${cols[cols.length - 1]}`] : cols });
}

/** The usage error of a line-items column (packed or the first numbered one) the header lacks. */
function noItemsColumn(header: readonly string[], column: string): InputError {
  return new InputError(
    `the file has no column ${JSON.stringify(column)} (the line items)`,
    `its columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`,
  );
}

/** The required order fields no column holds (a currency the total's symbol gives is not missing). */
function missingOrderColumns(header: readonly string[], index: Partial<Record<CsvField, number>>, extras: LayoutExtras): string[] {
  const missing: string[] = REQUIRED_COLUMNS.filter((f) => index[f] === undefined && !(f === 'currency' && extras.currencyFromSymbol));
  if (index.email === undefined && index.phone === undefined) {
    // No column that could hold either: a "cannot" (a file read as one column is a delimiter
    // problem, and a column named otherwise a mapping to give: both said by the list of what is missing).
    if (header.length > 1 && !header.some(mayHoldContact)) throw new NoContactColumnsError();
    missing.push('email or phone');
  }
  return missing;
}

export interface MappingOptions {
  delimiter: string;
  defaultCountry?: CountryCode;
  /** How numeric day/month dates are read; without it they are refused. */
  dateOrder?: DateOrder;
  /** A date pattern and the zone of zone-less times (`--date-format`, `--timezone`); `dateOrder` goes with it. */
  dates?: DateReading;
  initialSync: boolean;
}

/** The yes/no fields of an order row. */
const BOOLEAN_FIELDS = ['accepts_email_marketing', 'accepts_sms_marketing', 'initial_sync'] as const;

/**
 * The order-level fields of a row, before validation; errors name the field. A hot path (every row
 * of a large file): the readers below write into the row's `body` and `errors`, no closure per row.
 */
export function readOrderFields(
  cells: readonly string[],
  layout: ColumnLayout,
  opts: MappingOptions,
): { body: Record<string, unknown>; errors: FieldError[]; items?: Array<Record<string, unknown>> } {
  const body: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  const orderId = cellOf(cells, layout, 'order_id');
  if (orderId !== undefined) body.order_id = orderId.trim();
  const currency = readMoney(cells, layout, opts, body, errors);
  readDate(cellOf(cells, layout, 'order_date'), opts, body, errors);
  const email = cellOf(cells, layout, 'email');
  if (email !== undefined) body.email = email.trim();
  readPhone(cells, layout, opts, body, errors);
  for (const f of BOOLEAN_FIELDS) readBoolean(cellOf(cells, layout, f), f, body, errors);
  if (opts.initialSync) body.initial_sync = true;
  if (layout.packed) {
    const items = readPackedItems(cells[layout.packed.index], layout.packed.spec, opts.delimiter, currency, errors);
    return { body, errors, items };
  }
  if (layout.numbered) {
    const items = readNumberedItems(cells, layout.numbered.indexes, layout.numbered.spec, opts.delimiter, currency, errors);
    return { body, errors, items };
  }
  return { body, errors };
}

/** The row's currency (its column, else the total's symbol) and total into `body`; returns the currency cell. */
function readMoney(
  cells: readonly string[],
  layout: ColumnLayout,
  opts: MappingOptions,
  body: Record<string, unknown>,
  errors: FieldError[],
): string | undefined {
  let currency = cellOf(cells, layout, 'currency');
  const total = cellOf(cells, layout, 'total');
  if (currency === undefined && layout.currencyFromSymbol && total !== undefined) currency = currencyFromTotal(total, errors);
  if (currency !== undefined) body.currency = currency.trim();
  if (total === undefined) return currency;
  const t = parseAmount(total, opts.delimiter, currency);
  if (t instanceof Error) errors.push({ field: 'total', message: t.message });
  else body.total = t;
  return currency;
}

function readDate(date: string | undefined, opts: MappingOptions, body: Record<string, unknown>, errors: FieldError[]): void {
  if (date === undefined) return;
  const d = normalizeOrderDate(date, opts.dates ?? opts.dateOrder);
  if (d instanceof Error) errors.push({ field: 'order_date', message: d.message });
  else body.order_date = d;
}

/** The phone in E.164: a local number (no `+`/`00`) is read in the row's country column's country, else the default. */
function readPhone(
  cells: readonly string[],
  layout: ColumnLayout,
  opts: MappingOptions,
  body: Record<string, unknown>,
  errors: FieldError[],
): void {
  const phone = cellOf(cells, layout, 'phone');
  if (phone === undefined) return;
  const local = layout.countryIndexes.length > 0 && !/^\s*(\+|00)/.test(phone);
  const p = normalizePhone(phone, local ? phoneCountry(cells, layout, opts.defaultCountry) : opts.defaultCountry);
  if (p.ok) body.phone = p.e164;
  else errors.push({ field: 'phone', message: p.message });
}

function readBoolean(
  v: string | undefined,
  field: (typeof BOOLEAN_FIELDS)[number],
  body: Record<string, unknown>,
  errors: FieldError[],
): void {
  if (v === undefined) return;
  const b = parseBoolean(v);
  if (b instanceof Error) errors.push({ field, message: b.message });
  else if (b !== undefined) body[field] = b;
}

/** The currency a total's symbol stands for, when it stands for one only; else an error asking for `--set currency=`. */
function currencyFromTotal(total: string, errors: FieldError[]): string | undefined {
  const means = currenciesOfMark(total);
  if (means?.length === 1) return means[0];
  const shown = JSON.stringify(total.trim().slice(0, 40));
  errors.push({
    field: 'currency',
    message: means
      ? `the file has no currency column and the total ${shown} could be ${means.slice(0, 5).join(', ')}${means.length > 5 ? ', …' : ''}: give it with --set currency=${means[0]}`
      : `the file has no currency column and the total ${shown} names none: give it with --set currency=XXX`,
  });
  return undefined;
}

/**
 * The line item on a row, or undefined when its line item cells are all empty. Its price may carry
 * a currency mark that must agree with the order's `currency`; a mismatch goes to `errors` as
 * `line_items[itemIndex].price`. Without a price, a line total (SkyVerge's `item_total`, `Row
 * Price`) divided by the quantity is the price, exactly or not at all.
 */
export function readLineItem(
  cells: readonly string[],
  layout: ColumnLayout,
  delimiter: string,
  currency?: unknown,
  errors: FieldError[] = [],
  itemIndex = 0,
): Record<string, unknown> | undefined {
  const get = (f: (typeof CSV_LINE_ITEM_FIELDS)[number]) => cellOf(cells, layout, f)?.trim();
  const values = [get('line_item_sku'), get('line_item_name'), get('line_item_quantity'), get('line_item_price'), get('line_item_total')];
  if (values.every((v) => v === undefined)) return undefined;
  // eBay's summary row of a multi-item order: its quantity and price are the items' sums.
  if (layout.summaryRows && values[0] === undefined && values[1] === undefined) return undefined;
  return itemOf(values, delimiter, typeof currency === 'string' ? currency : undefined, errors, itemIndex);
}

/** One row (or group of rows with line items) as a validated order, or the problems found. */
export function buildOrder(
  fields: { body: Record<string, unknown>; errors: FieldError[]; items?: Array<Record<string, unknown>> },
  rowItems: Array<Record<string, unknown>> | undefined,
): { ok: true; order: ValidOrder } | { ok: false; errors: FieldError[] } {
  const items = rowItems ?? fields.items;
  const body = items && items.length > 0 ? { ...fields.body, line_items: items as unknown as LineItem[] } : fields.body;
  const checked = validateOrderInput(body);
  // The usual row: no conversion error, so the contract's answer is the row's (no lists built).
  if (fields.errors.length === 0)
    return checked.ok ? { ok: true, order: checked.value } : { ok: false, errors: saidOfOrder(checked.errors, body) };
  // Conversion errors first; skip the contract's complaint about the same field being absent.
  const seen = new Set(fields.errors.map((e) => e.field));
  const redundant = (e: FieldError) =>
    seen.has(e.field) || (e.field === 'email' && e.message.startsWith('one of') && (seen.has('phone') || seen.has('email')));
  const errors = [...fields.errors, ...(checked.ok ? [] : checked.errors.filter((e) => !redundant(e)))];
  if (errors.length > 0) return { ok: false, errors: saidOfOrder(errors, body) };
  if (!checked.ok) return { ok: false, errors: saidOfOrder(checked.errors, body) };
  return { ok: true, order: checked.value };
}

/** The contract's "one of email or phone is required", said of the order: `order 1001 has no e-mail and no phone`. */
function saidOfOrder(errors: FieldError[], body: Record<string, unknown>): FieldError[] {
  return errors.map((e) =>
    e.field === 'email' && e.message.startsWith('one of email or phone')
      ? {
          field: 'email',
          message: `order ${typeof body.order_id === 'string' ? body.order_id : '(no id)'} has no e-mail and no phone (the service ties each order to a contact by one of them)`,
        }
      : e,
  );
}

/** "total: must be …; phone: …" */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
