/** Spec "POST /v1/orders/placed" rules 1–7 and open-points "Orders". */
import { describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let n = 0;
const uid = () => `${++n}`;

useSandbox((s) => ({ sb, token } = s));

const upsert = (json: unknown, headers?: Record<string, string>) => http(sb.baseUrl, 'POST', '/v1/orders/placed', { token, json, headers });
const base = (over: Record<string, unknown> = {}) => ({
  order_id: `ord-${uid()}`,
  total: '49.90',
  currency: 'USD',
  order_date: '2026-06-22T10:00:00Z',
  email: `buyer${n}@example.com`,
  ...over,
});
const contact = (id: string) => http(sb.baseUrl, 'GET', `/v1/contacts/${id}`, { token });
const effectsFor = async (orderId: string) =>
  (await sb.admin.outbox()).filter((e) => e.order_id === orderId).map((e) => `${e.type}:${e.trigger ?? ''}`);

describe('rule 1: required fields', () => {
  it('400 naming each missing required field', async () => {
    const r = await upsert({ email: 'a@example.com' });
    expect(r.status).toBe(400);
    const fields = r.body.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['order_id', 'total', 'currency', 'order_date']));
  });

  it('400 when neither email nor phone is given', async () => {
    const { email: _e, ...noContact } = base();
    const r = await upsert(noContact);
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].message).toContain('email or phone');
  });

  it('a phone alone is enough', async () => {
    const { email: _e, ...o } = base({ phone: '+14155550199' });
    expect((await upsert(o)).status).toBe(201);
  });
});

describe('rule 2: 201 then 200', () => {
  it('first call 201 with the stored order, later calls 200 and update', async () => {
    const o = base();
    const a = await upsert(o);
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      order_id: o.order_id,
      total: '49.90',
      currency: 'USD',
      order_date: '2026-06-22T10:00:00Z',
      email: o.email,
      phone: null,
      accepts_email_marketing: null,
      accepts_sms_marketing: null,
      initial_sync: null,
      line_items: null,
      contact_id: expect.stringMatching(/^ct_/),
      integration_id: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const b = await upsert({ ...o, total: '59.90' });
    expect(b.status).toBe(200);
    expect(b.body.total).toBe('59.90');
    expect(b.body.created_at).toBe(a.body.created_at);
    expect((await sb.admin.order(o.order_id))?.total).toBe('59.90');
  });

  it('concurrent first calls for one order_id: exactly one 201', async () => {
    const o = base();
    const answers = await Promise.all(Array.from({ length: 16 }, () => upsert(o)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    const c = await contact(answers[0]?.body.contact_id);
    expect(c.body.orders_count).toBe(1);
  });
});

describe('rule 3: omitted optional fields keep stored values', () => {
  it('phone, accepts_* and line_items survive a later call without them; required fields are required every time', async () => {
    const o = base({
      phone: '+14155550123',
      accepts_email_marketing: true,
      line_items: [{ sku: 'A', name: 'Mug', quantity: 2, price: '9.95' }],
    });
    await upsert(o);
    const r = await upsert({ order_id: o.order_id, total: '20.00', currency: 'USD', order_date: '2026-06-23', email: o.email });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      phone: '+14155550123',
      accepts_email_marketing: true,
      line_items: [{ sku: 'A', name: 'Mug', quantity: 2, price: '9.95' }],
      order_date: '2026-06-23T00:00:00Z',
    });
    expect((await upsert({ order_id: o.order_id, email: o.email })).status).toBe(400);
  });

  it('line_items replace the stored list when present', async () => {
    const o = base({ line_items: [{ name: 'A', quantity: 1, price: 1 }] });
    await upsert(o);
    const r = await upsert({ ...o, line_items: [{ name: 'B', quantity: 3, price: '2.50' }] });
    expect(r.body.line_items).toEqual([{ name: 'B', quantity: 3, price: '2.50' }]);
  });
});

describe('rule 4: find or create the contact', () => {
  it('finds an existing contact by email and links the order', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: `known${uid()}@example.com` } });
    const r = await upsert(base({ email: c.body.email.toUpperCase() }));
    expect(r.body.contact_id).toBe(c.body.id);
  });

  it('finds by phone when the order has no email', async () => {
    const p = `+1415556${String(1000 + Number(uid())).slice(-4)}`;
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { phone: p } });
    const { email: _e, ...o } = base({ phone: p });
    expect((await upsert(o)).body.contact_id).toBe(c.body.id);
  });

  it('creates a contact when nothing matches; it takes the phone only if no other contact has it', async () => {
    const p = '+14155550777';
    const holder = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { phone: p } });
    const r = await upsert(base({ phone: p }));
    expect(r.body.contact_id).not.toBe(holder.body.id);
    const created = await contact(r.body.contact_id);
    expect(created.body).toMatchObject({
      email: r.body.email,
      phone: null,
      email_consent: 'never_subscribed',
      sms_consent: 'never_subscribed',
    });
  });
});

