import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/contract/errors.js';
import { parseMapFile } from '../../src/importer/map-file.js';
import { ORDER_MAPPING_SCHEMA } from '../../src/importer/mapping.js';
import { type PackedItemsSpec, readPackedItems } from '../../src/importer/packed-items.js';

const BIGCOMMERCE: PackedItemsSpec = {
  column: 'Product Details',
  itemSeparator: '|',
  fieldSeparator: ',',
  fields: { quantity: 'Product Qty', sku: 'Product SKU', name: 'Product Name', price: 'Product Unit Price' },
};
const WOO: PackedItemsSpec = {
  column: 'line_items',
  itemSeparator: ';',
  fieldSeparator: '|',
  fields: { name: 'name', sku: 'sku', quantity: 'quantity', total: 'total' },
};

describe('line items packed in one cell', () => {
  it("BigCommerce's Product Details: items split at |, a comma inside a name kept", () => {
    const errors: FieldError[] = [];
    const cell =
      'Product ID: 77, Product Qty: 2, Product SKU: MUG-BLUE, Product Name: Ceramic Mug, Blue, Product Weight: 0.5000, Product Variation Details: , Product Unit Price: 12.00, Product Total Price: 24.00|Product ID: 78, Product Qty: 1, Product SKU: TEA, Product Name: Tea, Product Unit Price: $25.00, Product Total Price: 25.00';
    expect(readPackedItems(cell, BIGCOMMERCE, ',', 'USD', errors)).toEqual([
      { sku: 'MUG-BLUE', name: 'Ceramic Mug, Blue', quantity: 2, price: '12.00' },
      { sku: 'TEA', name: 'Tea', quantity: 1, price: '25.00' },
    ]);
    expect(errors).toEqual([]);
    expect(readPackedItems('', BIGCOMMERCE, ',', 'USD', errors)).toEqual([]);
  });

  it("WooCommerce's line_items: the unit price is the line total over the quantity, exactly, or an error naming the item", () => {
    const errors: FieldError[] = [];
    const cell = 'name:Mug|product_id:12|sku:MUG|quantity:3|total:36.30|refunded:0|meta:;name:Pen|sku:PEN|quantity:3|total:10.00|meta:';
    expect(readPackedItems(cell, WOO, ',', 'EUR', errors)).toEqual([
      { name: 'Mug', sku: 'MUG', quantity: 3, price: '12.10' },
      { name: 'Pen', sku: 'PEN', quantity: 3 },
    ]);
    expect(errors).toEqual([{ field: 'line_items[1].price', message: 'the line total 10.00 is not 3 times a price in whole minor units' }]);
  });

  it('mapping files: line_items_column, set, date_format, timezone, optional_columns, several detect lists; mistakes named', () => {
    const m = parseMapFile(
      JSON.stringify({
        kind: 'orders',
        columns: { order_id: 'Order ID', phone: 'Phone' },
        optional_columns: ['phone'],
        set: { currency: 'EUR' },
        date_format: 'DD/MM/YYYY',
        timezone: 'Europe/Berlin',
        currency_from_symbol: true,
        line_items_column: {
          column: 'Product Details',
          item_separator: '|',
          field_separator: ',',
          fields: { quantity: 'Product Qty', price: 'Product Unit Price' },
        },
        detect: [{ header_includes: ['A'] }, { header_includes: ['B', 'C'] }],
      }),
      'my.json',
      ORDER_MAPPING_SCHEMA,
    );
    expect(m).toMatchObject({
      set: new Map([['currency', 'EUR']]),
      dateFormat: 'DD/MM/YYYY',
      timezone: 'Europe/Berlin',
      currencyFromSymbol: true,
      optional: new Set(['phone']),
      detect: [['A'], ['B', 'C']],
      packedItems: {
        column: 'Product Details',
        itemSeparator: '|',
        fieldSeparator: ',',
        fields: { quantity: 'Product Qty', price: 'Product Unit Price' },
      },
    });
    const bad = (extra: Record<string, unknown>) => () =>
      parseMapFile(JSON.stringify({ kind: 'orders', columns: { order_id: 'x' }, ...extra }), 'my.json', ORDER_MAPPING_SCHEMA);
    expect(bad({ set: { order_id: '1' } })).toThrow(/my.json: "set" cannot give the field "order_id"/);
    expect(bad({ set: { currency: '' } })).toThrow(/"set.currency" must be a non-empty string/);
    expect(bad({ optional_columns: ['phone'] })).toThrow(/"optional_columns" names "phone", which "columns" does not map/);
    expect(bad({ line_items_column: { column: 'P', item_separator: '|', field_separator: ',', fields: { colour: 'C' } } })).toThrow(
      /"line_items_column.fields" names an unknown item field "colour"/,
    );
  });
});

