/**
 * At 80 columns in a real pseudo-terminal (tmux; issue 30): `svc help`, an import's progress line
 * and its rejected-row listing never pass 80 characters (capture-pane -J joins the lines the
 * terminal wrapped, so a wrapped line shows up longer than 80), and TERM=dumb draws no braille
 * spinner. Skipped without tmux or a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { describeTty, exitOf, joinedLines, killSession, screen, startShell, startSvc, svcLine, TTY_ENV, waitFor } from '../helpers/tmux.js';

const SIZE = { cols: 80, rows: 60 };

const suite = cliSuite({ reset: false });
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env(TTY_ENV);
});
afterEach(() => suite.sb.admin.setFaults({}));

/** The whole history of the pane with the terminal's wraps undone. */
function joined(session: string): string[] {
  return joinedLines(session, 1000).map((l) => l.trimEnd());
}

const over80 = (lines: string[]) => lines.filter((l) => [...l].length > 80);

/** An orders CSV of `n` good rows and a few rows with long reasons to reject. */
function ordersFile(n: number): string {
  const file = join(suite.tmp.dir, 'orders.csv');
  const lines = ['order_id,total,currency,order_date,email,phone,accepts_sms_marketing'];
  for (let i = 1; i <= n; i++) lines.push(`W-${i},${i}.00,EUR,2024-01-01,w${i % 20}@example.com,,`);
  lines.push('W-bad-1,10.00,EUR,05/04/2023,someone.with.a.long.address@example.com,,');
  lines.push('W-bad-2,10.00,EUR,2024-01-01,,,true');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describeTty('80 columns in a terminal', () => {
  it('svc help: no line over 80 characters', async () => {
    const session = startSvc(['help'], env, SIZE);
    try {
      await exitOf(session);
      const lines = joined(session);
      expect(lines.join('\n')).toContain('contacts list');
      expect(over80(lines)).toEqual([]);
    } finally {
      killSession(session);
    }
  });

  it('orders import: the progress line and the rejected rows stay within 80 columns', async () => {
    await suite.sb.admin.setFaults({ latency_ms: 25 });
    const file = ordersFile(200);
    const session = startSvc(['orders', 'import', '--live', file, '--concurrency', '2'], env, SIZE);
    try {
      // Ten rows done or more: wider counts than the `0 rows` line drawn before the first answer.
      const during = await waitFor(session, /\b[1-9]\d+ rows \(/);
      expect(over80(during.split('\n'))).toEqual([]);
      const end = await exitOf(session, 60_000);
      expect(end.code).toBe(4);
      const lines = joined(session);
      expect(lines.join('\n')).toMatch(/line 202 \(W-bad-1\): rejected/);
      expect(lines.join('\n')).toContain('hint: every row: rerun with --dry-run --report FILE (sends nothing)');
      expect(over80(lines)).toEqual([]);
    } finally {
      killSession(session);
    }
  }, 90_000);

  it('TERM=dumb: no braille spinner, no redrawn line', async () => {
    await suite.sb.admin.setFaults({ latency_ms: 25 });
    const file = ordersFile(100);
    // tmux sets TERM in the pane itself: the command line sets it for svc.
    const session = startShell(`TERM=dumb ${svcLine(['orders', 'import', '--live', file, '--concurrency', '2'])}`, env, SIZE);
    try {
      // Watched while it runs: a spinner would show its frames, then be cleared before the summary.
      const seen: string[] = [];
      for (let i = 0; i < 400 && !/EXIT=\d+/.test(seen.at(-1) ?? ''); i++) {
        seen.push(screen(session));
        await new Promise((r) => setTimeout(r, 25));
      }
      const end = await exitOf(session, 60_000);
      expect(end.code).toBe(4);
      expect(seen.length).toBeGreaterThan(5);
      expect(seen.join('\n')).not.toMatch(/[\u2800-\u28ff]/);
    } finally {
      killSession(session);
    }
  }, 90_000);
});
