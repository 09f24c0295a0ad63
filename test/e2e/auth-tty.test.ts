/**
 * Interactive `svc auth login` in a real pseudo-terminal (tmux): pick the method, type the client
 * id, type the secret (masked, never echoed), pick scopes. Skipped without tmux or a build.
 */
import { expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { describeTty, exitOf, inSession, keys, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite({ token: false });

/**
 * Answers the login prompts from the method on: client credentials (the first choice), the
 * client id, the secret (checked masked while typed), then `scopeKeys` in the scope picker and
 * Enter; returns the screen once it ended and the picker's screen.
 */
async function answerLogin(
  session: string,
  app: { client_id: string; client_secret: string },
  scopeKeys: string[],
): Promise<{ screen: string; code: number; picker: string }> {
  await waitFor(session, /How do you want to authenticate\?/);
  keys(session, 'Enter'); // first choice: client credentials
  await waitFor(session, /Client ID/);
  keys(session, '-l', app.client_id);
  keys(session, 'Enter');
  await waitFor(session, /Client secret/);
  keys(session, '-l', app.client_secret);
  const typing = await waitFor(session, /Client secret.*\*{4}/);
  expect(typing).not.toContain(app.client_secret);
  keys(session, 'Enter');
  const picker = await waitFor(session, /Scopes to request/);
  if (scopeKeys.length > 0) keys(session, ...scopeKeys);
  keys(session, 'Enter');
  return { ...(await exitOf(session)), picker };
}

describeTty('interactive login in a terminal', () => {
  it('asks for the method, client id, hidden secret and scopes, then logs in', async () => {
    const app = await suite.sb.admin.createApp(['contacts_read', 'contacts_write']);
    const session = startSvc(['auth', 'login'], { ...suite.env(), ...TTY_ENV });
    await inSession(session, async () => {
      // nothing is pre-checked: contacts_read and contacts_write
      const { screen, code } = await answerLogin(session, app, ['Space', 'Down', 'Space']);
      expect(code).toBe(0);
      expect(screen).toMatch(/Logged in to/);
      expect(screen).not.toContain(app.client_secret);
    });
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: suite.tmp.dir } });
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
    const app = await suite.sb.admin.createApp(all);
    const dir = tempConfigDir();
    const session = startSvc(['auth', 'login'], { SVC_CONFIG_DIR: dir.dir, ...TTY_ENV }, { cols: 80, rows: 30 });
    await inSession(session, async () => {
      await waitFor(session, /Service base URL \(e\.g\. https:\/\/api\.example\.com\)/);
      keys(session, '-l', suite.sb.baseUrl);
      keys(session, 'Enter');
      const { screen, code, picker } = await answerLogin(session, app, []);
      expect(picker).not.toMatch(/◉/); // nothing pre-selected
      expect(code).toBe(0);
      expect(screen).toContain(`granted scopes: ${all.join(' ')}`);
      expect(screen).not.toContain('warning');
    });
    const status = await runCli(['auth', 'status', '--json'], { env: { SVC_CONFIG_DIR: dir.dir } });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ requested_scopes: null, scopes: all });
    dir.cleanup();
  });
});
