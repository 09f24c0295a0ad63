/**
 * Progress of the bulk commands in a real pseudo-terminal (tmux): `svc orders import` redraws one
 * status line (rows, rate, share of the file read, ETA, counts so far) and clears it before the
 * summary; `svc events send --file` shows the same line (commands/progress.ts) in lines. Skipped
 * without tmux or a build.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { root } from '../helpers/spawn-cli.js';
import { exitOf, hasTmux, killSession, screen, startSvc, waitFor } from '../helpers/tmux.js';

const built = existsSync(join(root, 'dist', 'main.js'));

const suite = cliSuite();
let env: Record<string, string>;
beforeEach(async () => {
  env = suite.env({ CI: '', NO_COLOR: '1' });
  await suite.sb.admin.setFaults({ latency_ms: 25 });
});
afterEach(() => suite.sb.admin.setFaults({}));

describe.skipIf(!built || !hasTmux)('progress on a terminal', () => {
  it('orders import: one redrawn status line while it runs, gone before the summary', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 300; i++) lines.push(`P-${i},${i}.00,EUR,2024-01-01,p${i % 20}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const session = startSvc(['orders', 'import', '--live', file, '--concurrency', '2'], env);
    try {
      const status = /(\d+) rows \([\d.,]+\/s, (\d+)%, ETA \d+ (s|min)\): (\d+) created, 0 updated, 0 unconfirmed, 0 rejected, 0 failed/;
      const first = await waitFor(session, status);
      const seen = Number(status.exec(first)?.[1]);
      expect(seen).toBeLessThan(300);
      // Redrawn in place: a later screen shows more rows on the one status line, not a second line.
      let later = first;
      for (let i = 0; i < 100 && Number(status.exec(later)?.[1] ?? 0) <= seen; i++) {
        await new Promise((r) => setTimeout(r, 50));
        later = screen(session);
      }
      expect(Number(status.exec(later)?.[1])).toBeGreaterThan(seen);
      expect(later.match(/ rows \(/g)).toHaveLength(1);
      const end = await exitOf(session);
      expect(end.code).toBe(0);
      expect(end.screen).toMatch(/^created +300$/m);
      expect(end.screen).not.toMatch(/ rows \(.*\/s/);
    } finally {
      killSession(session);
    }
  });

  it('events send --file: the same redrawn status line as the import (lines, rate, share read, ETA, counts)', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ event_type: 'tty_check', email: `t${i % 20}@example.com` }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const session = startSvc(['events', 'send', '--file', file, '--concurrency', '2'], env);
    try {
      const status = /(\d+) lines \([\d.,]+\/s, (\d+)%, ETA \d+ (s|min)\): (\d+) accepted, 0 rejected, 0 failed, 0 unconfirmed/;
      const first = await waitFor(session, status);
      const seen = Number(status.exec(first)?.[1]);
      expect(seen).toBeLessThan(400);
      let later = first;
      for (let i = 0; i < 100 && Number(status.exec(later)?.[1] ?? 0) <= seen; i++) {
        await new Promise((r) => setTimeout(r, 50));
        later = screen(session);
      }
      expect(Number(status.exec(later)?.[1])).toBeGreaterThan(seen);
      expect(later.match(/ lines \(/g)).toHaveLength(1);
      const end = await exitOf(session);
      expect(end.code).toBe(0);
      expect(end.screen).toMatch(/accepted\s+400/);
      expect(end.screen).not.toMatch(/ lines \(.*\/s/);
    } finally {
      killSession(session);
    }
  });
});
