/**
 * The built `svc orders import` as a user runs it: a child process with pipes, killed with SIGKILL
 * halfway (no chance to save anything), then `--resume`; and SIGINT (Ctrl-C) saving progress.
 * Needs `node build.mjs` first (npm test does it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { spawnSvc } from '../helpers/spawn-cli.js';

const suite = cliSuite({ build: true });
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env();
});

const N = 1000;
function writeOrders(path: string): void {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= N; i++)
    lines.push(
      i % 10 === 0 ? `K-${i - 5},${i}.00,EUR,2024-01-01,k${i % 40}@example.com` : `K-${i},${i}.00,EUR,2024-01-01,k${i % 40}@example.com`,
    );
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** Kills the child once the sandbox holds `order_id` (so "halfway" does not depend on timing). */
function killWhenStored(orderId: string, signal: NodeJS.Signals): (kill: (s: NodeJS.Signals) => void) => () => void {
  return (kill) => {
    let done = false;
    const timer = setInterval(async () => {
      if (done) return;
      if (await suite.sb.admin.order(orderId).catch(() => undefined)) {
        done = true;
        clearInterval(timer);
        kill(signal);
      }
    }, 10);
    return () => {
      done = true;
      clearInterval(timer);
    };
  };
}

describe('e2e: svc orders import', () => {
  it('SIGKILL halfway, then --resume: the totals of one uninterrupted run, every order present', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const report = join(suite.tmp.dir, 'report.csv');
    writeOrders(file);
    await suite.sb.admin.setFaults({ latency_ms: 5 });
    const killed = await spawnSvc(['orders', 'import', '--live', file, '--report', report, '--concurrency', '8'], env, {
      onSpawn: killWhenStored('K-501', 'SIGKILL'),
    });
    expect(killed.signal).toBe('SIGKILL');
    await suite.sb.admin.setFaults({});
    const resumed = await spawnSvc(['orders', 'import', '--live', file, '--report', report, '--resume', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const s = JSON.parse(resumed.stdout);
    // Uninterrupted: 1000 rows, 900 created, 100 updated (every tenth line repeats an earlier id).
    expect(s.rows).toBe(N);
    expect(s.rejected + s.failed).toBe(0);
    expect(s.created + s.updated + s.unconfirmed).toBe(N);
    expect(s.created).toBeLessThanOrEqual(900);
    expect(s.updated).toBeLessThanOrEqual(100);
    expect(s.resumed).toBeGreaterThan(300);
    expect(s.resumed).toBeLessThan(N);
    // A killed run loses at most the rows in flight plus one journal batch; only those can be unconfirmed.
    expect(s.unconfirmed).toBeLessThanOrEqual(256 + 8);
    for (let i = 1; i <= N; i++) if (i % 10 !== 0) expect(await suite.sb.admin.order(`K-${i}`), `K-${i}`).toBeDefined();
    const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(N + 1);
  }, 60_000);

  it('SIGINT saves progress and exits 130 printing the resume command', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    writeOrders(file);
    await suite.sb.admin.setFaults({ latency_ms: 5 });
    const r = await spawnSvc(['orders', 'import', '--live', file, '--concurrency', '4'], env, {
      onSpawn: killWhenStored('K-101', 'SIGINT'),
    });
    expect(r.code, r.stdout + r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted after \d+ finished row\(s\); progress saved in /);
    expect(r.stderr).toContain(`continue with: svc orders import ${file} --resume --live --concurrency 4`);
    await suite.sb.admin.setFaults({});
    const resumed = await spawnSvc(['orders', 'import', '--live', file, '--resume', '--concurrency', '4', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: N, rejected: 0, failed: 0 });
    expect(JSON.parse(resumed.stdout).resumed).toBeGreaterThanOrEqual(90);
  }, 60_000);
});
