/** Authentication comes first (spec, Authentication rule 4): no body problem is answered before the token is checked. */
import { beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let readOnly: string;
useSandbox((s) => ({ sb } = s));
beforeAll(async () => {
  readOnly = (await sb.admin.createApiToken(['contacts_read'])).token;
});

const WRITES: Array<[string, string]> = [
  ['POST', '/v1/contacts'],
  ['PATCH', '/v1/contacts/ct_x'],
  ['DELETE', '/v1/contacts/ct_x'],
  ['POST', '/v1/contacts/ct_x/unsubscribe'],
  ['POST', '/v1/orders/placed'],
  ['POST', '/v1/events'],
];

const BAD_BODIES: Array<[string, Record<string, string>, string]> = [
  ['a NUL character', { 'content-type': 'application/json' }, '{"event_type":"a\\u0000","email":"a@example.com"}'],
  ['invalid JSON', { 'content-type': 'application/json' }, '{"email":'],
  ['invalid UTF-8', { 'content-type': 'application/json' }, '\xff'],
  ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'email=a%40example.com'],
  ['an unknown content type', { 'content-type': 'text/plain' }, 'hello'],
  ['unknown fields', { 'content-type': 'application/json' }, '{"nope":1}'],
];

describe('authentication before the body', () => {
  for (const [method, path] of WRITES) {
    it(`${method} ${path}: no token answers 401 whatever the body`, async () => {
      for (const [what, headers, raw] of BAD_BODIES) {
        const r = await http(sb.baseUrl, method, path, { raw, headers });
        expect(r.status, what).toBe(401);
        expect(r.body.error.code, what).toBe('unauthorized');
        expect(r.headers.get('www-authenticate'), what).toBe('Bearer error="invalid_token"');
      }
    });
  }

  it('a body over 1 MiB without a token answers 401, not 413', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/events', {
      raw: `{"event_type":"${'a'.repeat(1_100_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(401);
  });

  it('a token without the scope answers 403 before the body is looked at', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/events', {
      token: readOnly,
      raw: '{"event_type":',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('insufficient_scope');
  });

  it('with a valid token the body is then checked', async () => {
    const token = await sb.tokenWithAllScopes();
    const r = await http(sb.baseUrl, 'POST', '/v1/events', {
      token,
      raw: '{"event_type":"a\\u0000","email":"a@example.com"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
  });
});

describe("API tokens and the business's plan", () => {
  it('an API token gets only the scopes its business has', async () => {
    const biz = await sb.admin.createBusiness('Read-only plan', ['contacts_read']);
    const t = await sb.admin.createApiToken(['contacts_read', 'contacts_write', 'orders_write'], biz.id);
    expect(t.scopes).toEqual(['contacts_read']);
    const created = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t.token, json: { email: 'plan@example.com' } });
    expect(created.status).toBe(403);
    expect(created.body.error.required_scope).toBe('contacts_write');
    const order = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token: t.token,
      json: { order_id: 'p1', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'plan@example.com' },
    });
    expect(order.status).toBe(403);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.token })).status).toBe(200);
  });
});
