/**
 * orders import of files a careless or hostile source could write (issue 26): totals whose spaces
 * are not digit grouping, and files that mix line ends. Nothing is stored with a wrong value and
 * no two records merge.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const s = cliSuite();
const HEADER = 'order_id;total;currency;order_date;email';

describe('orders import: hostile files', () => {
  it('a total with spaces is accepted only as 3-digit grouping; otherwise the row is rejected naming total', async () => {
    const csv = join(s.tmp.dir, 'spaces.csv');
    writeFileSync(
      csv,
      `${HEADER}\nS-1;1 234,50;EUR;2026-01-01;a@example.com\nS-2;5 5;EUR;2026-01-01;b@example.com\nS-3;1 0.5;EUR;2026-01-01;c@example.com\n`,
    );
    const report = join(s.tmp.dir, 'report.csv');
    const r = await runCli(['orders', 'import', '--live', csv, '--report', report], { env: s.env() });
    expect(r.code, r.stderr).toBe(4);
    expect((await s.sb.admin.order('S-1'))?.total).toBe('1234.50');
    expect(await s.sb.admin.order('S-2')).toBeUndefined();
    expect(await s.sb.admin.order('S-3')).toBeUndefined();
    const text = readFileSync(report, 'utf8');
    expect(text).toContain('S-2,rejected,,invalid_row,"total: ""5 5"" has spaces that do not group digits by three');
    expect(text).toMatch(/S-3.*total/);
  });

  it('a CRLF header then LF, CR and CRLF lines: refused with exit 2 naming line 2, nothing sent', async () => {
    const csv = join(s.tmp.dir, 'mixed.csv');
    const row = (id: string) => `${id};1.00;EUR;2026-01-01;${id.toLowerCase()}@example.com`;
    writeFileSync(csv, `${HEADER}\r\n${row('M-1')}\n${row('M-2')}\r${row('M-3')}\r\n${row('M-4')}\r\n`);
    const r = await runCli(['orders', 'import', '--live', csv], { env: s.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 2 ends with LF (\\n) where the header line ends with CRLF (\\r\\n)');
    expect(r.stderr).toContain('dos2unix');
    for (const id of ['M-1', 'M-2', 'M-3', 'M-4']) expect(await s.sb.admin.order(id)).toBeUndefined();
  });

  it('a CRLF file with LF inside quoted cells (as Excel writes) imports every row', async () => {
    const csv = join(s.tmp.dir, 'excel.csv');
    writeFileSync(
      csv,
      `order_id,total,currency,order_date,email,note\r\nX-1,1.00,EUR,2026-01-01,x1@example.com,"two\nlines"\r\nX-2,2.00,EUR,2026-01-01,x2@example.com,plain\r\n`,
    );
    const r = await runCli(['orders', 'import', '--live', csv, '--json'], { env: s.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(await s.sb.admin.order('X-1')).toBeDefined();
    expect(await s.sb.admin.order('X-2')).toBeDefined();
  });
});
