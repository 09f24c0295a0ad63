/**
 * Signals end every wait on input (issue 36): a silent stdin that stays open, or a FIFO nobody
 * writes to, used to hold `orders upsert --input`, `api --input`, `contacts delete --ids-file`,
 * `auth login --with-token` and `--map-file` until SIGKILL. Each run here is signalled only once
 * it is seen waiting (its SIGINT handler installed, asleep, and its CPU time still), and must end
 * with exit 130 (SIGINT) or 143-style interruption (SIGTERM: also 130, as main maps both) soon after.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

const onLinux = process.platform === 'linux';
let work: string;
beforeAll(ensureBuilt, 60_000);
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'svc-input-wait-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** /proc/PID/stat's state letter and CPU ticks (utime + stime). */
function procStat(pid: number): { state: string; ticks: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] as string, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** Whether the process catches SIGINT (main.ts installs its handler before any command runs). */
function catchesSigint(pid: number): boolean {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^SigCgt:\s*([0-9a-f]+)$/m)?.[1] ?? '0';
    return (BigInt(`0x${line}`) & 2n) !== 0n;
  } catch {
    return false;
  }
}

/** Resolves once the process waits: SIGINT caught, asleep, and no CPU used over three looks 200 ms apart. */
async function waiting(pid: number, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  let still = 0;
  let last = -1;
  while (Date.now() < until) {
    const s = procStat(pid);
    if (s && catchesSigint(pid) && s.state === 'S' && s.ticks === last) still += 1;
    else still = 0;
    if (still >= 3) return;
    last = s?.ticks ?? -1;
    await sleep(200);
  }
  throw new Error(`process ${pid} never settled into a wait`);
}

/**
 * Spawns `svc ARGS` with stdin an open pipe that never gets a byte (or ignored when `stdin` is
 * false), signals it once it waits, and resolves with its exit code; fails after 15 s (a hang).
 */
async function signalledWhileWaiting(args: string[], signal: NodeJS.Signals, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '', SVC_CONFIG_DIR: work, SVC_BASE_URL: 'http://127.0.0.1:9', CI: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await waiting(child.pid as number);
  const sentAt = Date.now();
  child.kill(signal);
  const hang = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await closed;
  clearTimeout(hang);
  child.stdin.destroy();
  return { code, stderr, afterSignalMs: Date.now() - sentAt };
}

const fifo = (name: string) => {
  const path = join(work, name);
  execFileSync('mkfifo', [path]);
  return path;
};

describe.skipIf(!onLinux)('a signal ends a wait on input', () => {
  const token = { SVC_TOKEN: 'test-token-not-real', SVC_INTEGRATION_TOKEN: 'it-not-real' };
  const upsert = [
    'orders',
    'upsert',
    '--order-id',
    'o-1',
    '--total',
    '1.00',
    '--currency',
    'EUR',
    '--order-date',
    '2026-01-02',
    '--email',
    'a@x.test',
  ];

  it.each([
    ['orders upsert --input -', [...upsert.slice(0, 2), '--input', '-']],
    ['api --input -', ['api', 'POST', '/v1/events', '--input', '-']],
    ['contacts delete --ids-file -', ['contacts', 'delete', '--ids-file', '-', '--yes']],
    ['auth login --with-token', ['auth', 'login', '--with-token']],
  ])('%s: a silent stdin, SIGINT → exit 130', async (_name, args) => {
    const r = await signalledWhileWaiting(args, 'SIGINT', token);
    expect(r.code, r.stderr).toBe(130);
  });

  it('orders upsert --input FIFO with no writer: SIGTERM → exit 130', async () => {
    const r = await signalledWhileWaiting([...upsert.slice(0, 2), '--input', fifo('order.json')], 'SIGTERM', token);
    expect(r.code, r.stderr).toBe(130);
  });

  it('orders import --map-file FIFO with no writer: SIGINT → exit 130', async () => {
    writeFileSync(join(work, 'orders.csv'), 'order_id,total,currency,order_date,email\nA-1,1.00,EUR,2026-01-02,a@x.test\n');
    const r = await signalledWhileWaiting(['orders', 'import', 'orders.csv', '--map-file', fifo('map.json'), '--dry-run'], 'SIGINT', token);
    expect(r.code, r.stderr).toBe(130);
  });

  it('events send --properties @FIFO with no writer: SIGINT → exit 130', async () => {
    const r = await signalledWhileWaiting(
      ['events', 'send', '--type', 't', '--email', 'a@x.test', '--properties', `@${fifo('p.json')}`],
      'SIGINT',
      token,
    );
    expect(r.code, r.stderr).toBe(130);
  });
});
