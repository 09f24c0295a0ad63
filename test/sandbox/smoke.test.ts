import { describe, expect, it } from 'vitest';
import { type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
useSandbox((s) => ({ sb } = s));

describe('sandbox smoke', () => {
  it('issues a client-credentials token and answers a contact list with it', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const res = await fetch(`${sb.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }),
    });
    expect(res.status).toBe(200);
    const tok = (await res.json()) as { access_token: string; scope: string };
    expect(tok.scope).toBe('contacts_read');
    const list = await fetch(`${sb.baseUrl}/v1/contacts`, { headers: { authorization: `Bearer ${tok.access_token}` } });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ data: [], next_cursor: null });
  });

  it('upserts an order twice: 201 then 200', async () => {
    const token = await sb.tokenWithAllScopes();
    const body = JSON.stringify({ order_id: 'o-1', total: '10.00', currency: 'USD', order_date: '2026-06-22', email: 'x@example.com' });
    const post = () =>
      fetch(`${sb.baseUrl}/v1/orders/placed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
    expect((await post()).status).toBe(201);
    expect((await post()).status).toBe(200);
    expect((await sb.admin.order('o-1'))?.total).toBe('10.00');
  });
});
