/**
 * Line items packed into one cell, as exports with one row per order write them:
 * BigCommerce's `Product Details` (`Product ID: 77, Product Qty: 2, Product SKU: MUG, Product
 * Name: Mug, Product Unit Price: 12.00, Product Total Price: 24.00|Product ID: …`) and the
 * WooCommerce Customer/Order CSV Export's `line_items` (`name:Mug|sku:MUG|quantity:2|total:24.00;…`).
 * A mapping file describes the cell (`line_items_column`); each item becomes one line item.
 */
import type { FieldError } from '../contract/errors.js';
import { parseMoney } from './formats.js';

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

/** A piece that starts a `label: value` pair (a label is a few words, then a colon). */
const LABEL = /^\s*([A-Za-z][\w ()#/-]{0,40}?)\s*:\s?/;

/** The `label: value` pairs of one item; a piece that starts no pair belongs to the value before (a comma in a name). */
function pairs(item: string, separator: string): Map<string, string> {
  const out = new Map<string, string>();
  let last: string | undefined;
  for (const piece of item.split(separator)) {
    const m = LABEL.exec(piece);
    if (m) {
      last = (m[1] as string).trim().toLowerCase();
      out.set(last, piece.slice(m[0].length));
    } else if (last !== undefined) out.set(last, `${out.get(last)}${separator}${piece}`);
  }
  return out;
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
  const label = (f: PackedItemField) => spec.fields[f]?.toLowerCase();
  const items: Array<Record<string, unknown>> = [];
  for (const raw of cell.split(spec.itemSeparator)) {
    if (raw.trim() === '') continue;
    const at = `line_items[${items.length}]`;
    const kv = pairs(raw, spec.fieldSeparator);
    const get = (f: PackedItemField) => {
      const l = label(f);
      const v = l === undefined ? undefined : kv.get(l)?.trim();
      return v === '' ? undefined : v;
    };
    const item: Record<string, unknown> = {};
    const sku = get('sku');
    if (sku !== undefined) item.sku = sku;
    const name = get('name');
    if (name !== undefined) item.name = name;
    const quantity = get('quantity');
    if (quantity !== undefined) item.quantity = /^\d+$/.test(quantity) ? Number(quantity) : quantity;
    const price = get('price');
    const total = get('total');
    if (price !== undefined) {
      const p = parseMoney(price, delimiter, currency);
      if (p instanceof Error) errors.push({ field: `${at}.price`, message: p.message });
      else item.price = p;
    } else if (total !== undefined && typeof item.quantity === 'number' && item.quantity >= 1) {
      const t = parseMoney(total, delimiter, currency);
      const p = t instanceof Error ? t : unitPrice(t, item.quantity);
      if (p instanceof Error) errors.push({ field: `${at}.price`, message: p.message });
      else item.price = p;
    }
    items.push(item);
  }
  return items;
}
