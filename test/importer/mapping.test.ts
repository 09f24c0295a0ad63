import { describe, expect, it } from 'vitest';
import { normalizeDecimalText, normalizeOrderDate, parseBoolean } from '../../src/importer/cell-values.js';
import { buildOrder, parseMaps, readLineItem, readOrderFields, resolveColumns } from '../../src/importer/mapping.js';

const header = ['order_id', 'total', 'currency', 'order_date', 'email', 'phone', 'accepts_email_marketing', 'accepts_sms_marketing'];

describe('mapping', () => {
  it('finds columns by field name (case, spaces and dashes ignored) or by --map', () => {
    const layout = resolveColumns(['Order ID', 'TOTAL', 'currency', 'Order-Date', 'Mail', 'note'], parseMaps(['email=mail']), ',');
    expect(layout.index).toMatchObject({ order_id: 0, total: 1, currency: 2, order_date: 3, email: 4 });
    expect(layout.ignored).toEqual(['note']);
    expect(layout.hasLineItems).toBe(false);
  });

  it('refuses a header missing required columns, naming them and the delimiter', () => {
    expect(() => resolveColumns(['order_id;total;currency'], new Map(), ',')).toThrow(
      /lacks the columns .*one column "order_id;total;currency" with delimiter ","/,
    );
    expect(() => resolveColumns(['order_id', 'total', 'currency', 'order_date'], new Map(), ',')).toThrow(/no e-mail and no phone column/);
    expect(() => parseMaps(['nope=Col'])).toThrow(/unknown field "nope"/);
    expect(() => parseMaps(['total'])).toThrow(/field=Column/);
    // The syntax example names a field of the kind being imported.
    const hintOf = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { hint?: string }).hint;
      }
    };
    expect(hintOf(() => parseMaps(['total']))).toBe('e.g. --map order_id="Column Name"');
    expect(hintOf(() => parseMaps(['email'], ['email', 'phone']))).toBe('e.g. --map email="Column Name"');
    expect(() => resolveColumns(header, parseMaps(['total=Amount']), ',')).toThrow(/no column "Amount"/);
  });

  it('proposes a --map for each missing field, naming that field and the closest unused column', () => {
    const hint = (h: string[]) => {
      try {
        resolveColumns(h, new Map(), ',');
      } catch (e) {
        return (e as { hint?: string }).hint;
      }
      return 'no error';
    };
    const prefix = 'name the columns after the fields, or map them: ';
    const cases: Array<[string[], string]> = [
      // The field that is missing, never an unrelated example (the order_id one used to be shown for a missing total).
      [['order_id', 'Grand Total', 'currency', 'order_date', 'email'], '--map total="Grand Total"'],
      [
        ['Order Number', 'Amount', 'currency', 'Created At', 'email'],
        '--map order_id="Order Number" --map total=Amount --map order_date="Created At"',
      ],
      [['order_id', 'totl', 'currency', 'order_date', 'Customer E-mail'], '--map total=totl --map email="Customer E-mail"'],
      [['order_id', 'total', 'currency', 'order_date', 'Mobile'], '--map phone=Mobile'],
      [['Order Created', 'Order Number', 'total', 'currency', 'email'], '--map order_id="Order Number" --map order_date="Order Created"'],
      // Nothing like it: the field and a placeholder.
      [['order_id', 'currency', 'order_date', 'email', 'Notes'], '--map total="<column>"'],
      // A column another field already reads is not proposed twice; quotes the shell needs are kept.
      [['order_id', 'Sum $', 'currency', 'order_date', 'email'], "--map total='Sum $'"],
    ];
    for (const [header, maps] of cases) expect(hint(header), header.join(',')).toBe(prefix + maps);
  });

  it('reads booleans as true/false/yes/no/1/0 and empty as absent', () => {
    expect(['true', 'YES', '1', ' y '].map(parseBoolean)).toEqual([true, true, true, true]);
    expect(['false', 'No', '0'].map(parseBoolean)).toEqual([false, false, false]);
    expect(parseBoolean('')).toBeUndefined();
    expect(parseBoolean('maybe')).toBeInstanceOf(Error);
  });

  it('keeps totals exact, with decimal commas and thousands separators', () => {
    expect(normalizeDecimalText(' 49.90 ', ',')).toBe('49.90');
    expect(normalizeDecimalText('49,90', ';')).toBe('49.90');
    // In a comma-separated file the cell was quoted: two decimals after a comma are no thousands.
    expect(normalizeDecimalText('49,90', ',')).toBe('49.90');
    expect(normalizeDecimalText('49,900', ',')).toBe('49900');
    expect(normalizeDecimalText('1,234.50', ',')).toBe('1234.50');
    expect(normalizeDecimalText('1.234,50', ';')).toBe('1234.50');
    expect(normalizeDecimalText('1 234,50', ';')).toBe('1234.50');
    const layout = resolveColumns(header, new Map(), ',');
    const built = buildOrder(
      readOrderFields(['A', '0.1', 'EUR', '2024-01-01', 'a@example.com', '', '', ''], layout, { delimiter: ',', initialSync: false }),
      undefined,
    );
    expect(built).toMatchObject({ ok: true, order: { total: '0.10' } });
    const big = buildOrder(
      readOrderFields(['A', '123456789012345.67', 'USD', '2024-01-01', 'a@example.com', '', '', ''], layout, {
        delimiter: ',',
        initialSync: false,
      }),
      undefined,
    );
    expect(big).toMatchObject({ ok: true, order: { total: '123456789012345.67' } });
  });

  it('turns dates into RFC 3339 and refuses ambiguous ones', () => {
    expect(normalizeOrderDate('2024-03-01')).toBe('2024-03-01');
    expect(normalizeOrderDate('2024-03-01 14:30')).toBe('2024-03-01T14:30:00Z');
    expect(normalizeOrderDate('2024-03-01T14:30:05')).toBe('2024-03-01T14:30:05Z');
    expect(normalizeOrderDate('2024-03-01 14:30:05+0200')).toBe('2024-03-01T14:30:05+02:00');
    expect(normalizeOrderDate('2024-03-01T14:30:05.123-05:00')).toBe('2024-03-01T14:30:05.123-05:00');
    expect(normalizeOrderDate('03/04/2024')).toBeInstanceOf(Error);
    expect(normalizeOrderDate('2024-02-30')).toBeInstanceOf(Error);
  });

  it('normalises phones with --default-country and sets initial_sync', () => {
    const layout = resolveColumns(header, new Map(), ',');
    const f = readOrderFields(['A', '1', 'EUR', '2024-01-01', '', '(415) 555-0100', 'yes', 'true'], layout, {
      delimiter: ',',
      defaultCountry: 'US',
      initialSync: true,
    });
    expect(f).toEqual({
      body: {
        order_id: 'A',
        total: '1',
        currency: 'EUR',
        order_date: '2024-01-01',
        phone: '+14155550100',
        accepts_email_marketing: true,
        accepts_sms_marketing: true,
        initial_sync: true,
      },
      errors: [],
    });
    const noCountry = readOrderFields(['A', '1', 'EUR', '2024-01-01', '', '415 555 0100', '', ''], layout, {
      delimiter: ',',
      initialSync: false,
    });
    expect(noCountry.errors[0]).toMatchObject({ field: 'phone', message: expect.stringMatching(/--default-country/) });
    // one error for the bad phone, not a second "one of email or phone"
    expect(buildOrder(noCountry, undefined)).toEqual({ ok: false, errors: [noCountry.errors[0]] });
  });

  it('reads line items and validates them with the order', () => {
    const layout = resolveColumns(
      [...header.slice(0, 5), 'line_item_sku', 'line_item_name', 'line_item_quantity', 'line_item_price'],
      new Map(),
      ',',
    );
    expect(layout.hasLineItems).toBe(true);
    const item = readLineItem(['A', '', '', '', '', 'SKU', 'Mug', '2', '7,50'], layout, ';');
    expect(item).toEqual({ sku: 'SKU', name: 'Mug', quantity: 2, price: '7.50' });
    expect(readLineItem(['A', '', '', '', '', '', '', '', ''], layout, ',')).toBeUndefined();
    const fields = readOrderFields(['A', '15.00', 'EUR', '2024-01-01', 'a@example.com', '', '', '', ''], layout, {
      delimiter: ',',
      initialSync: false,
    });
    expect(buildOrder(fields, [item as Record<string, unknown>])).toMatchObject({
      ok: true,
      order: { line_items: [{ name: 'Mug', quantity: 2, price: '7.50' }] },
    });
    const bad = buildOrder(fields, [{ name: 'Mug', quantity: 'two', price: '1' }]);
    expect(bad).toMatchObject({ ok: false, errors: [{ field: 'line_items[0].quantity' }] });
  });
});

