/** A spawned `svc sandbox start`: real pipes, a real signal, a real exit code. Needs `node build.mjs` first. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let child: ChildProcess | undefined;
let cfg: ReturnType<typeof tempConfigDir> | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  cfg?.cleanup();
});

function firstLine(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no output within 10 s; got ${JSON.stringify(buf)}`)), 10_000);
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(buf.slice(0, nl));
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited ${code} before printing`)));
  });
}

describe('svc sandbox start (spawned)', () => {
  it.skipIf(!existsSync(`${root}/dist/main.js`))('prints one JSON line, serves, and exits 0 on SIGTERM', async () => {
    cfg = tempConfigDir();
    child = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--port', '0', '--memory', '--json', '--seed'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG_DIR: cfg.dir, SVC_DATA_DIR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    const line = JSON.parse(await firstLine(child));
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.dashboard_url).toBe(`${line.base_url}/`);
    const dashboard = await fetch(line.dashboard_url);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<title>svc sandbox</title>');
    const res = await fetch(`${line.base_url}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${line.seed.api_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e2e@example.com' }),
    });
    expect(res.status).toBe(201);
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });

  it.skipIf(!existsSync(`${root}/dist/main.js`))(
    '--db FILE: SIGTERM while writes are in flight loses no answered write; the WAL is checkpointed and a restart finds the data',
    async () => {
      cfg = tempConfigDir();
      const db = join(cfg.dir, 'sb', 'data.db');
      let stderr = '';
      const start = () => {
        const proc = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--port', '0', '--db', db, '--json'], {
          cwd: root,
          env: { ...process.env, SVC_CONFIG_DIR: cfg?.dir, SVC_DATA_DIR: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        proc.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString('utf8');
        });
        return proc;
      };
      child = start();
      const first = JSON.parse(await firstLine(child));
      const tokenRes = await fetch(`${first.base_url}/_sandbox/api-tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'e2e', scopes: ['orders_write', 'contacts_read'] }),
      });
      const { token } = (await tokenRes.json()) as { token: string };
      const upsert = (i: number) =>
        fetch(`${first.base_url}/v1/orders/placed`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            order_id: `sig-${i}`,
            total: '1.00',
            currency: 'USD',
            order_date: '2026-06-22',
            email: `b${i}@example.com`,
          }),
        }).then(
          (r) => r.status,
          () => 0,
        );
      // A first answered write, then a burst still in flight when the signal arrives.
      expect(await upsert(0)).toBe(201);
      const burst = Array.from({ length: 40 }, (_, i) => upsert(i + 1));
      await new Promise((r) => setTimeout(r, 5));
      const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const statuses = [201, ...(await Promise.all(burst))];
      expect(await exited, stderr).toBe(0);
      expect(existsSync(`${db}-wal`) ? 'WAL left behind' : 'checkpointed').toBe('checkpointed');

      child = start();
      const second = JSON.parse(await firstLine(child));
      for (let i = 0; i < statuses.length; i++) {
        if (statuses[i] !== 201) continue;
        const stored = await fetch(`${second.base_url}/_sandbox/orders/sig-${i}`);
        expect(stored.status, `order sig-${i} was answered 201 before the stop`).toBe(200);
      }
      const list = await fetch(`${second.base_url}/v1/contacts?email=b0@example.com`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
      const exited2 = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited2, stderr).toBe(0);
    },
  );
});
