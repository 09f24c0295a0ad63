/** open-points "Businesses": a token of one business never reads or writes another's data. */
import { beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let mine: string;
let theirs: string;
let theirBiz: string;
const ALL = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'];

useSandbox((s) => ({ sb } = s));
beforeAll(async () => {
  mine = await sb.tokenWithAllScopes();
  theirBiz = (await sb.admin.createBusiness('Other shop')).id;
  theirs = (await sb.admin.createApiToken(ALL, theirBiz)).token;
});

describe('business isolation', () => {
  it('contacts of another business are invisible: list, get, patch, delete, unsubscribe', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: theirs, json: { email: 'iso@example.com' } });
    expect(c.status).toBe(201);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: mine })).body.data).toEqual([]);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts?email=iso%40example.com', { token: mine })).body.data).toEqual([]);
    expect((await http(sb.baseUrl, 'GET', `/v1/contacts/${c.body.id}`, { token: mine })).status).toBe(404);
    expect((await http(sb.baseUrl, 'PATCH', `/v1/contacts/${c.body.id}`, { token: mine, json: { first_name: 'x' } })).status).toBe(404);
    expect((await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token: mine })).status).toBe(404);
    expect((await http(sb.baseUrl, 'POST', `/v1/contacts/${c.body.id}/unsubscribe`, { token: mine })).status).toBe(404);
    expect((await http(sb.baseUrl, 'GET', `/v1/contacts/${c.body.id}`, { token: theirs })).body.first_name).toBeNull();
  });

  it('the same email is a different contact in each business (no 409 across businesses)', async () => {
    const a = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: mine, json: { email: 'shared@example.com' } });
    const b = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: theirs, json: { email: 'shared@example.com' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('orders are keyed per business: the same order_id creates in each, and links only to own contacts', async () => {
    const o = { order_id: 'iso-1', total: '3.00', currency: 'USD', order_date: '2026-01-01', email: 'shared@example.com' };
    const a = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token: mine, json: o });
    const b = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token: theirs, json: { ...o, total: '4.00' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.contact_id).not.toBe(b.body.contact_id);
    expect((await sb.admin.order('iso-1'))?.total).toBe('3.00');
    expect((await sb.admin.order('iso-1', theirBiz))?.total).toBe('4.00');
  });

  it("an integration token of another business is refused (403) and that business's sole integration is not used", async () => {
    const integ = await sb.admin.createIntegration('Their shop', theirBiz);
    const o = { order_id: 'iso-2', total: '1.00', currency: 'USD', order_date: '2026-01-01', email: 'x@example.com' };
    const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token: mine,
      json: o,
      headers: { 'x-service-integration-token': integ.token },
    });
    expect(r.status).toBe(403);
    const plain = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token: mine, json: o });
    expect(plain.body.integration_id).toBeNull();
  });

  it('events cannot target a contact of another business; flows run only in their own business', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: theirs, json: { email: 'ev-iso@example.com' } });
    expect((await http(sb.baseUrl, 'POST', '/v1/events', { token: mine, json: { event_type: 't', contact_id: c.body.id } })).status).toBe(
      404,
    );
    await sb.admin.createFlow('iso_flow', 'theirs', theirBiz);
    await http(sb.baseUrl, 'POST', '/v1/events', { token: mine, json: { event_type: 'iso_flow', email: 'ev-iso@example.com' } });
    expect(await sb.admin.outbox({ type: 'flow_run', business_id: 'biz_default' })).toEqual([]);
    await http(sb.baseUrl, 'POST', '/v1/events', { token: theirs, json: { event_type: 'iso_flow', email: 'ev-iso@example.com' } });
    const runs = await sb.admin.outbox({ type: 'flow_run', business_id: theirBiz });
    expect(runs).toHaveLength(1);
    expect(runs[0]?.contact_id).toBe(c.body.id);
  });

  it('client credentials of one business yield tokens of that business only', async () => {
    const app = await sb.admin.createApp(['contacts_read'], theirBiz);
    const t = await http(sb.baseUrl, 'POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const list = await http(sb.baseUrl, 'GET', '/v1/contacts?email=iso%40example.com', { token: t.body.access_token });
    expect(list.body.data).toHaveLength(1);
  });
});
