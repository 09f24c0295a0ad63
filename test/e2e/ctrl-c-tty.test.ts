/**
 * Ctrl-C typed at the keyboard of a real pseudo-terminal (tmux `send-keys C-c`, not `kill`): the
 * bulk commands save their progress, print the summary and how to go on, and exit 130; a prompt
 * ends at once with exit 130 and no error text. Skipped without tmux or a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { ordersCsv } from '../helpers/spawn-cli.js';
import { describeTty, exitOf, inSession, keys, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite();
beforeEach(() => suite.sb.admin.setFaults({ latency_ms: 40 }));
afterEach(() => suite.sb.admin.setFaults({}));

/**
 * Runs `svc ARGS` in a terminal, types Ctrl-C once `shown` is on the screen; returns how it ended.
 * For a bulk run `shown` counts at least one row done: the `0 rows` line comes before any answer.
 */
function ctrlC(args: string[], env: Record<string, string>, shown: RegExp, ms: number): Promise<{ screen: string; code: number }> {
  return inSession(startSvc(args, env), async (session) => {
    await waitFor(session, shown);
    keys(session, 'C-c');
    return exitOf(session, ms);
  });
}

describeTty('Ctrl-C from the keyboard', () => {
  it('orders import: saves progress, prints the resume command, exit 130', async () => {
    const file = suite.file('orders.csv', ordersCsv(2000, 'C'));
    const end = await ctrlC(['orders', 'import', '--live', file, '--concurrency', '2'], suite.env(TTY_ENV), /\b[1-9]\d* rows \(/, 20_000);
    expect(end.code, end.screen).toBe(130);
    expect(end.screen).toMatch(/progress saved in/);
    expect(end.screen).toMatch(/--resume/);
  }, 40_000);

  it('events send --file: stops, says how to resume the rest, exit 130', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ event_type: 'ctrl_c', email: `e${i % 20}@example.com` }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const end = await ctrlC(['events', 'send', '--file', file, '--concurrency', '2'], suite.env(TTY_ENV), /\b[1-9]\d* lines \(/, 20_000);
    expect(end.code, end.screen).toBe(130);
    // A file keeps its journal: the exact command that sends the rest, none twice.
    expect(end.screen).toMatch(/progress saved in/);
    const flat = end.screen.replace(/\s+/g, ' ');
    expect(flat).toContain('continue with: svc events send --file');
    expect(flat).toContain('--resume --concurrency 2');
  }, 40_000);

  it('auth login: Ctrl-C at a prompt is exit 130 without an error', async () => {
    const env = { SVC_CONFIG_DIR: suite.tmp.dir, SVC_BASE_URL: suite.sb.baseUrl, ...TTY_ENV };
    const end = await ctrlC(['auth', 'login'], env, /How do you want to authenticate\?/, 10_000);
    expect(end.code, end.screen).toBe(130);
    expect(end.screen).not.toMatch(/error|SIGINT/i);
  }, 20_000);
});
