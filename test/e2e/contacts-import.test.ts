/**
 * The built `svc contacts import` killed with SIGKILL halfway (nothing saved on the way out),
 * then `--resume`: the totals of one uninterrupted run, every contact present, the full report.
 * Needs `node build.mjs` first (npm test does it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnSvc } from '../helpers/spawn-cli.js';

const suite = cliSuite({ build: true });
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env();
});

const N = 1000;

describe('e2e: svc contacts import', () => {
  it('SIGKILL halfway, then --resume: one run’s totals, every contact present', async () => {
    const file = join(suite.tmp.dir, 'people.csv');
    const report = join(suite.tmp.dir, 'report.csv');
    // Every tenth line repeats the person five lines up: 900 people, 100 updates.
    const lines = ['email,first_name,accepts_email_marketing'];
    for (let i = 1; i <= N; i++) lines.push(`k${i % 10 === 0 ? i - 5 : i}@example.com,K${i},yes`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    await suite.sb.admin.setFaults({ latency_ms: 5 });
    const killed = await spawnSvc(['contacts', 'import', file, '--report', report, '--concurrency', '8'], env, {
      onSpawn: (kill) => {
        let done = false;
        const timer = setInterval(async () => {
          if (done) return;
          const r = await runCli(['contacts', 'list', '--email', 'k501@example.com', '--json'], { env }).catch(() => undefined);
          if (r && JSON.parse(r.stdout || '[]').length > 0) {
            done = true;
            clearInterval(timer);
            kill('SIGKILL');
          }
        }, 10);
        return () => {
          done = true;
          clearInterval(timer);
        };
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    await suite.sb.admin.setFaults({});
    const resumed = await spawnSvc(['contacts', 'import', file, '--report', report, '--resume', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const s = JSON.parse(resumed.stdout);
    expect(s.rows).toBe(N);
    expect(s.rejected + s.failed + s.skipped).toBe(0);
    expect(s.created + s.updated + s.unconfirmed).toBe(N);
    expect(s.created).toBeLessThanOrEqual(900);
    expect(s.updated).toBeLessThanOrEqual(100);
    expect(s.created + s.unconfirmed).toBeGreaterThanOrEqual(900);
    expect(s.resumed).toBeGreaterThan(300);
    expect(s.resumed).toBeLessThan(N);
    expect(s.unconfirmed).toBeLessThanOrEqual(256 + 8);
    const all = await runCli(['contacts', 'list', '--all', '--page-size', '250', '--format', 'ndjson'], { env });
    expect(all.stdout.trim().split('\n')).toHaveLength(900);
    const rows = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(rows).toHaveLength(N + 1);
    expect(rows[0]).toBe('line,email,phone,contact_id,outcome,status,error_code,message');
    expect(rows.slice(1).every((l) => /,ct_\w+,(created|updated|unconfirmed),20[01],/.test(l))).toBe(true);
  }, 90_000);
});
