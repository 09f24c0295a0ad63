/** Fault injection (PUT /_sandbox/faults): 500s and resets half after the write, 503 unprocessed, latency, 429 per token. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, tokenRequest, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let script: number[] = [];
let n = 0;

beforeAll(async () => {
  // Fault dice come from `script` when it has values, so each test decides before/after-write outcomes.
  sb = await withSandbox({ random: () => (script.length > 0 ? (script.shift() as number) : Math.random()) });
  token = await sb.tokenWithAllScopes();
});
afterEach(async () => {
  script = [];
  await sb.admin.setFaults({});
});
afterAll(() => sb.close());

const order = () => ({ order_id: `f-${++n}`, total: '1.00', currency: 'USD', order_date: '2026-01-01', email: `f${n}@example.com` });
const upsert = (json: unknown, t = token) => http(sb.baseUrl, 'POST', '/v1/orders/placed', { token: t, json });

describe('fault injection', () => {
  it('unavailable_rate: 503 unavailable with Retry-After, the request not processed', async () => {
    await sb.admin.setFaults({ unavailable_rate: 1 });
    const o = order();
    const r = await upsert(o);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('unavailable');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await sb.admin.order(o.order_id)).toBeUndefined();
  });

  it('error_rate: 500 internal_error, applied before answering for half of them', async () => {
    await sb.admin.setFaults({ error_rate: 1 });
    script = [0, 0.9, 0, 0.1];
    const notApplied = order();
    const applied = order();
    const a = await upsert(notApplied);
    const b = await upsert(applied);
    expect([a.status, b.status]).toEqual([500, 500]);
    expect(a.body.error.code).toBe('internal_error');
    expect(await sb.admin.order(notApplied.order_id)).toBeUndefined();
    expect(await sb.admin.order(applied.order_id)).toBeDefined();
    await sb.admin.setFaults({});
    expect((await upsert(applied)).status).toBe(200);
  });

  it('error_rate 1 without a script: over many requests both halves occur', async () => {
    await sb.admin.setFaults({ error_rate: 1 });
    const orders = Array.from({ length: 30 }, order);
    for (const o of orders) expect((await upsert(o)).status).toBe(500);
    const stored = await Promise.all(orders.map((o) => sb.admin.order(o.order_id)));
    const appliedCount = stored.filter((s) => s !== undefined).length;
    expect(appliedCount).toBeGreaterThan(0);
    expect(appliedCount).toBeLessThan(30);
  });

  it('reset_rate: the connection is destroyed without an answer, applied for half of them', async () => {
    await sb.admin.setFaults({ reset_rate: 1 });
    script = [0, 0.9, 0, 0.1];
    const notApplied = order();
    const applied = order();
    await expect(upsert(notApplied)).rejects.toThrow();
    await expect(upsert(applied)).rejects.toThrow();
    expect(await sb.admin.order(notApplied.order_id)).toBeUndefined();
    expect(await sb.admin.order(applied.order_id)).toBeDefined();
  });

  it('latency_ms delays every answer', async () => {
    await sb.admin.setFaults({ latency_ms: 150 });
    const t0 = performance.now();
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('rate_limit_rps: 429 rate_limited with Retry-After in whole seconds (≥ 1), per token', async () => {
    await sb.admin.setFaults({ rate_limit_rps: 2 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await http(sb.baseUrl, 'GET', '/v1/contacts', { token }));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    const first = limited[0];
    expect(first?.body.error.code).toBe('rate_limited');
    expect(first?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const other = await sb.tokenWithAllScopes();
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: other })).status).toBe(200);
  });

  it('faults also apply to /oauth/token, never to the admin API', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    await sb.admin.setFaults({ unavailable_rate: 1 });
    const r = await tokenRequest(sb.baseUrl, {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(r.status).toBe(503);
    const viaAdmin = await sb.admin.createApiToken(['contacts_read']);
    expect(viaAdmin.token).toMatch(/^sk_/);
  });

  it('{} clears every fault', async () => {
    await sb.admin.setFaults({ unavailable_rate: 1 });
    await sb.admin.setFaults({});
    expect((await upsert(order())).status).toBe(201);
  });

  it('400 for invalid settings', async () => {
    for (const bad of [
      { error_rate: 2 },
      { latency_ms: -1 },
      { rate_limit_rps: 0 },
      { flakiness: 1 },
      { error_rate: 0.6, unavailable_rate: 0.6 },
    ]) {
      const r = await http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });
});

describe('reset', () => {
  it('POST /_sandbox/reset empties the data and the faults, keeps biz_default', async () => {
    const local = await withSandbox();
    try {
      const t = await local.tokenWithAllScopes();
      await http(local.baseUrl, 'POST', '/v1/contacts', { token: t, json: { email: 'gone@example.com' } });
      await local.admin.setFaults({ latency_ms: 10 });
      await local.admin.reset();
      expect((await http(local.baseUrl, 'GET', '/v1/contacts', { token: t })).status).toBe(401);
      const t2 = await local.tokenWithAllScopes();
      expect((await http(local.baseUrl, 'GET', '/v1/contacts', { token: t2 })).body.data).toEqual([]);
      expect((await http(local.baseUrl, 'GET', '/_sandbox/faults')).body).toEqual({});
      expect(await local.admin.outbox()).toEqual([]);
    } finally {
      await local.close();
    }
  });
});