describe('readLineItem: a line total (line_item_total) instead of a price', () => {
  const layout = resolveColumns([...header.slice(0, 5), 'line_item_name', 'line_item_quantity', 'line_item_total'], new Map(), ',');
  const row = (qty: string, total: string) => ['A', '', '', '', '', 'Mug', qty, total];

  it('is the price times the quantity: divided exactly, in minor units', () => {
    expect(layout.hasLineItems).toBe(true);
    expect(readLineItem(row('3', '59.70'), layout, ',')).toEqual({ name: 'Mug', quantity: 3, price: '19.90' });
    expect(readLineItem(row('1', '£12.00'), layout, ',', 'GBP')).toEqual({ name: 'Mug', quantity: 1, price: '12.00' });
  });

  it('refuses a total that is not the quantity times a whole-cent price, naming the item', () => {
    const errors: { field: string; message: string }[] = [];
    readLineItem(row('3', '10.00'), layout, ',', 'EUR', errors, 2);
    expect(errors).toEqual([{ field: 'line_items[2].price', message: 'the line total 10.00 is not 3 times a price in whole minor units' }]);
  });

  it('a price column, when the file has one too, is the price', () => {
    const both = resolveColumns([...header.slice(0, 5), 'line_item_quantity', 'line_item_price', 'line_item_total'], new Map(), ',');
    expect(readLineItem(['A', '', '', '', '', '2', '20.00', '36.00'], both, ',')).toEqual({ quantity: 2, price: '20.00' });
  });
});

