/**
 * The request log tied to what each request did (issue 37): real durations, the records and
 * side effects of a request by person, the way back from each record and side effect, whether an
 * injected 500's write was applied, search, the last use of each credential, one event, one flow.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let script: number[] = [];
useSandbox((s) => ({ sb, token } = s), { random: () => (script.length > 0 ? (script.shift() as number) : Math.random()) });
afterEach(async () => {
  script = [];
  await sb.admin.setFaults({});
});

// biome-ignore lint/suspicious/noExplicitAny: admin answers are loosely typed records
const admin = async (path: string): Promise<any> => {
  const r = await http(sb.baseUrl, 'GET', `/_sandbox${path}`);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const idOf = (r: { headers: Headers }) => r.headers.get('x-request-id') as string;

describe('durations', () => {
  it('runs from the arrival to the last byte: 300 ms of injected latency shows as at least 300 ms', async () => {
    await sb.admin.setFaults({ latency_ms: 300 });
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'slow@example.com' } });
    expect(r.status).toBe(201);
    const e = await admin(`/requests/${idOf(r)}`);
    expect(e.duration_ms).toBeGreaterThanOrEqual(300);
    expect(e.duration_ms).toBeLessThan(30_000);
  });

  it('is not 0 for a plain request either', async () => {
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
    expect((await admin(`/requests/${idOf(r)}`)).duration_ms).toBeGreaterThan(0);
  });
});

describe('effects of a request, both ways', () => {
  it('a contact subscribed to SMS: the contact created by e-mail and phone, the welcome SMS, both linking back', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: 'ann@example.com', phone: '+33612345678', sms_consent: 'subscribed' },
    });
    expect(r.status).toBe(201);
    const id = idOf(r);
    const contactId = r.body.id;
    const e = await admin(`/requests/${id}`);
    expect(e.effects.records).toEqual([
      {
        type: 'contact',
        action: 'created',
        id: contactId,
        business_id: 'biz_default',
        person: { contact_id: contactId, email: 'ann@example.com', phone: '+33612345678' },
      },
    ]);
    expect(e.effects.side_effects).toHaveLength(1);
    expect(e.effects.side_effects[0]).toMatchObject({ type: 'welcome_sms', contact_id: contactId, person: { email: 'ann@example.com' } });
    const contact = await admin(`/contacts/${contactId}`);
    expect(contact).toMatchObject({ request_id: id, last_request_id: id });
    const outbox = await admin(`/outbox?contact_id=${contactId}`);
    expect(outbox.data[0].request_id).toBe(id);

    const patch = await http(sb.baseUrl, 'PATCH', `/v1/contacts/${contactId}`, { token, json: { first_name: 'Ann' } });
    expect((await admin(`/requests/${idOf(patch)}`)).effects.records[0]).toMatchObject({ action: 'updated', id: contactId });
    expect(await admin(`/contacts/${contactId}`)).toMatchObject({ request_id: id, last_request_id: idOf(patch) });
  });

  it('an order: the order and its new contact, the flow trigger and attribution; the order links back', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { order_id: 'eff-1', total: '12.00', currency: 'EUR', order_date: '2026-01-02', email: 'bob@example.com' },
    });
    expect(r.status).toBe(201);
    const e = await admin(`/requests/${idOf(r)}`);
    const kinds = e.effects.records.map((x: { type: string; action: string }) => `${x.type} ${x.action}`);
    expect(kinds).toEqual(['contact created', 'order created']);
    expect(e.effects.records[1]).toMatchObject({ id: 'eff-1', person: { email: 'bob@example.com' } });
    expect(e.effects.side_effects.map((s: { type: string }) => s.type)).toEqual(['flow_trigger', 'revenue_attribution']);
    expect(e.effects.side_effects[1].person.email).toBe('bob@example.com');
    expect(await admin('/orders/eff-1')).toMatchObject({ request_id: idOf(r), last_request_id: idOf(r) });
  });

  it('an event: stored with its request, its flow run listed; GET /_sandbox/events/{id} names the person', async () => {
    const flow = await sb.admin.createFlow('cart_abandoned', 'Cart reminder');
    const r = await http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'cart_abandoned', email: 'cat@example.com' } });
    expect(r.status).toBe(200);
    const e = await admin(`/requests/${idOf(r)}`);
    const event = e.effects.records.find((x: { type: string }) => x.type === 'event');
    expect(event).toMatchObject({ action: 'created', person: { email: 'cat@example.com' } });
    expect(e.effects.side_effects).toEqual([expect.objectContaining({ type: 'flow_run', flow_id: flow.id, event_id: event.id })]);
    const page = await admin(`/events/${event.id}`);
    expect(page).toMatchObject({ id: event.id, event_type: 'cart_abandoned', request_id: idOf(r), person: { email: 'cat@example.com' } });
    expect(page.side_effects).toEqual([expect.objectContaining({ type: 'flow_run', flow_id: flow.id, request_id: idOf(r) })]);
    expect((await admin('/events')).data[0].request_id).toBe(idOf(r));
    expect((await http(sb.baseUrl, 'GET', '/_sandbox/events/ev_nope')).status).toBe(404);
    expect(await admin(`/flows/${flow.id}`)).toMatchObject({ id: flow.id, name: 'Cart reminder', runs: 1, enabled: true });
  });

  it('a deleted contact is listed as deleted, with its e-mail; a refused write lists nothing', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'gone@example.com' } });
    const del = await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token });
    expect((await admin(`/requests/${idOf(del)}`)).effects.records).toEqual([
      expect.objectContaining({ type: 'contact', action: 'deleted', person: expect.objectContaining({ email: 'gone@example.com' }) }),
    ]);
    const dup = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'ann@example.com' } });
    expect(dup.status).toBe(409);
    expect((await admin(`/requests/${idOf(dup)}`)).effects).toEqual({ records: [], side_effects: [] });
  });
});

describe('injected 500: write applied, as the sandbox knows it', () => {
  it('says yes when the fault came after the write, no when before', async () => {
    await sb.admin.setFaults({ error_rate: 1 });
    script = [0, 0.9, 0, 0.1];
    const order = (id: string) => ({ order_id: id, total: '1.00', currency: 'USD', order_date: '2026-01-01', email: `${id}@example.com` });
    const before = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token, json: order('wa-no') });
    const after = await http(sb.baseUrl, 'POST', '/v1/orders/placed', { token, json: order('wa-yes') });
    expect([before.status, after.status]).toEqual([500, 500]);
    const no = await admin(`/requests/${idOf(before)}`);
    const yes = await admin(`/requests/${idOf(after)}`);
    expect(no).toMatchObject({ write_applied: false, fault: { kind: 'error', write_applied: false } });
    expect(no.explanation.rule).toContain('the write was not applied');
    expect(no.effects.records).toEqual([]);
    expect(yes).toMatchObject({ write_applied: true, fault: { kind: 'error', write_applied: true } });
    expect(yes.explanation.rule).toContain('the write was applied');
    expect(yes.effects.records.map((x: { id: string }) => x.id)).toContain('wa-yes');
    expect(JSON.stringify([no.explanation, yes.explanation])).not.toContain('may or may not');
  });

  it('a read with an injected 500 has no write to speak of', async () => {
    await sb.admin.setFaults({ error_rate: 1 });
    script = [0, 0.9];
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
    expect(r.status).toBe(500);
    expect(await admin(`/requests/${idOf(r)}`)).toMatchObject({ write_applied: null, fault: { kind: 'error', write_applied: null } });
  });
});

describe('search and credentials', () => {
  it('finds a request by an e-mail in its body, a phone, an id and body text; never by a secret', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: 'Needle.Person@example.com', phone: '+33698765432', first_name: 'Zebulon' },
    });
    const id = idOf(r);
    const find = async (text: string) =>
      (await admin(`/requests?search=${encodeURIComponent(text)}&limit=100`)).data.map((e: { request_id: string }) => e.request_id);
    expect(await find('needle.person@example.com')).toEqual([id]);
    expect(await find('+33698765432')).toContain(id);
    expect(await find('zebulon')).toEqual([id]);
    expect(await find(r.body.id)).toContain(id);
    expect(await find(id)).toEqual([id]);
    expect(await find(token)).toEqual([]);
  });

  it('each API token and OAuth app says when it was last used and by which request, linked to its requests', async () => {
    const t = await sb.admin.createApiToken(['contacts_read']);
    const before = (await admin('/api-tokens')).data.find((x: { id: string }) => x.id === t.id);
    expect(before).toMatchObject({ last_used_at: null, last_request_id: null, requests: `/_sandbox/requests?credential=${t.id}` });
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.token });
    const after = (await admin('/api-tokens')).data.find((x: { id: string }) => x.id === t.id);
    expect(after.last_request_id).toBe(idOf(r));
    expect(Date.parse(after.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    const listed = await admin(after.requests.replace('/_sandbox', ''));
    expect(listed.data.map((e: { request_id: string }) => e.request_id)).toEqual([idOf(r)]);

    const app = await sb.admin.createApp(['contacts_read']);
    const tok = await http(sb.baseUrl, 'POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const apps = (await admin('/apps')).data.find((a: { client_id: string }) => a.client_id === app.client_id);
    expect(apps).toMatchObject({ last_request_id: idOf(tok), requests: `/_sandbox/requests?credential=${app.client_id}` });
  });
});
