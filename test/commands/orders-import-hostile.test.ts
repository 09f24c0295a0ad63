/**
 * orders import of files a careless or hostile source could write (issue 26): totals whose spaces
 * are not digit grouping, files that mix line ends (a file is refused; a stream is read line by
 * line as written), order ids that differ only in Unicode normalisation. Nothing is stored with a
 * wrong value and no two records merge.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { ensureBuilt, spawnSvc } from '../helpers/spawn-cli.js';

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

  const row = (id: string) => `${id};1.00;EUR;2026-01-01;${id.toLowerCase()}@example.com`;
  const MIXED = (p: string) => `${HEADER}\r\n${row(`${p}-1`)}\n${row(`${p}-2`)}\r${row(`${p}-3`)}\r\n${row(`${p}-4`)}\r\n`;
  const MIXED_WARNING =
    'line 2 ends with LF (\\n) where the header line ends with CRLF (\\r\\n): each line is read as its own row, as written';

  it('the same mix piped (cat file | svc orders import -): every line its own row, with a warning naming line 2', async () => {
    await ensureBuilt();
    const r = await spawnSvc(['orders', 'import', '--live', '-', '--json'], s.env(), { stdin: MIXED('P') });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 4, created: 4, rejected: 0 });
    expect(r.stderr).toContain(`stdin: ${MIXED_WARNING}`);
    for (const id of ['P-1', 'P-2', 'P-3', 'P-4']) expect((await s.sb.admin.order(id))?.email).toBe(`${id.toLowerCase()}@example.com`);
  });

  it('the same mix from a FIFO, and a rejected row keeps its own line number', async () => {
    await ensureBuilt();
    const fifo = join(s.tmp.dir, 'in.fifo');
    execFileSync('mkfifo', [fifo]);
    const report = join(s.tmp.dir, 'fifo-report.csv');
    const rejects = join(s.tmp.dir, 'fifo-rejects.csv');
    const text = `${MIXED('F')}F-5;oops;EUR;2026-01-01;f5@example.com\r${row('F-6')}\n`;
    const [r] = await Promise.all([
      spawnSvc(['orders', 'import', '--live', fifo, '--json', '--report', report, '--rejects', rejects], s.env()),
      writeFile(fifo, text),
    ]);
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 6, created: 5, rejected: 1, rejected_lines: [6] });
    expect(r.stderr).toContain(`${fifo}: ${MIXED_WARNING}`);
    expect(readFileSync(report, 'utf8')).toMatch(/^6,F-5,rejected,/m);
    // The rejects file ends its lines as the input's header line does (CRLF), every one of them.
    const rejected = readFileSync(rejects, 'utf8');
    expect(rejected).toContain('F-5;oops;EUR;2026-01-01;f5@example.com;');
    expect(rejected.split('\r\n').length).toBe(3);
    expect(rejected.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
  });

  it('contacts import from stdin mixing line ends: one contact per line', async () => {
    const csv = 'email,first_name\r\nc1@example.com,A\nc2@example.com,B\rc3@example.com,C\r\n';
    const r = await runCli(['contacts', 'import', '-', '--json'], { env: s.env(), stdin: csv });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, rejected: 0 });
  });

  it('order ids that differ only in Unicode normalisation: two orders (compared as given), and a warning naming both lines', async () => {
    const nfc = 'Caf\u00e9-1';
    const nfd = 'Cafe\u0301-1';
    const csv = join(s.tmp.dir, 'nf.csv');
    writeFileSync(csv, `${HEADER}\n${row(nfc)}\n${row('PLAIN-1')}\n${row(nfd)}\n${row(nfc)}\n${row('PLAIN-1')}\n`);
    const warning = `order ids that differ only in Unicode normalisation: line 2: "${nfc}" (composed, NFC) and line 4: "${nfd}" (decomposed, NFD)`;
    const dry = await runCli(['orders', 'import', '--dry-run', csv], { env: s.env() });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(warning);
    expect(dry.stderr.split(warning).length - 1).toBe(1);

    const r = await runCli(['orders', 'import', '--live', csv, '--json'], { env: s.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, created: 3, updated: 2 });
    expect(r.stderr).toContain(warning);
    // Once per pair: the repeated NFC id (line 5) and PLAIN-1 are ordinary repeats.
    expect(r.stderr.split('differ only in Unicode normalisation').length - 1).toBe(1);
    expect(await s.sb.admin.order(nfc)).toBeDefined();
    expect(await s.sb.admin.order(nfd)).toBeDefined();
  });
});
