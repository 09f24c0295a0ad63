/**
 * Line items in numbered columns, one item per cell: WebToffee's Order Export & Import writes
 * `line_item_1 … line_item_N` (N set by the store's largest order), each cell
 * `name:Mug|product_id:12|sku:MUG|quantity:2|total:24.00|sub_total:24.00` followed by the item's
 * meta. The cells are not escaped: a `|` or `:` inside a product name is written as it is. So a
 * cell is cut only where the exporter's known keys start, in the order it writes them
 * (`"keys"`), never at every separator.
 */
import type { FieldError } from '../contract/errors.js';
import { columnKey } from './column-names.js';
import { itemOf, PACKED_ITEM_FIELDS, type PackedItemField } from './packed-items.js';

export interface NumberedItemsSpec {
  /** The columns are `<prefix>1`, `<prefix>2`, …: as many as the header has. */
  prefix: string;
  /** Between an item's pairs (`|`). */
  fieldSeparator: string;
  /** Between a key and its value (`:`). */
  keySeparator: string;
  /** The keys the exporter writes first in each cell, in its order (WebToffee: name, product_id, sku, …). */
  keys: string[];
  /** Item field → the key holding it (`quantity` ← `quantity`); `total` is the line total. */
  fields: Partial<Record<PackedItemField, string>>;
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

/** Checks a mapping file's `"numbered_items"` object; an Error says what is wrong. */
export function parseNumberedItems(v: unknown): NumberedItemsSpec | Error {
  const shape = new Error(
    'must be { "prefix", "field_separator", "key_separator", "keys": [key, …], "fields": { sku|name|quantity|price|total: key } }',
  );
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return shape;
  const d = v as Record<string, unknown>;
  for (const k of ['prefix', 'field_separator', 'key_separator']) if (!isText(d[k])) return new Error(`"${k}" must be a non-empty string`);
  if (!Array.isArray(d.keys) || d.keys.length === 0 || !d.keys.every(isText))
    return new Error('"keys" must list the keys the export writes, in its order');
  if (typeof d.fields !== 'object' || d.fields === null || Array.isArray(d.fields)) return shape;
  const keys = d.keys as string[];
  const fields: NumberedItemsSpec['fields'] = {};
  for (const [f, key] of Object.entries(d.fields as Record<string, unknown>)) {
    if (!(PACKED_ITEM_FIELDS as readonly string[]).includes(f))
      return new Error(`"fields" names an unknown item field ${JSON.stringify(f)} (item fields: ${PACKED_ITEM_FIELDS.join(', ')})`);
    if (!isText(key) || !keys.includes(key)) return new Error(`"fields.${f}" must be one of "keys"`);
    fields[f as PackedItemField] = key;
  }
  return {
    prefix: d.prefix as string,
    fieldSeparator: d.field_separator as string,
    keySeparator: d.key_separator as string,
    keys,
    fields,
  };
}

/** The numbered columns of a header (`line_item_1`, `line_item_2`, …), in their numbers' order. */
export function numberedColumns(header: readonly string[], spec: NumberedItemsSpec): number[] {
  const prefix = columnKey(spec.prefix);
  const found: Array<[number, number]> = [];
  header.forEach((h, i) => {
    const key = columnKey(h);
    if (!key.startsWith(prefix)) return;
    const n = key.slice(prefix.length);
    if (/^[1-9]\d{0,3}$/.test(n)) found.push([Number(n), i]);
  });
  return found.sort((a, b) => a[0] - b[0]).map(([, i]) => i);
}

/**
 * The values of the known keys in one cell, by key. Each value runs to where the next known key
 * starts (`|product_id:`), else a later one, so separators inside a name stay in it; the last key's
 * value runs to the next separator (what follows is the item's meta). Undefined when the cell does
 * not start with the first key.
 */
export function splitNumberedCell(cell: string, spec: NumberedItemsSpec): Map<string, string> | undefined {
  const { keys, fieldSeparator: sep, keySeparator: kv } = spec;
  const first = `${keys[0]}${kv}`;
  if (!cell.startsWith(first)) return undefined;
  const out = new Map<string, string>();
  let key = 0;
  let start = first.length;
  while (key < keys.length) {
    let end = -1;
    let next = -1;
    for (let j = key + 1; j < keys.length && end < 0; j++) {
      end = cell.indexOf(`${sep}${keys[j]}${kv}`, start);
      if (end >= 0) next = j;
    }
    if (end < 0) {
      const stop = cell.indexOf(sep, start);
      out.set(keys[key] as string, cell.slice(start, stop < 0 ? cell.length : stop));
      break;
    }
    out.set(keys[key] as string, cell.slice(start, end));
    start = end + sep.length + (keys[next] as string).length + kv.length;
    key = next;
  }
  return out;
}

/** The line items of a row's numbered cells (empty cells: none); problems go to `errors` as `line_items[i].field`. */
export function readNumberedItems(
  cells: readonly string[],
  indexes: readonly number[],
  spec: NumberedItemsSpec,
  delimiter: string,
  currency: string | undefined,
  errors: FieldError[],
): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  for (const i of indexes) {
    const cell = cells[i];
    if (cell === undefined || cell.trim() === '') continue;
    const at = items.length;
    const values = splitNumberedCell(cell.trim(), spec);
    if (!values) {
      errors.push({
        field: `line_items[${at}]`,
        message: `the cell does not start with ${JSON.stringify(`${spec.keys[0]}${spec.keySeparator}`)}: ${JSON.stringify(cell.slice(0, 40))}`,
      });
      items.push({});
      continue;
    }
    const get = (f: PackedItemField) => {
      const key = spec.fields[f];
      const v = key === undefined ? undefined : values.get(key)?.trim();
      return v === '' ? undefined : v;
    };
    items.push(itemOf([get('sku'), get('name'), get('quantity'), get('price'), get('total')], delimiter, currency, errors, at));
  }
  return items;
}
