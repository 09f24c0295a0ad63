/**
 * orders import from inputs that can be read only once (stdin, a FIFO) and from a file whose
 * report fills the disk: rows go as their lines arrive, signals are honoured at any moment, and
 * a run that cannot write its report stops with its summary and the resume command.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { outputOf, root } from '../helpers/spawn-cli.js';

const suite = cliSuite({ build: true });
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env({ PATH: process.env.PATH ?? '' });
});

const HEADER = 'order_id,total,currency,order_date,email\n';
const row = (id: string) => `${id},1.00,EUR,2026-01-01,${id.toLowerCase()}@example.com\n`;

interface Child {
  proc: ChildProcessWithoutNullStreams;
  /** Where the child's preload logs the signals it handles in JavaScript. */
  signalLog: string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

let children = 0;

function start(args: string[], shell?: string): Child {
  const signalLog = join(suite.tmp.dir, `signals-${++children}.log`);
  const childEnv = {
    ...env,
    NODE_OPTIONS: `--require "${join(root, 'test', 'helpers', 'signal-listeners.cjs')}"`,
    SVC_TEST_SIGNAL_LOG: signalLog,
  };
  const proc = shell
    ? spawn('bash', ['-c', shell], { env: { ...childEnv, SVC: join(root, 'bin', 'svc.js'), NODE: process.execPath } })
    : spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], { env: childEnv });
  return { proc, done: outputOf(proc), signalLog };
}

/**
 * Waits until the child handles `signal` in JavaScript (the listener log written by the preload
 * test/helpers/signal-listeners.cjs), then until it sits idle (sleeping, no CPU time spent over
 * 200 ms): waiting for its input. /proc's SigCgt cannot tell: Node catches SIGINT and SIGTERM
 * from its first milliseconds, to die by them, before svc's handler exists; a signal sent then,
 * on a loaded machine where the start takes seconds, killed the child instead of exit 130.
 */
async function catches(c: Child, signal: 'SIGINT' | 'SIGTERM'): Promise<void> {
  await until(async () => (await readFile(c.signalLog, 'utf8').catch(() => '')).split('\n').includes(signal), 30_000);
  const sample = async () => {
    const stat = await readFile(`/proc/${c.proc.pid}/stat`, 'utf8').catch(() => '');
    // Fields after the command name: state (3rd field), utime and stime (14th and 15th).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], cpu: `${f[11]}/${f[12]}` };
  };
  let last = await sample();
  let idleSince = Date.now();
  await until(async () => {
    const s = await sample();
    if (s.state !== 'S' || s.cpu !== last.cpu) idleSince = Date.now();
    last = s;
    return Date.now() - idleSince >= 200;
  }, 30_000);
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out');
}

describe('e2e: orders import from stdin and FIFOs', { timeout: 90_000 }, () => {
  it('stdin: each row is sent as its line arrives, with stdin still open', async () => {
    const c = start(['orders', 'import', '--live', '-', '--json']);
    c.proc.stdin.write(HEADER + row('L-1'));
    await until(async () => (await suite.sb.admin.order('L-1')) !== undefined, 30_000);
    c.proc.stdin.write(row('L-2'));
    await until(async () => (await suite.sb.admin.order('L-2')) !== undefined, 30_000);
    c.proc.stdin.end();
    const r = await c.done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 2 });
  });

  it('stdin: SIGINT while waiting for the header ends at once with exit 130', async () => {
    const c = start(['orders', 'import', '--live', '-']);
    await catches(c, 'SIGINT');
    const t0 = Date.now();
    c.proc.kill('SIGINT');
    const r = await c.done;
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('interrupted');
  });

  it('a FIFO imports (no journal), honours SIGTERM while it waits, and refuses --resume', async () => {
    const fifo = join(suite.tmp.dir, 'orders.fifo');
    execFileSync('mkfifo', [fifo]);
    // A writer that sends two rows, then keeps the FIFO open.
    const writer = spawn('bash', ['-c', `{ printf '%s' "$ROWS"; sleep 30; } > "$FIFO"`], {
      env: { ...env, FIFO: fifo, ROWS: HEADER + row('F-1') + row('F-2') },
    });
    const c = start(['orders', 'import', '--live', fifo, '--json']);
    await until(async () => (await suite.sb.admin.order('F-2')) !== undefined, 30_000);
    await catches(c, 'SIGTERM');
    c.proc.kill('SIGTERM');
    const r = await c.done;
    writer.kill('SIGKILL');
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 2, interrupted: true });
    expect(r.stderr).toContain('cannot be resumed');
    const again = start(['orders', 'import', '--live', fifo, '--resume']);
    const refused = await again.done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--resume needs a regular file');
  });
});

describe('e2e: the disk fills up mid-run', { timeout: 90_000 }, () => {
  it('stops sending, prints the summary and the resume command, exits 1; --resume finishes the job', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    // Enough rows that the limit is met well before the last one is sent, however fast the
    // sandbox answers: the journal's first batch of finished rows (256) already passes 8 KiB.
    const ROWS = 3_000;
    const ids = Array.from({ length: ROWS }, (_, i) => `D-${i + 1}`);
    writeFileSync(file, HEADER + ids.map(row).join(''));
    const report = join(suite.tmp.dir, 'report.csv');
    const journal = join(suite.tmp.dir, 'import.journal');
    // A file-size limit (ulimit -f, KiB) that the report reaches after a few hundred rows, with
    // SIGXFSZ ignored so that a write fails with EFBIG, as on a full disk.
    const c = start(
      [],
      `trap '' XFSZ; ulimit -f 8; exec "$NODE" "$SVC" orders import --live "${file}" --report "${report}" --journal "${journal}" --json`,
    );
    const r = await c.done;
    expect(r.code).toBe(1);
    const summary = JSON.parse(r.stdout) as { rows: number; created: number };
    expect(summary.rows).toBeGreaterThan(0);
    expect(summary.rows).toBeLessThan(ROWS);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1) as string).error as { code: string; message: string; hint: string };
    expect(error.code).toBe('output_error');
    // The journal or the report, whichever reaches the limit first.
    expect(error.message).toMatch(/^the import stopped after \d+ finished row\(s\): cannot write (--report|the resume journal) .*: EFBIG$/);
    expect(error.hint).toContain('--resume');
    // Without the limit, the resume completes: every order once.
    const c2 = start(['orders', 'import', '--live', file, '--report', report, '--journal', journal, '--resume', '--json']);
    const r2 = await c2.done;
    expect(r2.code).toBe(0);
    const total = JSON.parse(r2.stdout) as { rows: number; created: number; updated: number; unconfirmed: number; resumed: number };
    expect(total.rows).toBe(ROWS);
    expect(total.created + total.updated + total.unconfirmed).toBe(ROWS);
    for (const id of [ids[0], ids[ROWS / 2 - 1], ids[ROWS - 1]]) expect(await suite.sb.admin.order(id as string)).toBeDefined();
  });
});
