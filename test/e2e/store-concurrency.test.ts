/**
 * One config folder shared by many processes at once (issue 36, hostile finding 4): every change
 * to the credential store is a read-modify-write under its lock, so 20 concurrent logins keep 20
 * profiles, and 4 concurrent `sandbox start --seed` get 4 distinct profiles, each pointing at its
 * own sandbox with working credentials. Real child processes of the built CLI.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { built, spawnSvc, useRunningSvc } from '../helpers/spawn-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });
const svc = useRunningSvc();

describe.skipIf(!built)('the config folder under concurrency', () => {
  it('20 concurrent `auth login --profile pN --with-token` keep 20 profiles', async () => {
    const env = { HOME: process.env.HOME ?? '', ...fx.env() };
    const token = fx.token;
    const names = Array.from({ length: 20 }, (_, i) => `p${i + 1}`);
    const runs = await Promise.all(
      names.map((name) => spawnSvc(['--profile', name, 'auth', 'login', '--with-token'], env, { stdin: `${token}\n` })),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(fx.tmp.dir, 'credentials.json'), 'utf8')) as { profiles: Record<string, unknown> };
    expect(Object.keys(stored.profiles).sort()).toEqual([...names].sort());
    expect(existsSync(join(fx.tmp.dir, 'credentials.lock'))).toBe(false);
  }, 120_000);

  it('4 concurrent `sandbox start --seed`: 4 distinct profiles, each its own sandbox, each working', async () => {
    const starts = Array.from({ length: 4 }, () =>
      svc.start(['sandbox', 'start', '--port', '0', '--memory', '--json', '--seed'], { SVC_PROFILE: '' }),
    );
    const lines = (await Promise.all(starts.map((s) => s.firstLine(60_000)))).map(
      (l) => JSON.parse(l) as { base_url: string; profile: string },
    );
    const profiles = lines.map((l) => l.profile);
    expect(new Set(profiles).size, JSON.stringify(lines)).toBe(4);
    expect([...profiles].sort()).toEqual(['sandbox', 'sandbox-2', 'sandbox-3', 'sandbox-4']);
    const stored = JSON.parse(readFileSync(join(svc.cfg.dir, 'credentials.json'), 'utf8')) as {
      profiles: Record<string, { base_url?: string; client_id?: string }>;
    };
    for (const l of lines) {
      expect(stored.profiles[l.profile]?.base_url).toBe(l.base_url);
      expect(stored.profiles[l.profile]?.client_id).toMatch(/.+/);
      const list = await spawnSvc(['--profile', l.profile, 'contacts', 'list', '--json'], {
        HOME: process.env.HOME ?? '',
        SVC_CONFIG_DIR: svc.cfg.dir,
      });
      expect(list.code, list.stderr).toBe(0);
    }
  }, 120_000);
});
