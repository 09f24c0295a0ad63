import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const fixture = (name: string) => join(import.meta.dirname, '../../fixtures', name);

let sb: TestSandbox;
let token: string;
let tmp: { dir: string; cleanup: () => void };
const env = () => ({ SVC_CONFIG_DIR: tmp.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token });

beforeAll(async () => {
  sb = await withSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(async () => {
  await sb.admin.reset();
  token = await sb.tokenWithAllScopes();
  tmp = tempConfigDir();
});
afterEach(() => tmp.cleanup());

function parseReport(path: string): Array<Record<string, string>> {
  const [head, ...rows] = readFileSync(path, 'utf8').trimEnd().split('\n');
  const cols = (head as string).split(',');
  return rows.map((r) => {
    const cells = r.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')) ?? [];
    return Object.fromEntries(cols.map((c, i) => [c, cells[i] ?? '']));
  });
}

describe('svc orders import', () => {
  it('reports exact counts on a mixed file (new, repeated, invalid rows) and exits 4', async () => {
    const report = join(tmp.dir, 'report.csv');
    const r = await runCli(['orders', 'import', fixture('orders-mixed.csv'), '--json', '--report', report, '--concurrency', '8'], {
      env: env(),
    });
    expect(r.stderr).toMatch(/rejected/);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 13, created: 4, updated: 2, unconfirmed: 0, rejected: 7, failed: 0, resumed: 0 });
    const rows = parseReport(report);
    expect(rows.map((x) => [x.line, x.order_id, x.outcome, x.status])).toEqual([
      ['2', 'M-1', 'created', '201'],
      ['3', 'M-2', 'created', '201'],
      ['4', 'M-3', 'created', '201'],
      ['5', 'M-1', 'updated', '200'],
      ['6', 'M-4', 'rejected', ''],
      ['7', 'M-5', 'rejected', ''],
      ['8', 'M-6', 'rejected', ''],
      ['9', 'M-7', 'rejected', ''],
      ['10', 'M-8', 'rejected', ''],
      ['11', 'M-9', 'created', '201'],
      ['12', 'M-2', 'updated', '200'],
      ['13', 'M-10', 'rejected', ''],
      ['14', 'M-11', 'rejected', ''],
    ]);
    expect(rows[4]?.message).toMatch(/^total: /);
    expect(rows[5]?.message).toMatch(/^currency: /);
    expect(rows[6]?.message).toMatch(/one of email or phone/);
    expect(rows[7]?.message).toMatch(/^order_date: /);
    expect(rows[8]?.message).toMatch(/^phone: is required when accepts_sms_marketing/);
    expect(rows[11]?.message).toMatch(/^total: has 3 decimals/);
    expect(rows[12]?.message).toMatch(/^accepts_email_marketing: must be true\/false/);
    const m1 = await sb.admin.order('M-1');
    expect(m1?.total).toBe('59.90');
    const m9 = await sb.admin.order('M-9');
    expect(m9?.order_date).toMatch(/^2024-03-09T14:30:00/);
    expect(m9?.total).toBe('15.50');
  });

  it('imports a file twice: all 201, then all 200', async () => {
    const file = join(tmp.dir, 'twice.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 60; i++) lines.push(`T-${i},${i}.00,EUR,2024-01-${String((i % 28) + 1).padStart(2, '0')},c${i % 7}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const first = await runCli(['orders', 'import', file, '--json'], { env: env() });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: 60, created: 60, updated: 0, rejected: 0, failed: 0 });
    const second = await runCli(['orders', 'import', file, '--json'], { env: env() });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 60, created: 0, updated: 60, rejected: 0, failed: 0 });
  });

  it('sends a repeated order_id one at a time under concurrency 32: exactly one 201', async () => {
    const file = join(tmp.dir, 'dups.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 40; i++) lines.push(`D-1,${i}.00,EUR,2024-01-01,dup@example.com`);
    for (let i = 1; i <= 40; i++) lines.push(`E-${i},1.00,EUR,2024-01-01,e@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const report = join(tmp.dir, 'r.csv');
    const r = await runCli(['orders', 'import', file, '--json', '--concurrency', '32', '--report', report], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 80, created: 41, updated: 39 });
    const d = parseReport(report).filter((x) => x.order_id === 'D-1');
    expect(d[0]).toMatchObject({ line: '2', outcome: 'created' });
    expect(d.slice(1).every((x) => x.outcome === 'updated')).toBe(true);
    // the last line in the file wins
    expect((await sb.admin.order('D-1'))?.total).toBe('40.00');
  });
});
