/** Sandbox flows on the admin API: list with runs, an order trigger, enable/disable, delete; over real HTTP. */
import { describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;

// biome-ignore lint/suspicious/noExplicitAny: admin answers are loosely typed records
const admin = async (method: string, path: string, json?: unknown): Promise<any> => http(sb.baseUrl, method, `/_sandbox${path}`, { json });

useSandbox((s) => ({ sb, token } = s));

const order = (order_id: string) =>
  http(sb.baseUrl, 'POST', '/v1/orders/placed', {
    token,
    json: { order_id, total: '10.00', currency: 'EUR', order_date: '2026-11-26', email: 'flow@example.com' },
  });

describe('flows', () => {
  it('an event flow runs on its event type, records its id on the flow_run, and counts its runs', async () => {
    const f = (await admin('POST', '/flows', { event_type: 'cart_abandoned', name: 'Cart reminder' })).body;
    expect(f).toMatchObject({ name: 'Cart reminder', trigger: 'event', event_type: 'cart_abandoned', enabled: true });
    const ev = await http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'cart_abandoned', email: 'flow@example.com' } });
    expect(ev.status).toBe(200);
    const runs = await sb.admin.outbox({ type: 'flow_run' });
    expect(runs.at(-1)).toMatchObject({ flow_id: f.id, trigger: 'cart_abandoned', event_id: (ev.body as { id: string }).id });
    const list = (await admin('GET', '/flows')).body;
    expect(list.total).toBe(list.data.length);
    expect(list.data.find((x: { id: string }) => x.id === f.id)).toMatchObject({ runs: 1, enabled: true });
    expect(list.data.find((x: { id: string }) => x.id === f.id).last_run_at).toMatch(/Z$/);
  });

  it('an order flow runs on order_placed (not on an update, nor with initial_sync)', async () => {
    const f = (await admin('POST', '/flows', { order_trigger: 'order_placed', name: 'Thank you' })).body;
    expect(f).toMatchObject({ trigger: 'order', event_type: 'order_placed' });
    await order('F-1');
    await order('F-1');
    const mine = (await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.flow_id === f.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ order_id: 'F-1', trigger: 'order_placed' });
  });

  it('a disabled flow runs nothing until enabled again; a deleted one is gone and its runs stay', async () => {
    const f = (await admin('POST', '/flows', { event_type: 'toggle_me' })).body;
    expect(f.name).toBe('Flow on toggle_me');
    const off = await admin('PATCH', `/flows/${f.id}`, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, runs: 0 });
    const send = () => http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'toggle_me', email: 'flow@example.com' } });
    await send();
    expect((await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.flow_id === f.id)).toHaveLength(0);
    await admin('PATCH', `/flows/${f.id}`, { enabled: true });
    await send();
    expect((await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.flow_id === f.id)).toHaveLength(1);
    expect((await admin('DELETE', `/flows/${f.id}`)).status).toBe(204);
    expect((await admin('GET', '/flows')).body.data.some((x: { id: string }) => x.id === f.id)).toBe(false);
    expect((await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.flow_id === f.id)).toHaveLength(1);
    expect((await admin('DELETE', `/flows/${f.id}`)).status).toBe(404);
  });

  it('refuses a flow with both or neither trigger, an unknown order trigger and a non-boolean enabled', async () => {
    expect((await admin('POST', '/flows', { name: 'x' })).status).toBe(400);
    expect((await admin('POST', '/flows', { event_type: 'a', order_trigger: 'order_placed' })).status).toBe(400);
    const bad = await admin('POST', '/flows', { order_trigger: 'order_shipped' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('order_trigger');
    const f = (await admin('POST', '/flows', { event_type: 'b' })).body;
    expect((await admin('PATCH', `/flows/${f.id}`, { enabled: 'yes' })).status).toBe(400);
  });
});
