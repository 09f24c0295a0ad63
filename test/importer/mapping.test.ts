import { describe, expect, it } from 'vitest';
import { normalizeDecimalText, normalizeOrderDate, parseBoolean } from '../../src/importer/formats.js';
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
    expect(() => resolveColumns(['order_id', 'total', 'currency', 'order_date'], new Map(), ',')).toThrow(/email or phone/);
    expect(() => parseMaps(['nope=Col'])).toThrow(/unknown field "nope"/);
    expect(() => parseMaps(['total'])).toThrow(/field=Column/);
    expect(() => resolveColumns(header, parseMaps(['total=Amount']), ',')).toThrow(/no column "Amount"/);
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
    expect(normalizeDecimalText('49,90', ',')).toBe('49,90');
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
