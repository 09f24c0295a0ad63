/**
 * Totals of any length are kept exactly (issue 36): 19 and more integer digits were refused as
 * "must be a decimal like 49.90"; the spec bounds a total by nothing but its decimals. Sent and
 * stored as written, never through a float, and summed exactly into the contact's total_spent.
 */
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';

const suite = cliSuite();

describe('svc orders import: long totals', () => {
  it('19, 20 and 30 integer digits are stored exactly, and summed exactly', async () => {
    const totals = ['1234567890123456789.99', '98765432109876543210.01', '123456789012345678901234567890', '0.50'];
    const lines = ['order_id,total,currency,order_date,email', ...totals.map((t, i) => `L-${i + 1},${t},EUR,2024-01-01,long@example.com`)];
    const file = suite.file('orders.csv', `${lines.join('\n')}\n`);
    const r = await suite.svc(['orders', 'import', '--live', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 4, created: 4, rejected: 0 });
    const stored = ['1234567890123456789.99', '98765432109876543210.01', '123456789012345678901234567890.00', '0.50'];
    for (const [i, t] of stored.entries()) expect((await suite.sb.admin.order(`L-${i + 1}`))?.total).toBe(t);
    const list = await suite.svc(['contacts', 'list', '--email', 'long@example.com', '--json']);
    const [contact] = JSON.parse(list.stdout);
    expect(contact.total_spent).toEqual({ EUR: '123456789112345678901234567890.50' });
  });

  it('orders upsert takes a long --total as written', async () => {
    const r = await suite.svc([
      'orders',
      'upsert',
      '--order-id',
      'U-1',
      '--total',
      '12345678901234567890123.45',
      '--currency',
      'EUR',
      '--order-date',
      '2024-01-01',
      '--email',
      'u@example.com',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).order.total).toBe('12345678901234567890123.45');
  });
});
