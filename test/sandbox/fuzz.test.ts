/** Random and hostile bodies on every write endpoint: always a 4xx (or a success), never a 500, and the server stays up. */
import { beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let contactId: string;

useSandbox((s) => ({ sb, token } = s));
beforeAll(async () => {
  contactId = (await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'fuzz@example.com' } })).body.id;
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = [
  'order_id',
  'total',
  'currency',
  'order_date',
  'email',
  'phone',
  'accepts_sms_marketing',
  'initial_sync',
  'line_items',
  'event_type',
  'properties',
  'contact_id',
  'email_consent',
  'sms_consent',
  'send_welcome_sms',
  'first_name',
  '__proto__',
  'constructor',
  '',
];
const ODD = [
  '',
  ' ',
  '\u202e',
  '𝕏',
  'a'.repeat(300),
  '+14155550100',
  'a@example.com',
  'USD',
  '2026-02-30',
  '1e3',
  '-1',
  '0.001',
  'subscribed',
  'pending',
  'null',
];

function value(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * 9);
  if (k === 0) return null;
  if (k === 1) return r() < 0.5;
  if (k === 2) return [0, -1, 1.5, 1e21, Number.MAX_SAFE_INTEGER + 2, 0.1 + 0.2][Math.floor(r() * 6)];
  if (k <= 5) return ODD[Math.floor(r() * ODD.length)];
  if (depth > 3) return 'deep';
  if (k === 6) return Array.from({ length: Math.floor(r() * 3) }, () => value(r, depth + 1));
  return object(r, depth + 1);
}

function object(r: () => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) o[FIELDS[Math.floor(r() * FIELDS.length)] as string] = value(r, depth);
  return o;
}

describe('fuzz', () => {
  it('300 random bodies across the write endpoints answer 2xx or 4xx, never 5xx', async () => {
    const r = rng(20261125);
    const targets: Array<[string, string]> = [
      ['POST', '/v1/orders/placed'],
      ['POST', '/v1/events'],
      ['POST', '/v1/contacts'],
      ['PATCH', `/v1/contacts/${contactId}`],
      ['POST', `/v1/contacts/${contactId}/unsubscribe`],
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const [method, path] = targets[i % targets.length] as [string, string];
      const body = r() < 0.85 ? JSON.stringify(object(r, 0)) : JSON.stringify(value(r, 0));
      const res = await http(sb.baseUrl, method, path, { token, raw: body, headers: { 'content-type': 'application/json' } });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, `${method} ${path} ${body}`).toBeLessThan(500);
      if (res.status >= 400) expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
    expect(statuses.get(400)).toBeGreaterThan(100);
  });

  it('malformed paths and queries answer 4xx in the service body', async () => {
    for (const path of [
      '/v1/contacts/%E0%A4%A',
      '/v1/contacts?cursor=%ZZ',
      `/v1/contacts/${'x'.repeat(2000)}`,
      '/v1/contacts?limit=&email_consent=',
    ]) {
      const res = await http(sb.baseUrl, 'GET', path, { token });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body?.error?.code, path).toBeTruthy();
    }
  });
});