describe('resolveColumns: duplicate header names', () => {
  const header = ['order_id', 'total', 'currency', 'order_date', 'Email', 'email', 'note', 'note'];
  it('refuses two columns that could be one field, naming them and how to pick one', () => {
    expect(() => resolveColumns(header, new Map(), ',')).toThrow(
      'the CSV header has 2 columns that could be email: "Email" (column 5), "email" (column 6)',
    );
    try {
      resolveColumns(header, new Map(), ',');
    } catch (err) {
      expect((err as { hint?: string }).hint).toBe('pick one by its number: --map email=#5');
    }
  });

  it('--map picks one by number; a --map name that several columns share is refused too', () => {
    const layout = resolveColumns(header, new Map([['email', '#6']]), ',');
    expect(layout.index.email).toBe(5);
    // Duplicate names of columns that are not fields are only ignored.
    expect(layout.ignored).toEqual(['Email', 'note', 'note']);
    const twice = ['order_id', 'total', 'currency', 'order_date', 'Mail', 'Mail'];
    expect(() => resolveColumns(twice, new Map([['email', 'Mail']]), ',')).toThrow('2 columns that could be email');
    expect(() => resolveColumns(twice, new Map([['email', '#9']]), ',')).toThrow('--map email=#9: the file has 6 columns');
  });
});
