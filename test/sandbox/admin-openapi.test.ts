/**
 * The admin API's OpenAPI document (GET /_sandbox/openapi.json): served apart from the service's,
 * a valid OpenAPI 3.1 document, and every admin answer of the tests is checked against it
 * (test/helpers/openapi-conformance.ts, through withSandbox).
 */
import { describe, expect, it } from 'vitest';
import { adminOpenApiDoc, answerProblem } from '../helpers/openapi-conformance.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
useSandbox((s) => ({ sb } = s));

describe('GET /_sandbox/openapi.json', () => {
  it('serves the admin document, apart from the service document at /openapi.json', async () => {
    const admin = await http(sb.baseUrl, 'GET', '/_sandbox/openapi.json');
    expect(admin.status).toBe(200);
    const doc = admin.body as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).toEqual(JSON.parse(JSON.stringify(adminOpenApiDoc)));
    for (const p of ['/_sandbox/requests', '/_sandbox/deprecations', '/_sandbox/flows', '/_sandbox/snapshots', '/_sandbox/faults'])
      expect(Object.keys(doc.paths)).toContain(p);
    const service = (await http(sb.baseUrl, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(service.paths).some((p) => p.startsWith('/_sandbox'))).toBe(false);
  });

  it('the answers of the request log, deprecations, flows and snapshots match it; an answer off it is caught', async () => {
    const token = await sb.tokenWithAllScopes();
    await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
    await http(sb.baseUrl, 'GET', '/v1/contacts');
    const calls: [string, string, unknown?][] = [
      ['GET', '/_sandbox/requests?limit=5'],
      ['GET', '/_sandbox/requests?status=4xx'],
      ['GET', '/_sandbox/requests?status=nope'],
      ['GET', '/_sandbox/deprecations'],
      ['GET', '/_sandbox/info'],
      ['GET', '/_sandbox/contact-labels?ids=ct_none,ct_other'],
      ['GET', '/_sandbox/contact-labels'],
      ['POST', '/_sandbox/flows', { event_type: 'x' }],
      ['GET', '/_sandbox/flows'],
      ['POST', '/_sandbox/snapshots', { name: 's1' }],
      ['GET', '/_sandbox/snapshots'],
      ['POST', '/_sandbox/snapshots/s1/restore'],
      ['DELETE', '/_sandbox/snapshots/s1'],
      ['DELETE', '/_sandbox/snapshots/s1'],
    ];
    for (const [method, path, json] of calls) {
      const r = await http(sb.baseUrl, method, path, { json });
      const problem = answerProblem({
        method,
        url: path,
        status: r.status,
        contentType: r.headers.get('content-type') ?? undefined,
        body: r.text,
      });
      expect(problem, `${method} ${path}`).toBeUndefined();
    }
    const first = ((await http(sb.baseUrl, 'GET', '/_sandbox/requests?limit=1')).body as { data: unknown[] }).data[0];
    const off = answerProblem({
      method: 'GET',
      url: '/_sandbox/requests',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        data: [{ ...(first as object), secret: 'x' }],
        next_cursor: null,
        total: 1,
        latest_seq: 1,
        capacity: { entries: 1, bytes: 1 },
      }),
    });
    expect(off).toMatch(/off its schema/);
    expect(sb.offDocument).toEqual([]);
  });
});

describe('GET /_sandbox/contact-labels', () => {
  it("answers each known contact's e-mail, phone and name by id, and leaves out ids of no contact", async () => {
    const token = await sb.tokenWithAllScopes();
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: 'label@example.com', first_name: 'Ada', last_name: 'L' },
    });
    const id = (c.body as { id: string }).id;
    const r = await http(sb.baseUrl, 'GET', `/_sandbox/contact-labels?ids=${id},ct_none`);
    expect(r.body).toEqual({ data: { [id]: { email: 'label@example.com', phone: null, name: 'Ada L' } } });
  });
});