/** The reading before the label scan (a lazy regular expression per piece): the reference below. */
const OLD_LABEL = /^\s*([A-Za-z][\w ()#/-]{0,40}?)\s*:\s?/;
function oldPairs(item: string, separator: string): Map<string, string> {
  const out = new Map<string, string>();
  let last: string | undefined;
  for (const piece of item.split(separator)) {
    const m = OLD_LABEL.exec(piece);
    if (m) {
      last = (m[1] as string).trim().toLowerCase();
      out.set(last, piece.slice(m[0].length));
    } else if (last !== undefined) out.set(last, `${out.get(last)}${separator}${piece}`);
  }
  return out;
}
/** What each item's fields read as under the old reading (the price/total arithmetic is the same code). */
function oldItems(cell: string, spec: PackedItemsSpec): Array<Record<string, string>> {
  if (cell.trim() === '') return [];
  const out: Array<Record<string, string>> = [];
  for (const raw of cell.split(spec.itemSeparator)) {
    if (raw.trim() === '') continue;
    const kv = oldPairs(raw, spec.fieldSeparator);
    const item: Record<string, string> = {};
    for (const f of ['sku', 'name', 'quantity', 'price', 'total'] as const) {
      const l = spec.fields[f]?.toLowerCase();
      const v = l === undefined ? undefined : kv.get(l)?.trim();
      if (v !== undefined && v !== '') item[f] = v;
    }
    out.push(item);
  }
  return out;
}

describe('the label scan of packed items', () => {
  it('reads every cell as the lazy regular expression it replaced did (random labels, spaces, colons, separators)', () => {
    const piece = fc
      .array(
        fc.constantFrom(
          'Product',
          ' ',
          'Qty',
          'a',
          'Z9',
          ':',
          ': ',
          ' : ',
          '\u00a0',
          '\t',
          '(x)',
          '#',
          '/',
          '-',
          '_',
          '1',
          'é',
          '.',
          ',',
          '|',
          ';',
          'x'.repeat(38),
        ),
        { maxLength: 8 },
      )
      .map((parts) => parts.join(''));
    const labels = fc.constantFrom('Product Qty', 'product qty', 'SKU', 'Name', 'price', 'total', 'a', 'Product Unit Price', 'qty');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            piece,
            fc.tuple(labels, fc.constantFrom(':', ': ', ' :', '\u00a0: ', ':\t'), piece).map((t) => t.join('')),
          ),
          {
            maxLength: 12,
          },
        ),
        fc.constantFrom([',', '|'], ['|', ';'], [', ', '||']),
        fc.record({
          sku: fc.constantFrom('SKU', 'sku', undefined),
          name: fc.constantFrom('Name', 'a', undefined),
          quantity: fc.constantFrom('Product Qty', 'qty', 'Name'),
          price: fc.constantFrom('Product Unit Price', 'price', undefined),
          total: fc.constantFrom('total', 'price', undefined),
        }),
        (pieces, [fieldSeparator, itemSeparator], fields) => {
          const spec: PackedItemsSpec = { column: 'c', itemSeparator, fieldSeparator, fields: fields as PackedItemsSpec['fields'] };
          const cell = pieces.join(fieldSeparator);
          const items = readPackedItems(cell, spec, '.', 'USD', []);
          const expected = oldItems(cell, spec);
          expect(items.length).toBe(expected.length);
          items.forEach((item, i) => {
            const want = expected[i] as Record<string, string>;
            if (want.sku !== undefined) expect(item.sku).toBe(want.sku);
            else expect(item).not.toHaveProperty('sku');
            if (want.name !== undefined) expect(item.name).toBe(want.name);
            else expect(item).not.toHaveProperty('name');
            if (want.quantity !== undefined)
              expect(item.quantity).toBe(/^\d+$/.test(want.quantity) ? Number(want.quantity) : want.quantity);
            else expect(item).not.toHaveProperty('quantity');
          });
        },
      ),
      { numRuns: 3000 },
    );
  });
});
