/** Date-times at the edges of RFC 3339 (open-points "Timestamps", order_date, occurred_at, updated_since). */
import { describe, expect, it } from 'vitest';
import { isRfc3339DateTime, orderDateToUtc, rfc3339ToMs } from '../../src/contract/formats.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

const order = (order_id: string, order_date: string) =>
  http(sb.baseUrl, 'POST', '/v1/orders/placed', {
    token,
    json: { order_id, total: '1.00', currency: 'USD', order_date, email: `${order_id}@example.com` },
  });

describe('leap seconds (RFC 3339 allows :60; JavaScript dates do not)', () => {
  it('an order dated 23:59:60Z is stored (201) as the instant after 23:59:59, not answered 500', async () => {
    const r = await order('leap-1', '2026-06-30T23:59:60Z');
    expect(r.status).toBe(201);
    expect(r.body.order_date).toBe('2026-07-01T00:00:00Z');
    const c = await http(sb.baseUrl, 'GET', `/v1/contacts/${r.body.contact_id}`, { token });
    expect(c.body.last_order_at).toBe('2026-07-01T00:00:00.000Z');
  });

  it('a leap second with an offset and a fraction', async () => {
    const r = await order('leap-2', '2026-07-01T01:59:60.250+02:00');
    expect(r.status).toBe(201);
    expect(r.body.order_date).toBe('2026-07-01T00:00:00.250Z');
  });

  it('an event with occurred_at at a leap second is accepted (200)', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/events', {
      token,
      json: { event_type: 'leap', email: 'leap-event@example.com', occurred_at: '2026-12-31T23:59:60Z' },
    });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('accepted');
  });

  it('GET /v1/contacts?updated_since= at a leap second filters (nothing is newer than the far future)', async () => {
    await order('leap-3', '2026-06-22');
    const all = await http(sb.baseUrl, 'GET', '/v1/contacts?updated_since=2000-12-31T23:59:60Z', { token });
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(0);
    const none = await http(sb.baseUrl, 'GET', '/v1/contacts?updated_since=2998-12-31T23:59:60Z', { token });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });
});

describe('contract date helpers', () => {
  it('orderDateToUtc: lower-case t/z, space separator, offsets, fractions, date only', () => {
    expect(orderDateToUtc('2026-06-22t10:00:00z')).toBe('2026-06-22T10:00:00Z');
    expect(orderDateToUtc('2026-06-22 10:00:00+02:00')).toBe('2026-06-22T08:00:00Z');
    expect(orderDateToUtc('2026-06-22T10:00:00.5Z')).toBe('2026-06-22T10:00:00.500Z');
    expect(orderDateToUtc('2026-06-22T10:00:00Z')).toBe('2026-06-22T10:00:00Z');
    expect(orderDateToUtc('2026-06-22')).toBe('2026-06-22T00:00:00Z');
  });

  it('calendar: leap years of the proleptic Gregorian calendar, also for years below 100', () => {
    expect(isRfc3339DateTime('2024-02-29T00:00:00Z')).toBe(true);
    expect(isRfc3339DateTime('2026-02-29T00:00:00Z')).toBe(false);
    expect(isRfc3339DateTime('1900-02-29T00:00:00Z')).toBe(false);
    expect(isRfc3339DateTime('2000-02-29T00:00:00Z')).toBe(true);
    expect(isRfc3339DateTime('0004-02-29T00:00:00Z')).toBe(true);
    expect(isRfc3339DateTime('0100-02-29T00:00:00Z')).toBe(false);
    expect(isRfc3339DateTime('2026-04-31T00:00:00Z')).toBe(false);
    expect(Number.isNaN(rfc3339ToMs('0004-02-29T00:00:00Z'))).toBe(false);
    expect(rfc3339ToMs('not a date')).toBeNaN();
  });
});