describe('rule 5: accepts_email_marketing / accepts_sms_marketing', () => {
  it('a new contact gets email subscribed with accepts_email_marketing true', async () => {
    const r = await upsert(base({ accepts_email_marketing: true }));
    expect((await contact(r.body.contact_id)).body.email_consent).toBe('subscribed');
  });

  it('a new contact gets never_subscribed with accepts_email_marketing false', async () => {
    const r = await upsert(base({ accepts_email_marketing: false }));
    expect((await contact(r.body.contact_id)).body.email_consent).toBe('never_subscribed');
  });

  it('a new contact gets SMS single_opt_in with accepts_sms_marketing and a phone', async () => {
    const r = await upsert(base({ phone: '+14155550888', accepts_sms_marketing: true }));
    expect((await contact(r.body.contact_id)).body).toMatchObject({ phone: '+14155550888', sms_consent: 'single_opt_in' });
  });

  it('an existing contact consent is never changed by an order', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: `kept${uid()}@example.com`, email_consent: 'unsubscribed' },
    });
    await upsert(base({ email: c.body.email, accepts_email_marketing: true }));
    expect((await contact(c.body.id)).body.email_consent).toBe('unsubscribed');
  });

  it('400 naming phone: accepts_sms_marketing without phone', async () => {
    const r = await upsert(base({ accepts_sms_marketing: true }));
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ field: 'phone', message: expect.any(String) }]);
  });
});

describe('rule 6: initial_sync', () => {
  it('without initial_sync: a create records flow_trigger order_placed and revenue_attribution; an update flow_trigger order_updated', async () => {
    const o = base();
    await upsert(o);
    await upsert(o);
    expect(await effectsFor(o.order_id)).toEqual(['flow_trigger:order_placed', 'revenue_attribution:', 'flow_trigger:order_updated']);
  });

  it('with initial_sync true: no side effects, statistics still updated', async () => {
    const o = base({ initial_sync: true, total: '10.00' });
    const r = await upsert(o);
    await upsert({ ...o, total: '12.50' });
    expect(await effectsFor(o.order_id)).toEqual([]);
    const c = await contact(r.body.contact_id);
    expect(c.body).toMatchObject({ orders_count: 1, total_spent: { USD: '12.50' }, last_order_at: '2026-06-22T10:00:00.000Z' });
  });
});

describe('statistics', () => {
  it('orders_count, total_spent per currency and last_order_at follow creates and updates', async () => {
    const e = `stats${uid()}@example.com`;
    const a = await upsert(base({ email: e, total: '10.00', order_date: '2026-01-01' }));
    await upsert(base({ email: e, total: '1000', currency: 'jpy', order_date: '2026-03-01T09:00:00+02:00' }));
    await upsert({ order_id: a.body.order_id, total: '15.25', currency: 'USD', order_date: '2026-01-01', email: e });
    const c = await contact(a.body.contact_id);
    expect(c.body).toMatchObject({
      orders_count: 2,
      total_spent: { USD: '15.25', JPY: '1000' },
      last_order_at: '2026-03-01T07:00:00.000Z',
    });
  });
});

describe('statistics when orders move in time or between contacts', () => {
  it('last_order_at: the newest order moved back, an older one moved back, orders moved to another contact', async () => {
    const e1 = `mover${uid()}@example.com`;
    const e2 = `mover${uid()}@example.com`;
    const a = base({ email: e1, total: '1.00', order_date: '2026-01-10' });
    const b = base({ email: e1, total: '2.00', order_date: '2026-03-10' });
    const c1 = (await upsert(a)).body.contact_id;
    await upsert(b);
    const stats = async (id: string) => {
      const { orders_count, total_spent, last_order_at } = (await contact(id)).body;
      return { orders_count, total_spent, last_order_at };
    };
    await upsert({ ...b, order_date: '2026-02-10' });
    expect(await stats(c1)).toEqual({ orders_count: 2, total_spent: { USD: '3.00' }, last_order_at: '2026-02-10T00:00:00.000Z' });
    await upsert({ ...a, order_date: '2025-12-10' });
    expect((await stats(c1)).last_order_at).toBe('2026-02-10T00:00:00.000Z');
    const c2 = (await upsert({ ...b, email: e2, order_date: '2026-02-10' })).body.contact_id;
    expect(await stats(c1)).toMatchObject({ orders_count: 1, last_order_at: '2025-12-10T00:00:00.000Z' });
    expect(await stats(c2)).toEqual({ orders_count: 1, total_spent: { USD: '2.00' }, last_order_at: '2026-02-10T00:00:00.000Z' });
    await upsert({ ...a, email: e2, order_date: '2025-12-10' });
    expect(await stats(c1)).toMatchObject({ orders_count: 0, last_order_at: null });
    expect(await stats(c2)).toEqual({ orders_count: 2, total_spent: { USD: '3.00' }, last_order_at: '2026-02-10T00:00:00.000Z' });
  });

  it('random upserts over a few contacts: every contact ends with the statistics of the orders it holds', async () => {
    let seed = 7;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const emails = [0, 1, 2].map(() => `rand${uid()}@example.com`);
    const ids = [0, 1, 2, 3, 4, 5].map(() => `rand-${uid()}`);
    const final = new Map<string, { email: string; cents: number; day: number }>();
    for (let i = 0; i < 60; i++) {
      const order_id = ids[rnd(ids.length)] as string;
      const email = emails[rnd(emails.length)] as string;
      const cents = 100 + rnd(900);
      const day = 1 + rnd(28);
      const r = await upsert({
        order_id,
        total: (cents / 100).toFixed(2),
        currency: 'USD',
        order_date: `2026-02-${String(day).padStart(2, '0')}`,
        email,
      });
      expect([200, 201]).toContain(r.status);
      final.set(order_id, { email, cents, day });
    }
    for (const email of emails) {
      const list = await http(sb.baseUrl, 'GET', `/v1/contacts?email=${encodeURIComponent(email)}`, { token });
      const c = list.body.data[0];
      if (!c) continue;
      const held = [...final.values()].filter((o) => o.email === email);
      const newest = held.length ? Math.max(...held.map((o) => o.day)) : undefined;
      expect(c.orders_count, email).toBe(held.length);
      expect(c.last_order_at, email).toBe(newest === undefined ? null : `2026-02-${String(newest).padStart(2, '0')}T00:00:00.000Z`);
      if (held.length) expect(c.total_spent.USD, email).toBe((held.reduce((s, o) => s + o.cents, 0) / 100).toFixed(2));
    }
  });
});

