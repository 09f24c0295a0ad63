/**
 * orders import never destroys what the user gave it and never merges records through bad bytes
 * (issue "Nothing lost, whatever the input"): each case fails before anything is sent, exit 2.
 */
import { linkSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

const CSV = 'order_id,total,currency,order_date,email\nA-1,10.00,EUR,2026-01-01,a@example.com\nA-2,20.00,EUR,2026-01-02,b@example.com\n';

const input = (text: string | Buffer = CSV) => suite.file('orders.csv', text);

async function nothingSent(): Promise<void> {
  expect(await suite.sb.admin.order('A-1')).toBeUndefined();
}

describe('orders import: outputs never overwrite inputs', () => {
  it('refuses --report naming the input, a symbolic link or a hard link to it, before sending', async () => {
    const file = input();
    const sym = join(suite.tmp.dir, 'sym.csv');
    const hard = join(suite.tmp.dir, 'hard.csv');
    symlinkSync(file, sym);
    linkSync(file, hard);
    for (const report of [file, sym, hard]) {
      const r = await runCli(['orders', 'import', '--live', file, '--report', report], { env: env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--report ${report} is the input ${file}`);
      expect(r.stderr).toContain('would destroy the input');
    }
    expect(readFileSync(file, 'utf8')).toBe(CSV);
    await nothingSent();
  });

  it('refuses --journal naming the input, and a report that is the journal', async () => {
    const file = input();
    let r = await runCli(['orders', 'import', '--live', file, '--journal', file], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--journal ${file} is the input`);
    const out = join(suite.tmp.dir, 'out.csv');
    r = await runCli(['orders', 'import', '--live', file, '--report', out, '--journal', out], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--journal ${out} is the same file as --report ${out}`);
    expect(readFileSync(file, 'utf8')).toBe(CSV);
    await nothingSent();
  });

  it('names the path and the reason for an output that cannot be written (exit 2, nothing sent)', async () => {
    const file = input();
    const cases: Array<[string, RegExp]> = [
      ['', /--report needs a file name/],
      ['/nonexistent/dir/r.csv', /cannot write --report \/nonexistent\/dir\/r.csv: the folder \/nonexistent\/dir does not exist/],
      [suite.tmp.dir, /cannot write --report .*: it is a folder/],
      ['/dev/full', /cannot write --report \/dev\/full: no space left on the device \(ENOSPC\)/],
    ];
    for (const [report, message] of cases) {
      const r = await runCli(['orders', 'import', '--live', file, '--report', report], { env: env() });
      expect(r.code, report).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    await nothingSent();
  });

  it('--report /proc/version names the report, not a journal beside it', async () => {
    const r = await runCli(['orders', 'import', '--live', input(), '--report', '/proc/version'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/proc/version');
    expect(r.stderr).not.toContain('/proc/version.journal');
    await nothingSent();
  });
});

describe('orders import: bytes that are not UTF-8', () => {
  const latin1 = Buffer.from(
    'order_id,total,currency,order_date,email\nMüller-1,10.00,EUR,2026-01-01,a@example.com\nMöller-1,20.00,EUR,2026-01-02,b@example.com\n',
    'latin1',
  );

  it('a Latin-1 file stops before sending, naming the line and byte offset', async () => {
    const r = await runCli(['orders', 'import', '--live', input(latin1)], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 2 is not valid UTF-8 (byte 0xFC at byte offset 42)');
    expect(r.stderr).toContain('--encoding');
    expect(await suite.sb.admin.order('M\uFFFDller-1')).toBeUndefined();
  });

  it('--encoding latin1 reads it: two orders, nothing merged', async () => {
    const r = await runCli(['orders', 'import', '--live', input(latin1), '--encoding', 'latin1', '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 2 });
    expect(await suite.sb.admin.order('Müller-1')).toMatchObject({ total: '10.00' });
    expect(await suite.sb.admin.order('Möller-1')).toMatchObject({ total: '20.00' });
  });

  it('found in a stream (stdin), the row is rejected with the same message and the rest goes on (exit 4)', async () => {
    const report = join(suite.tmp.dir, 'r.csv');
    const r = await runCli(['orders', 'import', '--live', '-', '--json', '--report', report], { env: env(), stdin: latin1 });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 0, rejected: 2 });
    const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines[1]).toContain('invalid_encoding');
    expect(lines[1]).toContain('line 2 is not valid UTF-8 (byte 0xFC at byte offset 42)');
    expect(lines[2]).toContain('line 3 is not valid UTF-8');
  });

  it('rejects an unknown --encoding', async () => {
    const r = await runCli(['orders', 'import', '--live', input(), '--encoding', 'klingon'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--encoding "klingon" is not an encoding');
  });
});

describe('orders import: one run per journal', () => {
  it('a second import of a file whose journal is in use exits 2 naming the pid', async () => {
    const file = input();
    const report = join(suite.tmp.dir, 'r.csv');
    // A live process (this one) holds the lock of the journal beside the report.
    writeFileSync(`${report}.journal.lock`, `${process.pid}\n`);
    const r = await runCli(['orders', 'import', '--live', file, '--report', report], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`another import of this file is running (pid ${process.pid})`);
    await nothingSent();
  });
});
