/**
 * contract/'s hand validators checked against the TypeBox schemas (the document's request
 * schemas): the same fields, the same required ones, and never accepting a body the schema
 * refuses. The validators go further (ISO 4217 codes, decimals per currency, dates), never looser.
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTACT_WRITE_FIELDS, validateContactWrite } from '../../src/contract/contacts.js';
import { EVENT_FIELDS, validateEventInput } from '../../src/contract/events.js';
import { LINE_ITEM_FIELDS, ORDER_FIELDS, ORDER_REQUIRED_FIELDS, validateOrderInput } from '../../src/contract/orders.js';
import { ContactCreateSchema, ContactPatchSchema, EventInputSchema, LineItemSchema, OrderInputSchema } from '../../src/contract/schemas.js';
import { fromSchema, mutated, type Schema } from '../helpers/schema-arbitrary.js';

const ajv = new Ajv({ strict: false });
(addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);

const plain = (s: unknown) => JSON.parse(JSON.stringify(s)) as Schema;
const keys = (s: unknown) => Object.keys((plain(s) as { properties: object }).properties).sort();

describe('validators and schemas', () => {
  it('name the same fields', () => {
    expect([...CONTACT_WRITE_FIELDS].sort()).toEqual(keys(ContactCreateSchema));
    expect([...CONTACT_WRITE_FIELDS].sort()).toEqual(keys(ContactPatchSchema));
    expect([...ORDER_FIELDS].sort()).toEqual(keys(OrderInputSchema));
    expect([...LINE_ITEM_FIELDS].sort()).toEqual(keys(LineItemSchema));
    expect([...EVENT_FIELDS].sort()).toEqual(keys(EventInputSchema));
    expect([...ORDER_REQUIRED_FIELDS].sort()).toEqual([...(plain(OrderInputSchema).required as string[])].sort());
    expect(plain(EventInputSchema).required).toEqual(['event_type']);
  });

  const cases: Array<[string, unknown, (v: unknown) => { ok: boolean }]> = [
    ['ContactCreate', ContactCreateSchema, (v) => validateContactWrite(v, 'create')],
    ['ContactPatch', ContactPatchSchema, (v) => validateContactWrite(v, 'patch')],
    ['OrderInput', OrderInputSchema, validateOrderInput],
    ['EventInput', EventInputSchema, validateEventInput],
  ];
  for (const [name, schema, validate] of cases) {
    it(`${name}: the validator accepts nothing the schema refuses`, () => {
      const check = ajv.compile(plain(schema));
      let accepted = 0;
      fc.assert(
        fc.property(mutated(fromSchema(plain(schema))), (body) => {
          if (!validate(body).ok) return;
          accepted++;
          expect(check(body), `${JSON.stringify(body)}: ${ajv.errorsText(check.errors)}`).toBe(true);
        }),
        { numRuns: 400 },
      );
      expect(accepted).toBeGreaterThan(20);
    });
  }
});
