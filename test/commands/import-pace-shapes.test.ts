/**
 * The rate-limit shapes of issue 25 that import-pace.test.ts does not run end to end, against the
 * sandbox with compressed windows: the burst and steady windows without headers (the rate learned
 * from the 429s), a sliding window with `RateLimit-*` headers (paced from the first answers, no
 * 429), and a cap on requests in flight with a window and `X-RateLimit-*` headers (Reset as a Unix
 * time). Every row once in each; the share of the steady rate is the bench's (docs/performance.md).
 * And a resumed run's rate and ETA: only the rows it sends count, not those an earlier run finished.
 * Each test has a sandbox of its own and all but one run side by side: they mostly wait on the
 * windows. The one whose rate is bound by the machine (a cap on requests in flight) runs alone,
 * in its place (after others: the first loading of the CLI's modules is not in its rate).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type OwnSandbox, withOwnSandbox } from '../helpers/own-sandbox.js';

function writeOrders(path: string, n: number, prefix = 'S'): void {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},${i}.00,EUR,2024-01-01,s${i % 40}@example.com`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function timedImport(suite: OwnSandbox, n: number, extra: string[] = [], env: Record<string, string> = {}, prefix = 'S') {
  const file = join(suite.dir, `${prefix}.csv`);
  writeOrders(file, n, prefix);
  const started = Date.now();
  const r = await suite.svc(['orders', 'import', '--live', file, '--json', '--concurrency', '8', ...extra], { env });
  expect(r.code, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout);
  expect(s).toMatchObject({ rows: n, created: n, updated: 0, unconfirmed: 0, failed: 0 });
  return { r, s, seconds: (Date.now() - started) / 1000 };
}

describe('orders import at the service pace: the other shapes', () => {
  it.concurrent(
    'burst 30/s with a steady 100 per 5 s, no headers: the steady rate learned from the 429s, not the burst',
    () =>
      withOwnSandbox(async (suite) => {
        // Windows that start at the run's first request: on the clock's 5-s boundaries, where the
        // run began inside one decided when the steady limit was first met (row 100 to 190), and a
        // run that met it late had its 429s counted as the ones after learning (failed 2 of 6 at load 4).
        await suite.sb.admin.setFaults({
          rate_limits: {
            windows: [
              { limit: 30, window_s: 1, start: 'first_request' },
              { limit: 100, window_s: 5, start: 'first_request' },
            ],
          },
        });
        const { r, s, seconds } = await timedImport(suite, 300, [], { SVC_PROGRESS_INTERVAL: '0.2' });
        // 300 rows at 20/s, the first window's 100 as fast as the burst allows: 10 s at least.
        expect(seconds).toBeGreaterThan(10);
        expect(s.rows_per_second).toBeGreaterThan(0.5 * 20);
        // The steady window is met at row 100 (3.3 s in at the burst) and shut until 5 s; its rate
        // is learned from that first 429, even half a second after the burst window's at row 90:
        // from row 110 (the window shut at 100, so these lines come after the wait) to the next
        // window's end, the pace shown is about the steady 20/s (18.4-21.4 in 6 runs at load 5-6).
        // Not the burst's 25-29/s kept until row 200, nor 9.9-11.6/s from a rate measured over the
        // wait (a retry refused in the shut window's last second, Retry-After: 1, taken for the
        // burst window's), which the runs showed half and half before. (Not "after the wait is
        // shown": on a busy machine no progress line may fall within that wait.) The 429s: 10-48 in
        // 32 runs at load 4-10, most while the burst window's rate is learned (how the first
        // requests bunch up on a busy CPU decides how many); retried at once instead of waited out,
        // they would be thousands.
        const paces: number[] = [];
        for (const line of r.stderr.split('\n')) {
          const m = /^progress: (\d+) rows .*; limited by the service: ([\d.]+) rows\/s$/.exec(line);
          if (m && Number(m[1]) >= 110 && Number(m[1]) < 195) paces.push(Number(m[2]));
        }
        expect(paces.length, r.stderr).toBeGreaterThan(0);
        expect(Math.max(...paces), r.stderr).toBeLessThanOrEqual(24);
        expect(Math.min(...paces), r.stderr).toBeGreaterThanOrEqual(12);
        expect(s.rate_limited, r.stderr).toBeLessThanOrEqual(90);
      }),
    60_000,
  );

  it.concurrent(
    'a sliding 30 per 3 s with RateLimit-* headers: paced from the first answers, hardly a 429',
    () =>
      withOwnSandbox(async (suite) => {
        await suite.sb.admin.setFaults({ rate_limits: { windows: [{ limit: 30, window_s: 3, sliding: true }], headers: 'ratelimit' } });
        const { s, seconds } = await timedImport(suite, 75);
        // Not the 8 in flight refused when a window fills unannounced; a hold on a Reset rounded up to
        // a second ends in the middle of that second, which on a 3-s window is now and then too early
        // (on the bench's 10-s window: 1 of 3,601 requests).
        expect(s.rate_limited).toBeLessThanOrEqual(3);
        // 75 rows at 10/s, the first window's 30 at once: 4.5 s at least.
        expect(seconds).toBeGreaterThan(4);
      }),
    30_000,
  );

  it(
    'a cap of 4 in flight with a window and X-RateLimit-* headers: settles at the cap, few 429s',
    () =>
      withOwnSandbox(async (suite) => {
        // The reference: the same import at --concurrency 4 with no cap, what this machine allows
        // now (4 in flight at 40 ms each: 100/s at most; a bound of half that failed in CI at load 8).
        await suite.sb.admin.setFaults({ latency_ms: 40 });
        const base = await timedImport(suite, 200, ['--concurrency', '4'], {}, 'R');
        await suite.sb.admin.setFaults({
          latency_ms: 40,
          rate_limits: { max_in_flight: 4, windows: [{ limit: 500, window_s: 1 }], headers: 'x-ratelimit' },
        });
        const { s } = await timedImport(suite, 200);
        // The 4 over the cap at the start (X-RateLimit-Remaining > 0 on them: the cap's, not the
        // window's), then a probe every few seconds.
        expect(s.rate_limited).toBeLessThanOrEqual(8);
        // A rate learned from those 429s held it to half; two runs of 2-4 s differ by a fifth on a
        // busy machine (import-pace.test.ts's cap of 4 without headers bounds it the same way).
        expect(s.rows_per_second).toBeGreaterThan(0.65 * base.s.rows_per_second);
      }),
    30_000,
  );

  it.concurrent(
    "a resumed run's progress: the rate and the ETA are this run's, the rows finished before count as done but took no time",
    () =>
      withOwnSandbox(async (suite) => {
        const file = join(suite.dir, 'o.csv');
        const journal = join(suite.dir, 'o.journal');
        writeOrders(file, 120);
        // The first run: 60 rows in a minute's window, the others failed (a wait over --max-retry-wait).
        // A sliding window: a fixed one is aligned on the clock's minutes, and a run that crossed one
        // would be given a fresh 60 (failed in CI: exit 0, all 120 created).
        await suite.sb.admin.setFaults({ rate_limits: { windows: [{ limit: 60, window_s: 60, sliding: true }] } });
        const first = await suite.svc([
          'orders',
          'import',
          '--live',
          file,
          '--json',
          '--journal',
          journal,
          '--max-retry-wait',
          '1',
          '--concurrency',
          '4',
        ]);
        expect(first.code).toBe(4);
        const a = JSON.parse(first.stdout);
        expect(a.created).toBe(60);
        // The rest at 10/s (headers tell it): 6 s; the first 60 go by at once.
        await suite.sb.admin.setFaults({ rate_limits: { windows: [{ limit: 10, window_s: 1 }], headers: 'ratelimit' } });
        const second = await suite.svc(
          ['orders', 'import', '--live', file, '--json', '--journal', journal, '--resume', '--concurrency', '4'],
          {
            env: { SVC_PROGRESS_INTERVAL: '0.3' },
          },
        );
        expect(second.code, second.stderr).toBe(0);
        expect(JSON.parse(second.stdout)).toMatchObject({ rows: 120, created: 120, resumed: 60, failed: 0 });
        const lines = second.stderr
          .split('\n')
          .map((l) => /^progress: (\d+) rows \(([\d.]+)\/s, \d+%, ETA (\d+) s\)/.exec(l))
          .filter((m) => m !== null)
          .map((m) => ({ done: Number(m[1]), rate: Number(m[2]), eta: Number(m[3]) }));
        // Half-way through this run's rows: counting the 60 resumed as sent would say 20/s or more and
        // an ETA of a second or two.
        const mid = lines.find((l) => l.done >= 80 && l.done <= 100);
        expect(mid, second.stderr).toBeDefined();
        const { done, rate, eta } = mid as { done: number; rate: number; eta: number };
        expect(rate).toBeLessThanOrEqual(13);
        expect(eta).toBeGreaterThanOrEqual(Math.floor((120 - done) / 13));
      }),
    40_000,
  );
});
