import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { externalAddress, http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

const admin = (path: string) => http(sb.baseUrl, 'GET', `/_sandbox${path}`);
const v1 = (method: string, path: string, json?: unknown) => http(sb.baseUrl, method, path, { token, json });

describe('admin reads', () => {
  it('contacts newest first, filtered by consent and q, paged with next_cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await v1('POST', '/v1/contacts', { email: `r${i}@example.com`, phone: `+1415555020${i}` })).body.id);
    await sb.admin.forceConsent(ids[1] as string, { sms_consent: 'pending' });
    const first = await admin('/contacts?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const second = await admin(`/contacts?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    expect((await admin('/contacts?sms_consent=pending')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    expect((await admin('/contacts?q=R0%40EXAMPLE')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect((await admin('/contacts?q=5550202')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    expect((await admin('/contacts?q=%25')).body.data).toEqual([]);
    expect((await admin(`/contacts/${ids[0]}`)).body).toMatchObject({ id: ids[0], email: 'r0@example.com', business_id: 'biz_default' });
    const bad = await admin('/contacts?limit=0&cursor=x&color=red');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['color', 'cursor', 'limit']);
    expect((await admin('/contacts?sms_consent=maybe')).body.error.details).toEqual([
      { field: 'sms_consent', message: 'is not an SMS consent value' },
    ]);
    expect((await admin('/contacts?business_id=biz_nope')).body.data).toEqual([]);
  });

  it('orders with line items and attribution, events with payloads, newest first', async () => {
    const integration = await sb.admin.createIntegration('Shop');
    for (const id of ['O-1', 'O-2'])
      await v1('POST', '/v1/orders/placed', {
        order_id: id,
        total: '5.00',
        currency: 'USD',
        order_date: '2026-11-26',
        email: 'r0@example.com',
        line_items: [{ name: 'Tea', quantity: 1, price: '5.00' }],
      });
    const orders = await admin('/orders');
    expect(orders.body.data.map((o: { order_id: string }) => o.order_id)).toEqual(['O-2', 'O-1']);
    expect(orders.body.data[0]).toMatchObject({
      integration_id: integration.id,
      line_items: [{ name: 'Tea', quantity: 1, price: '5.00' }],
    });
    const contact = orders.body.data[0].contact_id;
    expect((await admin(`/orders?contact_id=${contact}&limit=1`)).body).toMatchObject({
      data: [{ order_id: 'O-2' }],
      next_cursor: expect.any(String),
    });
    await v1('POST', '/v1/events', { event_type: 'viewed', email: 'r0@example.com', properties: { sku: 'T' } });
    await v1('POST', '/v1/events', { event_type: 'clicked', email: 'r0@example.com' });
    const events = await admin('/events');
    expect(events.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['clicked', 'viewed']);
    expect(events.body.data[1]).toMatchObject({ contact_id: contact, properties: { sku: 'T' } });
    expect((await admin('/events?event_type=viewed')).body.data).toHaveLength(1);
  });

  it('credentials are listed without any secret or token value; businesses with their scopes', async () => {
    const app = await sb.admin.createApp([]);
    const tok = await sb.admin.createApiToken(['contacts_read']);
    await sb.admin.revokeApiToken(tok.id);
    const integration = await sb.admin.createIntegration('Hub');
    const reveal = await sb.admin.revealIntegrationToken(integration.id);
    const all = JSON.stringify([(await admin('/apps')).body, (await admin('/api-tokens')).body, (await admin('/integrations')).body]);
    for (const secret of [app.client_secret, tok.token, reveal.token]) expect(all).not.toContain(secret);
    expect((await admin('/api-tokens')).body.data.find((t: { id: string }) => t.id === tok.id)).toMatchObject({
      scopes: ['contacts_read'],
      revoked_at: expect.any(String),
    });
    expect((await admin('/apps')).body.data.find((a: { client_id: string }) => a.client_id === app.client_id)).toMatchObject({
      scopes: [],
    });
    const biz = await sb.admin.createBusiness('Small plan', ['contacts_read']);
    expect((await admin('/businesses')).body.data).toEqual([
      {
        id: 'biz_default',
        name: 'Default business',
        available_scopes: ['contacts_read', 'contacts_write', 'events_write', 'orders_write'],
      },
      { id: biz.id, name: 'Small plan', available_scopes: ['contacts_read'] },
    ]);
  });

  it('GET /outbox with limit keeps the N most recent, oldest first; contact_id filters; without them it is unchanged', async () => {
    const all = await sb.admin.outbox();
    const last2 = (await admin('/outbox?limit=2')).body.data;
    expect(last2).toEqual(all.slice(-2));
    const contact = all[0]?.contact_id as string;
    expect((await admin(`/outbox?contact_id=${contact}`)).body.data).toEqual(all.filter((e) => e.contact_id === contact));
    expect((await admin('/outbox?limit=101')).status).toBe(400);
  });

  it('GET /outbox?flow_id= lists the runs of one flow only (the flow page of the dashboard)', async () => {
    const a = await sb.admin.createFlow('flow_filter_a', 'Flow A');
    const b = await sb.admin.createFlow('flow_filter_b', 'Flow B');
    const token = await sb.tokenWithAllScopes();
    for (const type of ['flow_filter_a', 'flow_filter_b', 'flow_filter_a'])
      await http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: type, email: 'flows@example.com' } });
    const runs = (await admin(`/outbox?flow_id=${a.id}`)).body.data as { type: string; flow_id: string }[];
    expect(runs.map((r) => [r.type, r.flow_id])).toEqual([
      ['flow_run', a.id],
      ['flow_run', a.id],
    ]);
    expect((await admin(`/outbox?flow_id=${b.id}&limit=1`)).body.data).toHaveLength(1);
    // total counts every match, whatever limit and after.
    expect((await admin(`/outbox?flow_id=${a.id}&limit=1`)).body.total).toBe(2);
    const all = (await admin('/outbox')).body;
    expect(all.total).toBe(all.data.length);
    expect((await admin(`/outbox?after=${all.data[all.data.length - 1].seq}`)).body).toEqual({ data: [], total: all.total });
    expect((await admin('/outbox?flow_id=flow_none')).body.data).toEqual([]);
  });

  it('GET /outbox/stream sends each new side effect as a server-sent event', async () => {
    const ac = new AbortController();
    const res = await fetch(`${sb.baseUrl}/_sandbox/outbox/stream?type=welcome_sms`, { signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const created = await v1('POST', '/v1/contacts', { email: 'live@example.com', phone: '+14155550299', sms_consent: 'subscribed' });
    let text = '';
    while (!text.includes('data: ')) text += new TextDecoder().decode((await reader.read()).value);
    while (!text.includes('\n\n', text.indexOf('data: '))) text += new TextDecoder().decode((await reader.read()).value);
    const data = JSON.parse(/data: (.*)\n/.exec(text)?.[1] ?? '');
    expect(data).toMatchObject({ type: 'welcome_sms', contact_id: created.body.id, business_id: 'biz_default' });
    expect(text).toContain(`id: ${data.seq}\n`);
    ac.abort();
    expect((await admin('/outbox/stream?type=nope')).status).toBe(400);
  });

  it('the dashboard is served at / with its assets and favicon', async () => {
    const page = await http(sb.baseUrl, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('/dashboard/app.js');
    for (const [path, type] of [
      ['/dashboard/app.js', 'text/javascript; charset=utf-8'],
      ['/dashboard/app.css', 'text/css; charset=utf-8'],
      ['/dashboard/favicon.svg', 'image/svg+xml'],
      ['/favicon.ico', 'image/svg+xml'],
    ])
      expect((await http(sb.baseUrl, 'GET', path as string)).headers.get('content-type')).toBe(type);
  });
});

describe('the dashboard on a non-loopback bind', () => {
  it.skipIf(!externalAddress)('answers 404 to other addresses, as the admin API does', async () => {
    const wide = await startSandbox({ port: 0, host: '0.0.0.0' });
    try {
      for (const path of ['/', '/dashboard/app.js', '/favicon.ico', '/_sandbox/businesses', '/_sandbox/outbox/stream']) {
        const refused = await http(`http://${externalAddress}:${wide.port}`, 'GET', path);
        expect(refused.status, path).toBe(404);
        expect(refused.body.error.code).toBe('not_found');
      }
      expect((await http(`http://127.0.0.1:${wide.port}`, 'GET', '/')).status).toBe(200);
    } finally {
      await wide.close();
    }
  });
});
