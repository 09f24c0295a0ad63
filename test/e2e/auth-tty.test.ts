/**
 * Interactive `svc auth login` in a real pseudo-terminal (tmux): pick the method, type the client
 * id, type the secret (masked, never echoed), pick scopes. Skipped without tmux or a build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/main.js', import.meta.url)));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmux(args: string[]): string {
  const r = spawnSync('tmux', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function waitFor(session: string, pattern: RegExp, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  let screen = '';
  while (Date.now() < until) {
    screen = tmux(['capture-pane', '-p', '-t', session]);
    if (pattern.test(screen)) return screen;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${pattern} in:\n${screen}`);
}

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
    const session = `svc-auth-${process.pid}-${Date.now()}`;
    const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, CI: '', NO_COLOR: '1' };
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = `'${process.execPath}' '${bin}' auth login; echo "EXIT=$?"; sleep 30`;
    tmux(['new-session', '-d', '-s', session, '-x', '150', '-y', '30', ...envArgs, cmd]);
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
      tmux(['send-keys', '-t', session, 'Down', 'Space']); // add contacts_write to the pre-checked contacts_read
      tmux(['send-keys', '-t', session, 'Enter']);
      const screen = await waitFor(session, /EXIT=\d+/);
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toMatch(/Logged in to/);
      expect(screen).not.toContain(app.client_secret);
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
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
});
