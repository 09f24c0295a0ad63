import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;
const base = ['orders', 'upsert', '--order-id', 'U-1', '--total', '49.9', '--currency', 'eur', '--order-date', '2024-03-01'];

describe('svc orders upsert', () => {
  it('creates (201) then updates (200), in the contract JSON shape', async () => {
    const first = await runCli([...base, '--email', 'Ada@Example.com', '--json'], { env: env() });
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout);
    expect(doc).toMatchObject({
      outcome: 'created',
      status: 201,
      order: { order_id: 'U-1', total: '49.90', currency: 'EUR', email: 'ada@example.com' },
    });
    const second = await runCli([...base, '--email', 'ada@example.com', '--json'], { env: env() });
    expect(JSON.parse(second.stdout)).toMatchObject({ outcome: 'updated', status: 200 });
  });

  it('prints the order and the outcome for people', async () => {
    const r = await runCli([...base, '--phone', '(415) 555-0100', '--default-country', 'US', '--accepts-sms-marketing'], {
      env: env({ NO_COLOR: '1' }),
      tty: true,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/order_id\s+U-1/);
    expect(r.stdout).toMatch(/phone\s+\+14155550100/);
    expect(r.stderr).toMatch(/order U-1 created \(201\)/);
  });

  it('reads the order as JSON from --input - and sends the integration token from the environment', async () => {
    const integration = await suite.sb.admin.createIntegration('Shop');
    await suite.sb.admin.createIntegration('Other');
    const order = {
      order_id: 'U-2',
      total: '10.00',
      currency: 'USD',
      order_date: '2024-03-02T10:00:00Z',
      email: 'x@example.com',
      line_items: [{ name: 'Mug', quantity: 2, price: '5.00' }],
    };
    const r = await runCli(['orders', 'upsert', '--input', '-', '--json'], {
      env: env({ SVC_INTEGRATION_TOKEN: integration.token }),
      stdin: JSON.stringify(order),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).order).toMatchObject({
      integration_id: integration.id,
      line_items: [{ name: 'Mug', quantity: 2, price: '5.00' }],
    });
    expect(r.stdout + r.stderr).not.toContain(integration.token);
    const bad = await runCli(['orders', 'upsert', '--input', '-'], {
      env: env({ SVC_INTEGRATION_TOKEN: 'wrong' }),
      stdin: JSON.stringify({ ...order, order_id: 'U-3' }),
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Integration-Token/i);
    expect(bad.stderr).not.toContain('wrong');
  });

  it('reads the integration token from stdin with --integration-token-stdin', async () => {
    const integration = await suite.sb.admin.createIntegration('Shop');
    await suite.sb.admin.createIntegration('Other');
    const file = join(suite.tmp.dir, 'o.json');
    writeFileSync(file, JSON.stringify({ order_id: 'U-4', total: 1, currency: 'EUR', order_date: '2024-03-01', email: 'y@example.com' }));
    const r = await runCli(['orders', 'upsert', '--input', file, '--integration-token-stdin', '--json'], {
      env: env(),
      stdin: `${integration.token}\n`,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).order.integration_id).toBe(integration.id);
  });

  it('refuses invalid orders before sending (exit 2), naming the flag', async () => {
    const noContact = await runCli(base, { env: env() });
    expect(noContact.code).toBe(2);
    expect(noContact.stderr).toMatch(/one of email or phone is required/);
    const badTotal = await runCli(
      [
        'orders',
        'upsert',
        '--order-id',
        'U-5',
        '--total',
        '1.234',
        '--currency',
        'EUR',
        '--order-date',
        '2024-03-01',
        '--email',
        'a@example.com',
      ],
      { env: env() },
    );
    expect(badTotal.code).toBe(2);
    expect(badTotal.stderr).toMatch(/--total has 3 decimals/);
    const oneDecimal = await runCli(
      [
        'orders',
        'upsert',
        '--order-id',
        'one-decimal',
        '--total',
        '1.5',
        '--currency',
        'JPY',
        '--order-date',
        '2026-01-01',
        '--email',
        'd@example.com',
      ],
      { env: env() },
    );
    expect(oneDecimal.stderr).toMatch(/--total has 1 decimal;/);
    const sms = await runCli([...base, '--email', 'a@example.com', '--accepts-sms-marketing'], { env: env() });
    expect(sms.code).toBe(2);
    expect(sms.stderr).toMatch(/--phone is required when accepts_sms_marketing/);
    expect(await suite.sb.admin.order('U-1')).toBeUndefined();
  });
});