describe('field types (open-points)', () => {
  it('a numeric order_id becomes its decimal string; total as a number; currency upper-cased', async () => {
    const r = await upsert(base({ order_id: 987654, total: 12.5, currency: 'eur' }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ order_id: '987654', total: '12.50', currency: 'EUR' });
  });

  it('400 for too many decimals, a negative total, an unknown currency, a bad date, a non-boolean flag', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ total: '1.999' }, 'total'],
      [{ total: '100.5', currency: 'JPY' }, 'total'],
      [{ total: -1 }, 'total'],
      [{ currency: 'XYZ' }, 'currency'],
      [{ order_date: '2026-13-01' }, 'order_date'],
      [{ order_date: '2026-06-22T10:00:00' }, 'order_date'],
      [{ initial_sync: 'yes' }, 'initial_sync'],
      [{ order_id: 'x'.repeat(256) }, 'order_id'],
      [{ order_id: 1e21 }, 'order_id'],
      [{ order_id: 1.5 }, 'order_id'],
      [{ line_items: [{ name: 'A', quantity: 0, price: 1 }] }, 'line_items[0].quantity'],
      [{ coupon: 'X' }, 'coupon'],
    ];
    for (const [over, field] of bad) {
      const o = base(over);
      const r = await upsert(o);
      expect(r.status, field).toBe(400);
      expect(
        r.body.error.details.map((d: { field: string }) => d.field),
        field,
      ).toContain(field);
      if (typeof o.order_id === 'string' && o.order_id.length < 256) expect(await sb.admin.order(o.order_id)).toBeUndefined();
    }
  });
});

describe('rule 7: integration attribution', () => {
  it('header absent, no integration: integration_id null', async () => {
    expect((await upsert(base())).body.integration_id).toBeNull();
  });

  it('403 invalid_integration_token for an unknown header value; nothing stored', async () => {
    const o = base();
    const r = await upsert(o, { 'x-service-integration-token': 'it_wrong' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('invalid_integration_token');
    expect(await sb.admin.order(o.order_id)).toBeUndefined();
  });

  it('header absent and exactly one active integration: the order is tied to it', async () => {
    const local = await withSandbox();
    try {
      const t = await local.tokenWithAllScopes();
      const integ = await local.admin.createIntegration('Shop');
      const r = await http(local.baseUrl, 'POST', '/v1/orders/placed', { token: t, json: base() });
      expect(r.body.integration_id).toBe(integ.id);
      await local.admin.setIntegrationActive(integ.id, false);
      const r2 = await http(local.baseUrl, 'POST', '/v1/orders/placed', { token: t, json: base() });
      expect(r2.body.integration_id).toBeNull();
    } finally {
      await local.close();
    }
  });

  it('header present: must match an active integration; two integrations and no header: no attribution', async () => {
    const local = await withSandbox();
    try {
      const t = await local.tokenWithAllScopes();
      const a = await local.admin.createIntegration('A');
      const b = await local.admin.createIntegration('B');
      const send = (headers?: Record<string, string>) =>
        http(local.baseUrl, 'POST', '/v1/orders/placed', { token: t, json: base(), headers });
      expect((await send({ 'x-service-integration-token': b.token })).body.integration_id).toBe(b.id);
      expect((await send()).body.integration_id).toBeNull();
      await local.admin.setIntegrationActive(a.id, false);
      const r = await send({ 'x-service-integration-token': a.token });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('invalid_integration_token');
      expect((await local.admin.revealIntegrationToken(b.id)).token).toBe(b.token);
    } finally {
      await local.close();
    }
  });
});
