import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false, sandbox: { tokenTtlSeconds: 2 } });

describe('svc orders import under faults', () => {
  it('5,000 rows through 500s, dropped connections, 429s and 2-second tokens: every order once, counts add up, none failed', async () => {
    const n = 5000;
    const file = join(fx.tmp.dir, 'orders.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= n; i++) lines.push(`F-${i},${(i % 500) + 1}.25,EUR,2024-01-01,f${i % 300}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const app = await fx.sb.admin.createApp(['orders_write', 'contacts_read']);
    await fx.sb.admin.setFaults({ error_rate: 0.1, reset_rate: 0.05, rate_limit_rps: 500 });
    const report = join(fx.tmp.dir, 'report.csv');
    const started = Date.now();
    const r = await runCli(['orders', 'import', '--live', file, '--json', '--report', report, '--concurrency', '32'], {
      env: fx.env({ SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret }),
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`import took ${seconds} s`);
    await fx.sb.admin.setFaults({});
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.rows).toBe(n);
    expect(s.failed).toBe(0);
    expect(s.rejected).toBe(0);
    expect(s.created + s.updated + s.unconfirmed + s.rejected + s.failed).toBe(n);
    // A 500 that applied the write, or a dropped connection, then a 200: unconfirmed, never updated.
    expect(s.unconfirmed).toBeGreaterThan(0);
    expect(s.updated).toBe(0);
    // Their lines are data, in order, the same as the report's unconfirmed rows.
    const reportLines = readFileSync(report, 'utf8').trimEnd().split('\n').slice(1);
    expect(s.unconfirmed_lines).toEqual(reportLines.filter((l) => l.split(',')[2] === 'unconfirmed').map((l) => Number(l.split(',')[0])));
    expect(s.failed_lines).toEqual([]);
    // Every order present exactly once: the 300 contacts' order counts add up to n (one listing of
    // them all, not a run per contact).
    const list = await runCli(['contacts', 'list', '--all', '--page-size', '250', '--json'], {
      env: fx.env({ SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret }),
    });
    expect(list.code, list.stderr).toBe(0);
    const contacts = (JSON.parse(list.stdout) as Array<{ email: string; orders_count: number }>).filter((c) =>
      /^f\d+@example\.com$/.test(c.email),
    );
    expect(new Set(contacts.map((c) => c.email)).size).toBe(300);
    expect(contacts.reduce((sum, c) => sum + c.orders_count, 0)).toBe(n);
    for (const i of [1, 777, 2500, 4999, 5000]) expect((await fx.sb.admin.order(`F-${i}`))?.total).toBe(`${(i % 500) + 1}.25`);
    expect(seconds).toBeLessThan(60);
  }, 90_000);

  it('503s (not processed) are retried row by row and do not throttle the whole import', async () => {
    const n = 600;
    const file = join(fx.tmp.dir, 'orders-503.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= n; i++) lines.push(`U-${i},10.00,EUR,2024-01-01,u${i % 50}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const token = await fx.sb.tokenWithAllScopes();
    await fx.sb.admin.setFaults({ unavailable_rate: 0.1 });
    const started = Date.now();
    const r = await runCli(['orders', 'import', '--live', file, '--json'], {
      env: fx.env({ SVC_TOKEN: token }),
    });
    const seconds = (Date.now() - started) / 1000;
    await fx.sb.admin.setFaults({});
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: n, created: n, updated: 0, unconfirmed: 0, failed: 0 });
    // Each 503 makes its own request wait Retry-After (1 s). Throttling every slot on 503s, as
    // for a 429, took minutes for this file.
    expect(seconds).toBeLessThan(25);
  }, 60_000);
});
