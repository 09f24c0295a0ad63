/** Spec "POST /v1/events" and open-points "Events". */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let clock = Date.parse('2026-07-03T12:00:00Z');

beforeAll(async () => {
  sb = await withSandbox({ now: () => clock });
  token = await sb.tokenWithAllScopes();
});
afterAll(() => sb.close());

const send = (json: unknown) => http(sb.baseUrl, 'POST', '/v1/events', { token, json });

describe('POST /v1/events', () => {
  it('200 {status: accepted, id} for an event identified by email; the contact is created with consent untouched', async () => {
    const r = await send({ event_type: 'viewed_product', email: 'Events1@example.com', properties: { sku: 'A1' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'accepted', id: expect.stringMatching(/^ev_/) });
    const list = await http(sb.baseUrl, 'GET', '/v1/contacts?email=events1%40example.com', { token });
    expect(list.body.data[0]).toMatchObject({
      email: 'events1@example.com',
      email_consent: 'never_subscribed',
      sms_consent: 'never_subscribed',
    });
  });

  it('finds the existing contact by email, phone or contact_id', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'known-ev@example.com', phone: '+14155550900' } });
    const flow = await sb.admin.createFlow('identify_check');
    expect(flow.id).toBeTruthy();
    for (const who of [{ email: 'known-ev@example.com' }, { phone: '+14155550900' }, { contact_id: c.body.id }]) {
      const r = await send({ event_type: 'identify_check', ...who });
      expect(r.status).toBe(200);
    }
    const runs = await sb.admin.outbox({ type: 'flow_run' });
    expect(runs.filter((e) => e.trigger === 'identify_check').map((e) => e.contact_id)).toEqual([c.body.id, c.body.id, c.body.id]);
  });

  it('404 for an unknown contact_id', async () => {
    const r = await send({ event_type: 'x', contact_id: 'ct_nope' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });

  it('each flow keyed on the event_type records a flow_run with the stored event id; other types none', async () => {
    await sb.admin.createFlow('cart_abandoned', 'Reminder 1');
    await sb.admin.createFlow('cart_abandoned', 'Reminder 2');
    const before = (await sb.admin.outbox({ type: 'flow_run' })).length;
    const r = await send({ event_type: 'cart_abandoned', email: 'cart@example.com' });
    const runs = (await sb.admin.outbox({ type: 'flow_run' })).slice(before);
    expect(runs).toHaveLength(2);
    expect(runs.every((e) => e.event_id === r.body.id && e.trigger === 'cart_abandoned')).toBe(true);
    const other = await send({ event_type: 'no_flow_here', email: 'cart@example.com' });
    expect(other.status).toBe(200);
    expect((await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.event_id === other.body.id)).toEqual([]);
  });

  it('event_id: a repeat within 24 h answers the first id and is not processed again; after 24 h it is new', async () => {
    await sb.admin.createFlow('dedupe_me');
    const first = await send({ event_type: 'dedupe_me', email: 'dd@example.com', event_id: 'evt-1' });
    const again = await send({ event_type: 'dedupe_me', email: 'dd@example.com', event_id: 'evt-1' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect((await sb.admin.outbox({ type: 'flow_run' })).filter((e) => e.trigger === 'dedupe_me')).toHaveLength(1);
    clock += 24 * 3600 * 1000 + 1;
    const later = await send({ event_type: 'dedupe_me', email: 'dd@example.com', event_id: 'evt-1' });
    expect(later.body.id).not.toBe(first.body.id);
  });

  it('400: event_type required (1–255 chars), one of email/phone/contact_id, properties an object ≤ 64 KiB, occurred_at RFC 3339, unknown fields', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ email: 'a@example.com' }, 'event_type'],
      [{ event_type: '', email: 'a@example.com' }, 'event_type'],
      [{ event_type: 'x'.repeat(256), email: 'a@example.com' }, 'event_type'],
      [{ event_type: 'x' }, 'email'],
      [{ event_type: 'x', email: 'a@example.com', properties: [1] }, 'properties'],
      [{ event_type: 'x', email: 'a@example.com', properties: { big: 'y'.repeat(70 * 1024) } }, 'properties'],
      [{ event_type: 'x', email: 'a@example.com', occurred_at: 'yesterday' }, 'occurred_at'],
      [{ event_type: 'x', email: 'a@example.com', value: 3 }, 'value'],
    ];
    for (const [body, field] of bad) {
      const r = await send(body);
      expect(r.status, field).toBe(400);
      expect(
        r.body.error.details.map((d: { field: string }) => d.field),
        field,
      ).toContain(field);
    }
  });
});
