/** The sandbox keeps date-times in UTC to the millisecond, cut after the third fractional digit (docs/sandbox.md "Dates and times"). */
import { describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

describe('date-time precision', () => {
  it('an order_date with nine fractional digits and an offset is answered in UTC, cut to the millisecond', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: {
        order_id: 'DT-1',
        total: '1.00',
        currency: 'EUR',
        order_date: '2026-01-01T10:00:00.999999999+02:00',
        email: 'dt@example.com',
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.order_date).toBe('2026-01-01T08:00:00.999Z');
  });
});
