/**
 * Interactive `svc auth login` in a real pseudo-terminal (tmux): pick the method, type the client
 * id, type the secret (masked, never echoed), pick scopes. Skipped without tmux or a build.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';
import { root } from '../helpers/spawn-cli.js';
import { exitOf, hasTmux, killSession, startSvc, tmux, waitFor } from '../helpers/tmux.js';

const built = existsSync(join(root, 'dist', 'main.js'));

let sb: TestSandbox;
let cfg: { dir: string; cleanup: () => void };
beforeAll(async () => {
  sb = await withSandbox();
  cfg = tempConfigDir();
});
afterAll(async () => {
  cfg.cleanup();
  await sb.close();
});

describe.skipIf(!built || !hasTmux)('interactive login in a terminal', () => {
  it('asks for the method, client id, hidden secret and scopes, then logs in', async () => {
    const app = await sb.admin.createApp(['contacts_read', 'contacts_write']);
    const session = startSvc(['auth', 'login'], { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, CI: '', NO_COLOR: '1' });
    try {
      await waitFor(session, /How do you want to authenticate\?/);
      tmux(['send-keys', '-t', session, 'Enter']); // first choice: client credentials
      await waitFor(session, /Client ID/);
      tmux(['send-keys', '-t', session, '-l', app.client_id]);
      tmux(['send-keys', '-t', session, 'Enter']);
      await waitFor(session, /Client secret/);
      tmux(['send-keys', '-t', session, '-l', app.client_secret]);
      const typing = await waitFor(session, /Client secret.*\*{4}/);
      expect(typing).not.toContain(app.client_secret);
      tmux(['send-keys', '-t', session, 'Enter']);
      await waitFor(session, /Scopes to request/);
      tmux(['send-keys', '-t', session, 'Space', 'Down', 'Space']); // nothing is pre-checked: contacts_read and contacts_write
      tmux(['send-keys', '-t', session, 'Enter']);
      const { screen, code } = await exitOf(session);
      expect(code).toBe(0);
      expect(screen).toMatch(/Logged in to/);
      expect(screen).not.toContain(app.client_secret);
    } finally {
      killSession(session);
    }
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: cfg.dir } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      method: 'client_credentials',
      client_id: app.client_id,
      requested_scopes: ['contacts_read', 'contacts_write'],
      scopes: ['contacts_read', 'contacts_write'],
    });
  });

  it('Enter at every prompt (the base URL typed after its example) gets every scope of the application', async () => {
    const all = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'];
    const app = await sb.admin.createApp(all);
    const dir = tempConfigDir();
    const session = startSvc(['auth', 'login'], { SVC_CONFIG_DIR: dir.dir, CI: '', NO_COLOR: '1' }, { cols: 80, rows: 30 });
    try {
      await waitFor(session, /Service base URL \(e\.g\. https:\/\/api\.example\.com\)/);
      tmux(['send-keys', '-t', session, '-l', sb.baseUrl]);
      tmux(['send-keys', '-t', session, 'Enter']);
      await waitFor(session, /How do you want to authenticate\?/);
      tmux(['send-keys', '-t', session, 'Enter']);
      await waitFor(session, /Client ID/);
      tmux(['send-keys', '-t', session, '-l', app.client_id]);
      tmux(['send-keys', '-t', session, 'Enter']);
      await waitFor(session, /Client secret/);
      tmux(['send-keys', '-t', session, '-l', app.client_secret]);
      tmux(['send-keys', '-t', session, 'Enter']);
      const picker = await waitFor(session, /Scopes to request/);
      expect(picker).not.toMatch(/◉/); // nothing pre-selected
      tmux(['send-keys', '-t', session, 'Enter']);
      const { screen, code } = await exitOf(session);
      expect(code).toBe(0);
      expect(screen).toContain(`granted scopes: ${all.join(' ')}`);
      expect(screen).not.toContain('warning');
    } finally {
      killSession(session);
    }
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: dir.dir } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requested_scopes: null, scopes: all });
    dir.cleanup();
  });
});
