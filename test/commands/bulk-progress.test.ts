/**
 * The bulk commands' progress off a terminal (CI logs): one `progress:` line every 10 s, the same
 * line for `orders import` and `events send --file` (what was done, rate, share of the file read,
 * ETA, counts so far); nothing with --json. The 10 s timer is faked (only setInterval: HTTP and
 * the sandbox keep real time); the terminal's spinner is tested in tmux (e2e/progress-tty.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { progressLine } from '../../src/io/progress.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();

afterEach(async () => {
  vi.useRealTimers();
  await suite.sb.admin.setFaults({});
});

/**
 * The progress lines of a run's stderr: those after the first row or line is done, and those
 * before it (on a loaded machine the faked 10 s tick can come before the first answer: nothing
 * done yet shows a rate of 0, with the share read and an ETA only once the reader has started).
 */
function progressLines(stderr: string, unit: 'rows' | 'lines'): { started: string[]; before: string[] } {
  const all = stderr.split('\n').filter((l) => l.startsWith('progress: '));
  const zero = `progress: 0 ${unit} `;
  return { started: all.filter((l) => !l.startsWith(zero)), before: all.filter((l) => l.startsWith(zero)) };
}

/** Runs svc while moving the faked 10 s progress timer on every 100 ms of real time. */
async function runWatched(argv: string[]) {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const run = runCli(argv, { env: suite.env() });
  let finished = false;
  void run.finally(() => {
    finished = true;
  });
  while (!finished) {
    await new Promise((r) => setTimeout(r, 100));
    vi.advanceTimersByTime(10_000);
  }
  return run;
}

/** Runs ARGS at 20 ms a request (exit 0) and returns its progress lines, some of them after the start. */
async function progressOf(args: string[], unit: 'lines' | 'rows') {
  await suite.sb.admin.setFaults({ latency_ms: 20 });
  const r = await runWatched(args);
  expect(r.code, r.stderr).toBe(0);
  const lines = progressLines(r.stderr, unit);
  expect(lines.started.length).toBeGreaterThan(0);
  return { r, ...lines };
}

describe('progress off a terminal', () => {
  it('events send --file: progress lines with lines, rate, share read, ETA and the counts so far', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ event_type: 'progress_check', email: `p${i}@example.com` }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { r, started, before } = await progressOf(['events', 'send', '--file', file, '--concurrency', '1'], 'lines');
    for (const l of started) {
      expect(l).toMatch(/^progress: \d+ lines \([\d.]+\/s, \d+%, ETA \d+ (s|min)\): \d+ accepted, 0 rejected, 0 failed, 0 unconfirmed$/);
    }
    for (const l of before)
      expect(l).toMatch(/^progress: 0 lines \(0\.0\/s(, \d+%, ETA \d+ (s|min))?\): 0 accepted, 0 rejected, 0 failed, 0 unconfirmed$/);
    expect(r.stdout).toMatch(/^accepted\t60$/m);
  });

  it('orders import: the same line, in rows', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const rows = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 40; i++) rows.push(`PR-${i},${i}.00,EUR,2024-01-01,o${i}@example.com`);
    writeFileSync(file, `${rows.join('\n')}\n`);
    const { started, before } = await progressOf(['orders', 'import', '--live', file, '--concurrency', '1'], 'rows');
    for (const l of started) {
      expect(l).toMatch(
        /^progress: \d+ rows \([\d.]+\/s, \d+%, ETA \d+ (s|min)\): \d+ created, 0 updated, 0 unconfirmed, 0 rejected, 0 failed$/,
      );
    }
    for (const l of before)
      expect(l).toMatch(
        /^progress: 0 rows \(0\.0\/s(, \d+%, ETA \d+ (s|min))?\): 0 created, 0 updated, 0 unconfirmed, 0 rejected, 0 failed$/,
      );
  });

  it('--json: no progress line', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    writeFileSync(file, `${Array.from({ length: 20 }, () => JSON.stringify({ event_type: 'q', email: 'q@example.com' })).join('\n')}\n`);
    await suite.sb.admin.setFaults({ latency_ms: 20 });
    const r = await runWatched(['events', 'send', '--file', file, '--concurrency', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});

describe('the progress line', () => {
  const src = (done: number, bytes: number, limited = 0) => ({
    done: () => done,
    resumed: () => 0,
    bytesRead: () => bytes,
    rateLimited: () => limited,
    counts: () => `${done} accepted`,
  });
  it('says what was done, the rate, the share read and the time left', () => {
    expect(progressLine(src(500, 250, 0), 'lines', 10, 1000)).toBe('500 lines (50.0/s, 25%, ETA 30 s): 500 accepted');
    expect(progressLine(src(23600, 100, 3), 'lines', 60, 1000)).toBe(
      '23600 lines (393/s, 10%, ETA 9 min): 23600 accepted, 3 rate-limited retries',
    );
    // stdin or a pipe: no size, so no share or ETA.
    expect(progressLine(src(12, 0), 'rows', 2, undefined)).toBe('12 rows (6.0/s): 12 accepted');
  });
});
