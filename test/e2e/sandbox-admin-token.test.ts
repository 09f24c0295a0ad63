/**
 * `svc sandbox start --admin-token` (spawned): the token is printed once with the dashboard URL,
 * required by the admin API, and saved so `svc sandbox …` commands on this machine send it;
 * elsewhere SVC_SANDBOX_ADMIN_TOKEN. Needs `node build.mjs` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

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

describe('svc sandbox start --admin-token', () => {
  it.skipIf(!existsSync(`${root}/dist/main.js`))(
    'requires the token, prints it once in the dashboard URL, and svc sandbox commands send the saved one',
    async () => {
      const dir = tempConfigDir();
      cfg = dir;
      const env = { ...process.env, SVC_CONFIG_DIR: dir.dir, SVC_DATA_DIR: '', SVC_SANDBOX_ADMIN_TOKEN: '' };
      child = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--memory', '--json', '--seed', '--admin-token'], {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const line = JSON.parse(await firstLine(child));
      expect(line.admin_token).toMatch(/^sbx_admin_[A-Za-z0-9_-]{43}$/);
      expect(line.dashboard_url).toBe(`${line.base_url}/?admin_token=${line.admin_token}`);
      expect(line.seed.api_token).toBeTruthy();
      expect((await fetch(`${line.base_url}/_sandbox/businesses`)).status).toBe(401);
      expect((await fetch(`${line.base_url}/`)).status).toBe(401);
      const opened = await fetch(line.dashboard_url, { redirect: 'manual' });
      expect(opened.status).toBe(303);

      const cliEnv = { SVC_CONFIG_DIR: dir.dir, SVC_BASE_URL: line.base_url };
      const reset = await runCli(['sandbox', 'reset', '--yes', '--json'], { env: cliEnv });
      expect(reset.stderr).toBe('');
      expect(reset.code).toBe(0);
      // Saved in the credential store (0600), not in any profile.
      expect(readFileSync(join(dir.dir, 'credentials.json'), 'utf8')).toContain(line.admin_token);

      const elsewhere = tempConfigDir();
      try {
        const refused = await runCli(['sandbox', 'outbox', '--json'], {
          env: { SVC_CONFIG_DIR: elsewhere.dir, SVC_BASE_URL: line.base_url },
        });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('answered 401');
        expect(refused.stderr).toContain('SVC_SANDBOX_ADMIN_TOKEN');
        const withEnv = await runCli(['sandbox', 'outbox', '--json'], {
          env: { SVC_CONFIG_DIR: elsewhere.dir, SVC_BASE_URL: line.base_url, SVC_SANDBOX_ADMIN_TOKEN: line.admin_token },
        });
        expect(withEnv.code).toBe(0);
        expect(withEnv.stdout + withEnv.stderr).not.toContain(line.admin_token);
      } finally {
        elsewhere.cleanup();
      }

      const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // Forgotten when the sandbox stops.
      expect(readFileSync(join(dir.dir, 'credentials.json'), 'utf8')).not.toContain(line.admin_token);
    },
  );
});