describe('GET /_sandbox/outbox/details', () => {
  it("answers a welcome SMS's phone and text, a flow run's flow and event, an attribution's amount and integration", async () => {
    const token = await sb.tokenWithAllScopes();
    await sb.admin.createIntegration('Shopify shop');
    await http(sb.baseUrl, 'POST', '/_sandbox/flows', { json: { event_type: 'viewed_page', name: 'Browse abandonment' } });
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: 'sms@example.com', phone: '+14155550123', sms_consent: 'subscribed' },
    });
    await http(sb.baseUrl, 'POST', '/v1/events', {
      token,
      json: { event_type: 'viewed_page', email: 'sms@example.com', occurred_at: '2026-11-01T10:00:00Z' },
    });
    const placed = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { order_id: 'ORD-DET-1', total: '42.50', currency: 'EUR', order_date: '2026-11-01', email: 'sms@example.com' },
    });
    expect(placed.status).toBe(201);
    const effects = (
      (await http(sb.baseUrl, 'GET', `/_sandbox/outbox?contact_id=${(c.body as { id: string }).id}`)).body as {
        data: { seq: number; type: string }[];
      }
    ).data;
    const seqs = effects.map((e) => e.seq).join(',');
    const r = await http(sb.baseUrl, 'GET', `/_sandbox/outbox/details?seqs=${seqs},999999`);
    expect(r.status).toBe(200);
    const data = (r.body as { data: Record<string, Record<string, string | null>> }).data;
    const of = (type: string) => data[String(effects.find((e) => e.type === type)?.seq)];
    expect(of('welcome_sms')).toMatchObject({ phone: '+14155550123' });
    expect(of('welcome_sms')?.text).toMatch(/Reply STOP/);
    expect(of('flow_run')).toEqual({ flow_name: 'Browse abandonment', event_type: 'viewed_page' });
    expect(of('revenue_attribution')).toMatchObject({ amount: '42.50', currency: 'EUR', integration_name: 'Shopify shop' });
    expect(data['999999']).toBeUndefined();
    const bad = await http(sb.baseUrl, 'GET', '/_sandbox/outbox/details?seqs=a');
    expect(bad.status).toBe(400);
    expect(sb.offDocument).toEqual([]);
  });
});

describe('the admin lists count, search and follow', () => {
  it('answer total and latest_seq; after= keeps only newer rows; q searches order and event ids; event_types lists the types seen', async () => {
    const token = await sb.tokenWithAllScopes();
    const biz = ((await http(sb.baseUrl, 'POST', '/_sandbox/businesses', { json: { name: 'Counted' } })).body as { id: string }).id;
    const t = (
      (
        await http(sb.baseUrl, 'POST', '/_sandbox/api-tokens', {
          json: { business_id: biz, name: 'c', scopes: ['contacts_write', 'orders_write', 'events_write'] },
        })
      ).body as { token: string }
    ).token;
    expect(token).toBeTruthy();
    for (const id of ['WEB-1', 'WEB-2', 'POS-3'])
      await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
        token: t,
        json: { order_id: id, total: '1.00', currency: 'USD', order_date: '2026-11-01', email: 'count@example.com' },
      });
    const all = (await http(sb.baseUrl, 'GET', `/_sandbox/orders?business_id=${biz}&limit=1`)).body as {
      data: unknown[];
      total: number;
      latest_seq: number;
    };
    expect(all.data).toHaveLength(1);
    expect(all.total).toBe(3);
    const web = (await http(sb.baseUrl, 'GET', `/_sandbox/orders?business_id=${biz}&q=web`)).body as {
      data: { order_id: string }[];
      total: number;
    };
    expect(web.data.map((o) => o.order_id)).toEqual(['WEB-2', 'WEB-1']);
    expect(web.total).toBe(2);
    await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token: t,
      json: { order_id: 'WEB-4', total: '1.00', currency: 'USD', order_date: '2026-11-01', email: 'count@example.com' },
    });
    const newer = (await http(sb.baseUrl, 'GET', `/_sandbox/orders?business_id=${biz}&after=${all.latest_seq}`)).body as {
      data: { order_id: string }[];
      total: number;
    };
    expect(newer.data.map((o) => o.order_id)).toEqual(['WEB-4']);
    expect(newer.total).toBe(4);
    const ev = (await http(sb.baseUrl, 'POST', '/v1/events', { token: t, json: { event_type: 'viewed_page', email: 'count@example.com' } }))
      .body as { id: string };
    await http(sb.baseUrl, 'POST', '/v1/events', { token: t, json: { event_type: 'added_to_cart', email: 'count@example.com' } });
    const events = (await http(sb.baseUrl, 'GET', `/_sandbox/events?business_id=${biz}&q=${ev.id}`)).body as {
      data: { id: string }[];
      total: number;
      event_types: string[];
    };
    expect(events.data.map((e) => e.id)).toEqual([ev.id]);
    expect(events.event_types).toEqual(['added_to_cart', 'viewed_page']);
    const contacts = (await http(sb.baseUrl, 'GET', `/_sandbox/contacts?business_id=${biz}`)).body as { total: number };
    expect(contacts.total).toBe(1);
    expect((await http(sb.baseUrl, 'GET', '/_sandbox/contacts?after=x')).status).toBe(400);
  });
});
