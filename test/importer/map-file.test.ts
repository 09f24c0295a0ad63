import { describe, expect, it } from 'vitest';
import { CONTACT_MAPPING_SCHEMA } from '../../src/importer/contact-mapping.js';
import { parseMapFile } from '../../src/importer/map-file.js';
import { ORDER_MAPPING_SCHEMA } from '../../src/importer/mapping.js';
import { listPresets, loadPreset, presetText } from '../../src/importer/presets/family.js';
import { recognise } from '../../src/importer/presets/recognise.js';

const parse = (doc: unknown) => parseMapFile(JSON.stringify(doc), 'my.json', ORDER_MAPPING_SCHEMA);

describe('mapping files', () => {
  it('reads columns (one name or a list of choices) and the options a mapping needs', () => {
    const m = parse({
      kind: 'orders',
      columns: { order_id: 'Order No', phone: ['Mobile', 'Phone'] },
      country_columns: ['Country'],
      date_order: 'DMY',
      delimiter: 'semicolon',
      default_country: 'de',
      ignore_unmapped: true,
    });
    expect([...m.columns]).toEqual([
      ['order_id', ['Order No']],
      ['phone', ['Mobile', 'Phone']],
    ]);
    expect(m).toMatchObject({ countryColumns: ['Country'], dateOrder: 'DMY', delimiter: ';', defaultCountry: 'DE', ignoreUnmapped: true });
  });

  it('names the key of each mistake', () => {
    expect(() => parseMapFile('{', 'my.json', ORDER_MAPPING_SCHEMA)).toThrow(/^my.json: is not valid JSON/);
    expect(() => parse({ kind: 'contacts', columns: { order_id: 'x' } })).toThrow(/"kind" must be "orders", got "contacts"/);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, colums: {} })).toThrow(/unknown key "colums"/);
    expect(() => parse({ kind: 'orders', columns: { order_number: 'x' } })).toThrow(
      /"columns" names an unknown orders field "order_number"/,
    );
    expect(() => parse({ kind: 'orders', columns: { order_id: [] } })).toThrow(/"columns.order_id" must be a column name/);
    expect(() => parse({ kind: 'orders', columns: {} })).toThrow(/"columns" must be an object/);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, date_order: 'YMD' })).toThrow(/"date_order" must be "MDY" or "DMY"/);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, default_country: 'XX' })).toThrow(/"default_country" must be/);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, delimiter: '::' })).toThrow(/"delimiter": /);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, ignore_unmapped: 'yes' })).toThrow(/"ignore_unmapped"/);
    expect(() => parse({ kind: 'orders', columns: { order_id: 'x' }, detect: { header: [] } })).toThrow(/"detect" must be/);
  });

  it('finds the shipped presets from the checkout, and detects a Shopify header', () => {
    expect(listPresets(ORDER_MAPPING_SCHEMA).map((p) => p.name)).toContain('shopify');
    const shopify = loadPreset('Shopify', ORDER_MAPPING_SCHEMA);
    expect(shopify.columns.get('order_id')).toEqual(['Name']);
    expect(shopify.origin).toBe('preset shopify');
    expect(JSON.parse(presetText('shopify', ORDER_MAPPING_SCHEMA)).kind).toBe('orders');
    expect(() => loadPreset('woo', ORDER_MAPPING_SCHEMA)).toThrow(/no orders preset named "woo"/);
    expect(() => loadPreset('../orders/shopify', ORDER_MAPPING_SCHEMA)).toThrow(/no orders preset/);
    const header = ['Name', 'Email', 'Financial Status', 'Created at', 'Lineitem quantity', 'Lineitem name'];
    const found = recognise(header, ORDER_MAPPING_SCHEMA);
    expect(found.kind === 'one' && found.family.name).toBe('shopify');
    expect(recognise(['order_id', 'total'], ORDER_MAPPING_SCHEMA).kind).toBe('none');
  });

  it('"values" translates an export\'s words for the consents (any case, spaces, - and _), and is refused elsewhere', () => {
    const contacts = (doc: unknown) =>
      parseMapFile(JSON.stringify({ kind: 'contacts', columns: { email: 'Email' }, ...(doc as object) }), 'c.json', CONTACT_MAPPING_SCHEMA);
    const m = contacts({ values: { email_consent: { 'Non-subscribed': 'never_subscribed', Yes: 'subscribed' } } });
    expect(m.values.get('email_consent')?.get('nonsubscribed')).toEqual({ word: 'Non-subscribed', value: 'never_subscribed' });
    expect(m.values.get('email_consent')?.get('yes')?.value).toBe('subscribed');
    expect(() => contacts({ values: { email: { a: 'b' } } })).toThrow(/^c.json: "values" cannot translate the field "email"/);
    expect(() => contacts({ values: { email_consent: {} } })).toThrow(/"values.email_consent" must be a non-empty object/);
    expect(() => contacts({ values: { email_consent: { a: 1 } } })).toThrow(/"values.email_consent.a" must be a non-empty string/);
    expect(() => contacts({ values: { email_consent: { 'non subscribed': 'x', NON_SUBSCRIBED: 'y' } } })).toThrow(
      /gives "NON_SUBSCRIBED" twice/,
    );
    expect(() => parse({ kind: 'orders', columns: { order_id: 'id' }, values: { currency: { $: 'USD' } } })).toThrow(
      /"values" is for contacts mapping files/,
    );
  });
});
