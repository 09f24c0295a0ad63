/**
 * `svc sandbox start --admin-token` (spawned): the token is printed once with the dashboard URL,
 * required by the admin API, and saved so `svc sandbox …` commands on this machine send it;
 * elsewhere SVC_SANDBOX_ADMIN_TOKEN. Needs `node build.mjs` first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { built, useRunningSvc } from '../helpers/spawn-cli.js';

const svc = useRunningSvc();

describe('svc sandbox start --admin-token', () => {
  it.skipIf(!built)('requires the token, prints it once in the dashboard URL, and svc sandbox commands send the saved one', async () => {
    const dir = svc.cfg;
    const child = svc.start(['sandbox', 'start', '--port', '0', '--memory', '--json', '--seed', '--admin-token'], {
      SVC_SANDBOX_ADMIN_TOKEN: '',
    });
    const line = JSON.parse(await child.firstLine());
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

    expect(await child.stop('SIGTERM')).toBe(0);
    // Forgotten when the sandbox stops.
    expect(readFileSync(join(dir.dir, 'credentials.json'), 'utf8')).not.toContain(line.admin_token);
  });
});
