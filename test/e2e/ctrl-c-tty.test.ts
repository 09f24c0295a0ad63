/**
 * Ctrl-C typed at the keyboard of a real pseudo-terminal (tmux `send-keys C-c`, not `kill`): the
 * bulk commands save their progress, print the summary and how to go on, and exit 130; a prompt
 * ends at once with exit 130 and no error text. Skipped without tmux or a build.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { root } from '../helpers/spawn-cli.js';
import { exitOf, hasTmux, killSession, startSvc, tmux, waitFor } from '../helpers/tmux.js';

const built = existsSync(join(root, 'dist', 'main.js'));

const suite = cliSuite();
let env: Record<string, string>;
beforeEach(async () => {
  env = suite.env({ CI: '', NO_COLOR: '1' });
  await suite.sb.admin.setFaults({ latency_ms: 40 });
});
afterEach(() => suite.sb.admin.setFaults({}));

describe.skipIf(!built || !hasTmux)('Ctrl-C from the keyboard', () => {
  it('orders import: saves progress, prints the resume command, exit 130', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= 2000; i++) lines.push(`C-${i},${i}.00,EUR,2024-01-01,c${i % 20}@example.com`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const session = startSvc(['orders', 'import', '--live', file, '--concurrency', '2'], env);
    try {
      await waitFor(session, / rows \(/);
      tmux(['send-keys', '-t', session, 'C-c']);
      const end = await exitOf(session, 20_000);
      expect(end.code, end.screen).toBe(130);
      expect(end.screen).toMatch(/progress saved in/);
      expect(end.screen).toMatch(/--resume/);
    } finally {
      killSession(session);
    }
  }, 40_000);

  it('events send --file: stops, says how to resume the rest, exit 130', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ event_type: 'ctrl_c', email: `e${i % 20}@example.com` }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const session = startSvc(['events', 'send', '--file', file, '--concurrency', '2'], env);
    try {
      await waitFor(session, /\d+ lines \(/);
      tmux(['send-keys', '-t', session, 'C-c']);
      const end = await exitOf(session, 20_000);
      expect(end.code, end.screen).toBe(130);
      // A file keeps its journal: the exact command that sends the rest, none twice.
      expect(end.screen).toMatch(/progress saved in/);
      const flat = end.screen.replace(/\s+/g, ' ');
      expect(flat).toContain('continue with: svc events send --file');
      expect(flat).toContain('--resume --concurrency 2');
    } finally {
      killSession(session);
    }
  }, 40_000);

  it('auth login: Ctrl-C at a prompt is exit 130 without an error', async () => {
    const session = startSvc(['auth', 'login'], { SVC_CONFIG_DIR: suite.tmp.dir, SVC_BASE_URL: suite.sb.baseUrl, CI: '', NO_COLOR: '1' });
    try {
      await waitFor(session, /How do you want to authenticate\?/);
      tmux(['send-keys', '-t', session, 'C-c']);
      const end = await exitOf(session, 10_000);
      expect(end.code, end.screen).toBe(130);
      expect(end.screen).not.toMatch(/error|SIGINT/i);
    } finally {
      killSession(session);
    }
  }, 20_000);
});
