/**
 * Line items packed into one cell, as exports with one row per order write them:
 * BigCommerce's `Product Details` (`Product ID: 77, Product Qty: 2, Product SKU: MUG, Product
 * Name: Mug, Product Unit Price: 12.00, Product Total Price: 24.00|Product ID: …`) and the
 * WooCommerce Customer/Order CSV Export's `line_items` (`name:Mug|sku:MUG|quantity:2|total:24.00;…`).
 * A mapping file describes the cell (`line_items_column`); each item becomes one line item.
 */
import type { FieldError } from '../contract/errors.js';
import { parseAmount } from './cell-values.js';

/** The item fields a packed cell can give; `total` is the line's total, read as price × quantity. */
export const PACKED_ITEM_FIELDS = ['sku', 'name', 'quantity', 'price', 'total'] as const;
export type PackedItemField = (typeof PACKED_ITEM_FIELDS)[number];

export interface PackedItemsSpec {
  column: string;
  /** Between items (`|` for BigCommerce, `;` for WooCommerce). */
  itemSeparator: string;
  /** Between an item's `label: value` pairs (`,` for BigCommerce, `|` for WooCommerce). */
  fieldSeparator: string;
  /** Item field → the label the export writes (`quantity` ← `Product Qty`). */
  fields: Partial<Record<PackedItemField, string>>;
}

/**
 * The label of a piece that starts a `label: value` pair, or undefined: what stands before the
 * piece's first colon, whitespace around it ignored, when it is a few words (a letter, then at most
 * 40 letters, digits, spaces or `_()#/-`). The same as matching
 * `^\s*([A-Za-z][\w ()#/-]{0,40}?)\s*:` (a label holds no colon, and `trim` drops exactly `\s`),
 * without running a lazy regular expression over every piece of every row.
 */
const LABEL_TEXT = /^[A-Za-z][\w ()#/-]{0,40}$/;
function labelOf(piece: string, colon: number): string | undefined {
  if (colon < 1) return undefined;
  const label = piece.slice(0, colon).trim();
  return LABEL_TEXT.test(label) ? label : undefined;
}

/**
 * The values of the wanted labels (lower-cased) in one item, in the order of `wanted`, untrimmed;
 * a piece that starts no pair belongs to the value before (a comma in a name). A label given
 * twice keeps its last value.
 */
function valuesOf(item: string, separator: string, wanted: readonly (string | undefined)[]): Array<string | undefined> {
  const out: Array<string | undefined> = new Array(wanted.length).fill(undefined);
  // The slot of the last label seen: -1 before any, -2 for a label not wanted.
  let last = -1;
  for (const piece of item.split(separator)) {
    const colon = piece.indexOf(':');
    const label = colon < 0 ? undefined : labelOf(piece, colon);
    if (label !== undefined) {
      last = wanted.indexOf(label.toLowerCase());
      if (last < 0) last = -2;
      else out[last] = piece.slice(colon + 1); // trimmed by the caller
    } else if (last >= 0) out[last] = `${out[last]}${separator}${piece}`;
  }
  return out;
}

/** The packed item fields read, in this order (valuesOf's slots). */
const READ_ORDER = ['sku', 'name', 'quantity', 'price', 'total'] as const;

/**
 * One line item from its values (sku, name, quantity, price, line total; undefined when absent);
 * the unit price is the price, else the line total divided by the quantity. Problems go to
 * `errors` as `line_items[at].price`.
 */
export function itemOf(
  [sku, name, quantity, price, total]: ReadonlyArray<string | undefined>,
  delimiter: string,
  currency: string | undefined,
  errors: FieldError[],
  at: number,
): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  if (sku !== undefined) item.sku = sku;
  if (name !== undefined) item.name = name;
  if (quantity !== undefined) item.quantity = /^\d+$/.test(quantity) ? Number(quantity) : quantity;
  const p = itemPrice(price, total, item.quantity, delimiter, currency);
  if (p instanceof Error) errors.push({ field: `line_items[${at}].price`, message: p.message });
  else if (p !== undefined) item.price = p;
  return item;
}

/** The unit price: the price, else the line total divided by a whole quantity; undefined when neither is there. */
function itemPrice(
  price: string | undefined,
  total: string | undefined,
  quantity: unknown,
  delimiter: string,
  currency: string | undefined,
): string | Error | undefined {
  if (price !== undefined) return parseAmount(price, delimiter, currency);
  if (total === undefined || typeof quantity !== 'number' || quantity < 1) return undefined;
  const t = parseAmount(total, delimiter, currency);
  return t instanceof Error ? t : unitPrice(t, quantity);
}

/** A line total divided by the quantity, exactly (never through a float), or an Error. */
function unitPrice(total: string, quantity: number): string | Error {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(total);
  if (!m) return new Error(`${JSON.stringify(total)} is no amount`);
  const scale = (m[3] ?? '').length;
  const minor = BigInt(`${m[2]}${m[3] ?? ''}`);
  const q = BigInt(quantity);
  if (minor % q !== 0n) return new Error(`the line total ${total} is not ${quantity} times a price in whole minor units`);
  const each = (minor / q).toString().padStart(scale + 1, '0');
  return `${m[1]}${scale > 0 ? `${each.slice(0, -scale)}.${each.slice(-scale)}` : each}`;
}

/**
 * The line items of a packed cell (empty cell: none). Problems go to `errors` as
 * `line_items[i].field`, the item's other fields are kept for the contract's own checks.
 */
export function readPackedItems(
  cell: string | undefined,
  spec: PackedItemsSpec,
  delimiter: string,
  currency: string | undefined,
  errors: FieldError[],
): Array<Record<string, unknown>> {
  if (cell === undefined || cell.trim() === '') return [];
  const wanted = READ_ORDER.map((f) => spec.fields[f]?.toLowerCase());
  // Two fields given the same label read the same value (valuesOf fills a label's first slot).
  const slotOf = wanted.map((l) => wanted.indexOf(l));
  const items: Array<Record<string, unknown>> = [];
  for (const raw of cell.split(spec.itemSeparator)) {
    if (raw.trim() === '') continue;
    const at = items.length;
    const values = valuesOf(raw, spec.fieldSeparator, wanted);
    const get = (slot: number) => {
      const v = values[slotOf[slot] as number]?.trim();
      return v === '' ? undefined : v;
    };
    items.push(itemOf([get(0), get(1), get(2), get(3), get(4)], delimiter, currency, errors, at));
  }
  return items;
}
