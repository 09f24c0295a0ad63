import { describe, expect, it } from 'vitest';
import { ORDER_MAPPING_SCHEMA } from '../../src/importer/mapping.js';
import { readNumberedItems, splitNumberedCell } from '../../src/importer/numbered-items.js';
import { listFamilies, parseFamily } from '../../src/importer/presets/family.js';
import { describePreset, recognise, recognisedMapping } from '../../src/importer/presets/recognise.js';

const family = (name: string, doc: Record<string, unknown>) =>
  parseFamily(JSON.stringify({ kind: 'orders', ...doc }), name, ORDER_MAPPING_SCHEMA);
const which = (header: string[]) => {
  const r = recognise(header, ORDER_MAPPING_SCHEMA);
  return r.kind === 'one' ? `${r.family.name}/${r.variant.name}` : r.kind;
};

describe('preset families', () => {
  it('every shipped preset parses; each variant detects by at least one column no other export shares', () => {
    const families = listFamilies(ORDER_MAPPING_SCHEMA);
    expect(families.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'amazon',
        'etsy',
        'magento',
        'prestashop',
        'square',
        'woocommerce',
        'woocommerce-analytics',
        'woocommerce-webtoffee',
      ]),
    );
    for (const f of families) expect(f.variants.length, f.name).toBeGreaterThan(0);
  });

  it('a detect list made only of names every export shares is refused when the preset loads', () => {
    expect(() =>
      family('x', {
        columns: { order_id: 'order_id' },
        variants: [{ name: 'v', label: 'V', detect: ['order_id', 'order_total', 'email'] }],
      }),
    ).toThrow(/preset x: "variants\[0\]".detect lists only names every export shares/);
    expect(() => family('x', { columns: { order_id: 'a' }, variants: [{ name: 'v', label: 'V', detect: ['a'], colour: 1 }] })).toThrow(
      /unknown key "colour"/,
    );
  });

  it('the variant with most distinguishing columns wins; shared names never count; a tie between families names both', () => {
    expect(which(['order_id', 'order_total', 'email', 'currency', 'order_date'])).toBe('none');
    const a = family('a', { columns: { order_id: 'Ref' }, variants: [{ name: 'one', label: 'A1', detect: ['Ref', 'Colour'] }] });
    const b = family('b', { columns: { order_id: 'Ref' }, variants: [{ name: 'one', label: 'B1', detect: ['Ref', 'Size', 'order_id'] }] });
    const both = recognise(['Ref', 'Colour', 'Size', 'order_id'], ORDER_MAPPING_SCHEMA, [a, b]);
    expect(both.kind).toBe('tie');
    expect(both.kind === 'tie' && both.candidates.map((c) => c.family.name)).toEqual(['a', 'b']);
    const one = recognise(['Ref', 'Colour', 'Size', 'Shade'], ORDER_MAPPING_SCHEMA, [
      a,
      family('c', { columns: { order_id: 'Ref' }, variants: [{ name: 'x', label: 'C', detect: ['Ref', 'Size', 'Shade'] }] }),
    ]);
    expect(one.kind === 'one' && one.family.name).toBe('c');
  });

  it('variants merge their columns over the family; a recognised mapping says so', () => {
    const f = family('w', {
      columns: { order_id: 'No', total: 'Sum' },
      variants: [{ name: 'old', label: 'Old labels', detect: ['Sum', 'Legacy'], columns: { total: 'Amount' } }],
    });
    const v = f.variants[0];
    expect(v?.mapFile.columns.get('total')).toEqual(['Amount']);
    expect(v?.mapFile.columns.get('order_id')).toEqual(['No']);
    const m = recognisedMapping(v as NonNullable<typeof v>);
    expect(describePreset(m)).toBe('preset w (recognised from the header), variant old: Old labels');
  });

  it('real headers: each exporter and version is recognised as itself', () => {
    const woo4 = [
      'Order Number',
      'Order Status',
      'Order Date',
      'Email (Billing)',
      'Phone (Billing)',
      'Item #',
      'Item Name',
      'Quantity (- Refund)',
      'Item Cost',
      'Order Total Amount',
    ];
    expect(which(woo4)).toBe('woocommerce/aoe-3');
    const woo2 = [
      'Order Number',
      'Order Date',
      'Email (Billing)',
      'Item #',
      'SKU',
      'Name',
      'Quantity',
      'Quantity (- Refund)',
      'Item Cost',
      'Order Total Amount',
    ];
    expect(which(woo2)).toBe('woocommerce/aoe-1');
    expect(
      which(['order_id', 'order_number', 'order_number_formatted', 'date', 'order_total', 'billing_email', 'line_items', 'shipping_items']),
    ).toBe('woocommerce-customer-order/default');
    expect(
      which([
        'order_id',
        'order_number',
        'order_date',
        'order_key',
        'order_total',
        'billing_email',
        'coupon_items',
        'line_item_1',
        'line_item_2',
      ]),
    ).toBe('woocommerce-webtoffee/default');
    const grid = [
      'ID',
      'Purchase Point',
      'Purchase Date',
      'Bill-to Name',
      'Ship-to Name',
      'Grand Total (Base)',
      'Grand Total (Purchased)',
      'Status',
    ];
    expect(which(grid)).toBe('magento/grid');
    expect(which([...grid, 'Customer Email'])).toBe('magento/grid-email');
    expect(which(['Sale Date', 'Order ID', 'Buyer User ID', 'Full Name', 'Number of Items', 'Delivery City', 'Order Total'])).toBe(
      'etsy/sold-orders-gb',
    );
  });
});

describe('numbered item columns (WebToffee)', () => {
  const spec = {
    prefix: 'line_item_',
    fieldSeparator: '|',
    keySeparator: ':',
    keys: ['name', 'product_id', 'sku', 'quantity', 'total', 'sub_total'],
    fields: { name: 'name', sku: 'sku', quantity: 'quantity', total: 'total' } as const,
  };

  it('a | or : inside a product name stays in the name; the meta after the known keys is dropped', () => {
    const cell =
      'name:Mug | Blue: large|sku:x|product_id:12|sku:MUG-1|quantity:2|total:24.00|sub_total:24.00|pa_colour:Blue|_reduced_stock:2';
    expect(Object.fromEntries(splitNumberedCell(cell, { ...spec, fields: { ...spec.fields } }) ?? [])).toEqual({
      name: 'Mug | Blue: large|sku:x',
      product_id: '12',
      sku: 'MUG-1',
      quantity: '2',
      total: '24.00',
      sub_total: '24.00',
    });
  });

  it('reads one line item per non-empty cell, the price being the line total over the quantity', () => {
    const errors: { field: string; message: string }[] = [];
    const cells = [
      'A-1',
      'name:Tea: Sampler|product_id:3|sku:TEA|quantity:3|total:75.00|sub_total:75.00',
      'name:Pot|product_id:4|sku:|quantity:1|total:39.90|sub_total:39.90',
      '',
    ];
    expect(readNumberedItems(cells, [1, 2, 3], { ...spec, fields: { ...spec.fields } }, ',', 'EUR', errors)).toEqual([
      { name: 'Tea: Sampler', sku: 'TEA', quantity: 3, price: '25.00' },
      { name: 'Pot', quantity: 1, price: '39.90' },
    ]);
    expect(errors).toEqual([]);
    readNumberedItems(['x', 'Mug|2'], [1], { ...spec, fields: { ...spec.fields } }, ',', 'EUR', errors);
    expect(errors[0]).toMatchObject({ field: 'line_items[0]', message: expect.stringContaining('does not start with "name:"') });
  });
});
