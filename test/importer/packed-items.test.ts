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
