import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { importSummary } from '../helpers/summary.js';

const fixture = (name: string) => join(import.meta.dirname, '../../fixtures', name);

const suite = cliSuite();
const env = suite.env;

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
    const report = join(suite.tmp.dir, 'report.csv');
    const r = await runCli(
      ['orders', 'import', '--live', fixture('orders-mixed.csv'), '--json', '--report', report, '--concurrency', '8'],
      {
        env: env(),
      },
    );
    expect(r.stderr).toMatch(/rejected/);
    expect(r.code).toBe(4);
    // The line numbers of the rows to look at are data, named as in events send's summary.
    expect(JSON.parse(r.stdout)).toEqual(
      importSummary({ rows: 13, created: 4, updated: 2, rejected: 7, rejected_lines: [6, 7, 8, 9, 10, 13, 14] }),
    );
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
    expect(rows[6]?.message).toBe('email: order M-6 has no e-mail and no phone (the service ties each order to a contact by one of them)');
    expect(rows[7]?.message).toMatch(/^order_date: /);
    expect(rows[8]?.message).toMatch(/^phone: is required when accepts_sms_marketing/);
    expect(rows[11]?.message).toMatch(/^total: has 3 decimals/);
    expect(rows[12]?.message).toMatch(/^accepts_email_marketing: must be true\/false/);
    const m1 = await suite.sb.admin.order('M-1');
    expect(m1?.total).toBe('59.90');
    const m9 = await suite.sb.admin.order('M-9');
    expect(m9?.order_date).toMatch(/^2024-03-09T14:30:00/);
    expect(m9?.total).toBe('15.50');
  });

  it('imports the README sample with --initial-sync: exact counts, the rejected rows listed on stderr', async () => {
    const r = await runCli(['orders', 'import', fixture('orders-sample.csv'), '--initial-sync'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('rows\t1007\ncreated\t985\nupdated\t14\nunconfirmed\t0\nrejected\t8\nfailed\t0\nresumed\t0\n');
    expect(r.stderr).toContain('line 101 (SO-90001): rejected invalid_row: total: must be a decimal');
    expect(r.stderr).toContain('error: 8 row(s) rejected and 0 failed out of 1007');
    expect(await suite.sb.admin.outbox()).toEqual([]);
  });

  it('imports a file twice: all 201, then all 200', async () => {
    const file = join(suite.tmp.dir, 'twice.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 60; i++) lines.push(`T-${i},${i}.00,EUR,2024-01-${String((i % 28) + 1).padStart(2, '0')},c${i % 7}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const first = await runCli(['orders', 'import', '--live', file, '--json'], { env: env() });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: 60, created: 60, updated: 0, rejected: 0, failed: 0 });
    const second = await runCli(['orders', 'import', '--live', file, '--json'], { env: env() });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 60, created: 0, updated: 60, rejected: 0, failed: 0 });
  });

  it('sends a repeated order_id one at a time under concurrency 32: exactly one 201', async () => {
    const file = join(suite.tmp.dir, 'dups.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 40; i++) lines.push(`D-1,${i}.00,EUR,2024-01-01,dup@example.com`);
    for (let i = 1; i <= 40; i++) lines.push(`E-${i},1.00,EUR,2024-01-01,e@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const report = join(suite.tmp.dir, 'r.csv');
    const r = await runCli(['orders', 'import', '--live', file, '--json', '--concurrency', '32', '--report', report], { env: env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 80, created: 41, updated: 39 });
    const d = parseReport(report).filter((x) => x.order_id === 'D-1');
    expect(d[0]).toMatchObject({ line: '2', outcome: 'created' });
    expect(d.slice(1).every((x) => x.outcome === 'updated')).toBe(true);
    // the last line in the file wins
    expect((await suite.sb.admin.order('D-1'))?.total).toBe('40.00');
  });
});

describe('svc orders import: CSV shapes', () => {
  const run = (file: string, extra: string[] = []) =>
    runCli(['orders', 'import', '--live', file, '--json', '--report', join(suite.tmp.dir, 'r.csv'), ...extra], { env: env() });
  const csv = (name: string) => fixture(`csv/${name}`);

  it('reads BOM + CRLF, semicolons with decimal commas, tabs and UTF-16LE', async () => {
    for (const [name, n] of [
      ['bom-crlf.csv', 2],
      ['semicolon.csv', 2],
      ['tab.tsv', 1],
      ['utf16le.csv', 2],
    ] as const) {
      const r = await run(csv(name), ['--default-country', 'DE']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout), name).toMatchObject({ rows: n, created: n, rejected: 0 });
    }
    expect((await suite.sb.admin.order('S-1'))?.total).toBe('49.90');
    expect((await suite.sb.admin.order('S-2'))?.phone).toBe('+49301234567');
    expect((await suite.sb.admin.order('B-2'))?.total).toBe('1234.50');
  });

  it('rejects ragged rows and an unclosed quote naming the physical line, and goes on', async () => {
    const r = await run(csv('ragged.csv'));
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, created: 3, rejected: 2 });
    const rows = parseReport(join(suite.tmp.dir, 'r.csv'));
    expect(rows.map((x) => [x.line, x.order_id, x.outcome, x.error_code])).toEqual([
      ['2', 'R-1', 'created', ''],
      ['3', 'R-2', 'rejected', 'ragged_row'],
      ['4', 'R-3', 'rejected', 'ragged_row'],
      ['5', 'R-4', 'created', ''],
      ['7', 'R-5', 'created', ''],
    ]);
    const u = await run(csv('unclosed-quote.csv'));
    expect(u.code).toBe(4);
    expect(JSON.parse(u.stdout)).toMatchObject({ rows: 2, created: 1, rejected: 1 });
    expect(parseReport(join(suite.tmp.dir, 'r.csv'))[1]).toMatchObject({ line: '3', outcome: 'rejected', error_code: 'unclosed_quote' });
  });

  it('refuses a header without the required columns before sending (exit 2), hinting at the delimiter', async () => {
    const file = join(suite.tmp.dir, 'pipes.csv');
    writeFileSync(file, 'order_id|total|currency|order_date|email\nP-1|1.00|EUR|2024-01-01|p@example.com\n');
    const r = await runCli(['orders', 'import', '--live', file], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lacks the columns? .*one column "order_id\|total/);
    expect(r.stderr).toMatch(/--delimiter/);
    const ok = await runCli(['orders', 'import', '--live', file, '--delimiter', '|', '--json'], { env: env() });
    expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 1, created: 1 });
  });

  it('maps a shop-system export with --map, decimal commas, local phones and yes/no', async () => {
    const r = await run(csv('shop-export.csv'), [
      '--map',
      'order_id=Order Number',
      '--map',
      'total=Amount',
      '--map',
      'currency=Curr',
      '--map',
      'order_date=Placed At',
      '--map',
      'email=Customer E-Mail',
      '--map',
      'phone=Mobile',
      '--map',
      'accepts_email_marketing=Newsletter',
      '--default-country',
      'DE',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, created: 3 });
    expect(await suite.sb.admin.order('SH-1002')).toMatchObject({ total: '1234.50', accepts_email_marketing: false });
    expect(await suite.sb.admin.order('SH-1003')).toMatchObject({ phone: '+4915123456789' });
    expect((await suite.sb.admin.order('SH-1001'))?.order_date).toMatch(/^2024-05-01T09:30:00/);
  });

  it('groups consecutive rows of one order_id into line items; rows counts orders, lines counts lines', async () => {
    const r = await run(csv('line-items.csv'));
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual(importSummary({ rows: 4, lines: 6, created: 2, updated: 1, rejected: 1, rejected_lines: [5] }));
    const rows = parseReport(join(suite.tmp.dir, 'r.csv'));
    expect(rows.map((x) => [x.line, x.order_id, x.outcome])).toEqual([
      ['2', 'L-1', 'created'],
      ['4', 'L-2', 'created'],
      ['5', 'L-3', 'rejected'],
      ['7', 'L-1', 'updated'],
    ]);
    expect(rows[2]?.message).toMatch(/line item on line 5\.quantity.*line item on line 6\.price/);
    expect((await suite.sb.admin.order('L-1'))?.line_items).toEqual([{ sku: 'MUG-1', name: 'Mug', quantity: 4, price: '7.50' }]);
  });

  it('reads stdin with -', async () => {
    const r = await runCli(['orders', 'import', '--live', '-', '--json'], {
      env: env(),
      stdin: 'order_id,total,currency,order_date,email\nIN-1,3.00,EUR,2024-01-01,in@example.com\n',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, created: 1 });
  });

  it('--dry-run validates everything, lists duplicate order_ids with their lines, and sends nothing', async () => {
    const r = await runCli(['orders', 'import', fixture('orders-mixed.csv'), '--dry-run', '--json'], { env: env() });
    expect(r.code).toBe(4);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ dry_run: true, rows: 13, valid: 6, rejected: 7 });
    expect(doc.duplicates).toEqual([
      { order_id: 'M-1', lines: [2, 5] },
      { order_id: 'M-2', lines: [3, 12] },
    ]);
    expect(doc.rejected_rows[0]).toMatchObject({ line: 6, order_id: 'M-4' });
    expect(await suite.sb.admin.order('M-1')).toBeUndefined();
    const human = await runCli(['orders', 'import', fixture('orders-mixed.csv'), '--dry-run'], { env: env() });
    expect(human.stdout).toMatch(/M-1: lines 2, 5/);
    expect(human.stdout).toMatch(/line 6 \(M-4\): total: /);
  });

  it('with --initial-sync leaves the outbox empty while contact statistics change', async () => {
    const file = join(suite.tmp.dir, 'hist.csv');
    writeFileSync(
      file,
      'order_id,total,currency,order_date,email\nH-1,10.00,EUR,2023-01-01,stat@example.com\nH-2,15.50,EUR,2023-02-01,stat@example.com\n',
    );
    const r = await runCli(['orders', 'import', file, '--initial-sync', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(await suite.sb.admin.outbox()).toEqual([]);
    const c = await runCli(['contacts', 'list', '--email', 'stat@example.com', '--json'], { env: env() });
    const [contact] = JSON.parse(c.stdout);
    expect(contact).toMatchObject({ orders_count: 2, total_spent: { EUR: '25.50' } });
    expect((await suite.sb.admin.order('H-1'))?.initial_sync).toBe(true);
    // without --initial-sync the same kind of import triggers flows
    writeFileSync(file, 'order_id,total,currency,order_date,email\nH-3,1.00,EUR,2023-03-01,stat@example.com\n');
    await runCli(['orders', 'import', '--live', file, '--json'], { env: env() });
    expect((await suite.sb.admin.outbox()).length).toBeGreaterThan(0);
  });
});

describe('svc orders import: terminal output', () => {
  it('prints a summary table on a TTY and keeps stderr free of progress with --json', async () => {
    const file = fixture('csv/bom-crlf.csv');
    const tty = await runCli(['orders', 'import', '--live', file], { env: { ...env(), NO_COLOR: '1' }, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/^rows +2$/m);
    expect(tty.stdout).toMatch(/^created +2$/m);
    expect(tty.stdout).toMatch(/^resumed +0$/m);
    const json = await runCli(['orders', 'import', '--live', file, '--json'], { env: env() });
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: 2, updated: 2 });
  });

  it('refuses usage errors before reading credentials or sending (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['orders', 'import', '--live', join(suite.tmp.dir, 'missing.csv')], /no such file/],
      [['orders', 'import', '--live', '-', '--resume'], /--resume needs a file/],
      [['orders', 'import', '--live', '-', '--integration-token-stdin'], /cannot be used when the CSV comes from stdin/],
      [['orders', 'import', '--live', fixture('orders-mixed.csv'), '--delimiter', ';;'], /one character/],
      [['orders', 'import', '--live', fixture('orders-mixed.csv'), '--map', 'bogus=x'], /unknown field "bogus"/],
      [['orders', 'import', '--live', fixture('orders-mixed.csv'), '--default-country', 'XX'], /ISO 3166/],
      [['orders', 'import', '--live', fixture('orders-mixed.csv'), '--concurrency', '0'], /positive integer/],
    ];
    for (const [argv, message] of cases) {
      const r = await runCli(argv, { env: { SVC_CONFIG_DIR: suite.tmp.dir } });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
  });
});
