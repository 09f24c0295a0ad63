/**
 * A report or rejects file that is where stdout or stderr already goes (`--report /dev/stdout >
 * out`: issue 36) is refused before anything is read or sent, exit 2: the summary would be
 * written over the report. A device (/dev/null) stays allowed.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

let dir = '';
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'svc-report-stdout-'));
  writeFileSync(
    join(dir, 'orders.csv'),
    'order_id,total,currency,order_date,email\nA-1,1.00,EUR,2024-01-01,a@example.com\nA-2,x,EUR,2024-01-01,b@example.com\n',
  );
  writeFileSync(join(dir, 'events.ndjson'), '{"event_type":"e","email":"a@example.com"}\n{"email":"b@example.com"}\n');
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `svc ARGS` with stdout (or stderr) written to the file `to`, or to a pipe when `to` is undefined. */
function svc(args: string[], to: { stdout?: string; stderr?: string } = {}): Promise<{ code: number | null; err: string }> {
  const out = to.stdout ? openSync(to.stdout, 'w') : 'pipe';
  const errFd = to.stderr ? openSync(to.stderr, 'w') : 'pipe';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', SVC_CONFIG_DIR: join(dir, 'config'), SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'tok_x' },
      stdio: ['ignore', out, errFd],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout?.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      if (typeof out === 'number') closeSync(out);
      if (typeof errFd === 'number') closeSync(errFd);
      resolve({ code, err: to.stderr ? readFileSync(to.stderr, 'utf8') : err });
    });
  });
}

describe('a report that is stdout or stderr', () => {
  it('--report /dev/stdout > out, --report /dev/stdout | …, --report /dev/stderr 2> err: exit 2, naming it', async () => {
    const out = join(dir, 'out.txt');
    const a = await svc(['orders', 'import', '--dry-run', 'orders.csv', '--report', '/dev/stdout'], { stdout: out });
    expect(a.err).toContain("error: --report /dev/stdout is where svc's stdout goes: the summary and messages would be written into it");
    expect(a.code).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('');

    const b = await svc(['orders', 'import', '--dry-run', 'orders.csv', '--report', '/dev/stdout']);
    // Node's pipe to a child is a socket, refused as such; a shell's pipe is a FIFO, refused as stdout.
    expect(b.err).toMatch(/error: (cannot write )?--report \/dev\/stdout/);
    expect(b.code).toBe(2);

    const errFile = join(dir, 'err.txt');
    const r = await svc(['orders', 'import', '--dry-run', 'orders.csv', '--rejects', '/dev/stdout'], { stdout: out });
    expect(r.err).toContain("--rejects /dev/stdout is where svc's stdout goes");
    expect(r.code).toBe(2);

    const c = await svc(['events', 'send', '--file', 'events.ndjson', '--dry-run', '--report', '/dev/stderr'], {
      stdout: out,
      stderr: errFile,
    });
    expect(c.err).toContain("--report /dev/stderr is where svc's stderr goes");
    expect(c.code).toBe(2);
  }, 60_000);

  it('a report to /dev/null or to its own file is fine', async () => {
    const out = join(dir, 'out2.txt');
    const a = await svc(['orders', 'import', '--dry-run', 'orders.csv', '--report', '/dev/null'], { stdout: out });
    expect(a.code, a.err).toBe(4);
    const b = await svc(['orders', 'import', '--dry-run', 'orders.csv', '--report', join(dir, 'report.csv')], { stdout: out });
    expect(b.code, b.err).toBe(4);
    expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toMatch(/^line,order_id,outcome/);
    expect(readFileSync(out, 'utf8')).toMatch(/dry run: 2 order\(s\)/);
  }, 60_000);
});
