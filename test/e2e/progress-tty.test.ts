/**
 * Progress of the bulk commands in a real pseudo-terminal (tmux): `svc orders import` redraws one
 * status line (rows, rate, share of the file read, ETA, counts so far) and clears it before the
 * summary; `svc events send --file` shows the same line (commands/progress.ts) in lines. Skipped
 * without tmux or a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { ordersCsv } from '../helpers/spawn-cli.js';
import { describeTty, exitOf, inSession, startSvc, TTY_ENV, waitFor, waitForCountPast } from '../helpers/tmux.js';

const suite = cliSuite();
beforeEach(() => suite.sb.admin.setFaults({ latency_ms: 25 }));
afterEach(() => suite.sb.admin.setFaults({}));

interface Expected {
  /** The status line; its first group counts the items done. */
  status: RegExp;
  /** What only the status line shows (global), once on the screen at a time. */
  one: RegExp;
  /** The status line while it counts (a rate), gone from the final screen. */
  gone: RegExp;
  /** The summary on the final screen. */
  summary: RegExp;
}

/**
 * Runs `svc ARGS` on `total` items in a terminal: the status line shows before the end and is
 * redrawn in place (one such line, its count growing), and is gone once the command exited 0
 * with its summary on the screen.
 */
async function redrawnStatus(args: string[], total: number, { status, one, gone, summary }: Expected): Promise<void> {
  await inSession(startSvc(args, suite.env(TTY_ENV)), async (session) => {
    const first = await waitFor(session, status);
    const seen = Number(status.exec(first)?.[1]);
    expect(seen).toBeLessThan(total);
    // Redrawn in place: a later screen shows more on the one status line, not a second line.
    const later = await waitForCountPast(session, status, seen, first);
    expect(Number(status.exec(later)?.[1])).toBeGreaterThan(seen);
    expect(later.match(one)).toHaveLength(1);
    const end = await exitOf(session);
    expect(end.code).toBe(0);
    expect(end.screen).toMatch(summary);
    expect(end.screen).not.toMatch(gone);
  });
}

// Each test has 90 s: at a load of 25 on 2 cores one took over the default 30 s.
describeTty('progress on a terminal', () => {
  it('orders import: one redrawn status line while it runs, gone before the summary', async () => {
    const file = suite.file('orders.csv', ordersCsv(300, 'P'));
    await redrawnStatus(['orders', 'import', '--live', file, '--concurrency', '2'], 300, {
      status: /(\d+) rows \([\d.,]+\/s, (\d+)%, ETA \d+ (s|min)\): (\d+) created, 0 updated, 0 unconfirmed, 0 rejected, 0 failed/,
      one: / rows \(/g,
      gone: / rows \(.*\/s/,
      summary: /^created +300$/m,
    });
  }, 90_000);

  it('events send --file: the same redrawn status line as the import (lines, rate, share read, ETA, counts)', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ event_type: 'tty_check', email: `t${i % 20}@example.com` }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    await redrawnStatus(['events', 'send', '--file', file, '--concurrency', '2'], 400, {
      status: /(\d+) lines \([\d.,]+\/s, (\d+)%, ETA \d+ (s|min)\): (\d+) accepted, 0 rejected, 0 failed, 0 unconfirmed/,
      one: / lines \(/g,
      gone: / lines \(.*\/s/,
      summary: /accepted\s+400/,
    });
  }, 90_000);
});
