/** A spawned `svc sandbox start`: real pipes, a real signal, a real exit code. Needs `node build.mjs` first. */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
});
