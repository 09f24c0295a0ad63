/** One rule for null on every route: a field sent as null is refused with 400 naming it (omit the field instead). */
import { beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let contactId: string;
useSandbox((s) => ({ sb, token } = s));
beforeAll(async () => {
  contactId = (await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'null@example.com' } })).body.id;
});

const order = { order_id: 'n1', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'null@example.com' };

describe('null fields', () => {
  for (const field of ['initial_sync', 'line_items', 'accepts_email_marketing', 'accepts_sms_marketing', 'phone']) {
    it(`order upsert: ${field}: null answers 400 naming ${field}, on a new and on an existing order`, async () => {
      for (const id of ['n-new', 'n1']) {
        if (id === 'n1') await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token, json: order });
        const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token, json: { ...order, order_id: id, [field]: null } });
        expect(r.status, id).toBe(400);
        expect(r.body.error.details, id).toContainEqual({ field, message: expect.stringMatching(/null/) });
      }
    });
  }

  it('order upsert: a line item sku: null answers 400 naming it', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { ...order, line_items: [{ sku: null, name: 'x', quantity: 1, price: 1 }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ field: 'line_items[0].sku', message: expect.stringMatching(/null/) }]);
  });

  it('contacts and events refuse null the same way', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/v1/contacts', { email: 'n2@example.com', first_name: null }, 'first_name'],
      ['PATCH', `/v1/contacts/${contactId}`, { last_name: null }, 'last_name'],
      ['POST', '/v1/events', { event_type: 'x', email: 'null@example.com', properties: null }, 'properties'],
    ];
    for (const [method, path, json, field] of cases) {
      const r = await http(sb.baseUrl, method, path, { token, json });
      expect(r.status, path).toBe(400);
      expect(
        r.body.error.details.map((d: { field: string }) => d.field),
        path,
      ).toEqual([field]);
    }
  });
});
