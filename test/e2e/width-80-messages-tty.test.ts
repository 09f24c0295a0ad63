/**
 * Every line a person reads fits an 80-column terminal (issue 36), in a real pseudo-terminal
 * (tmux): the login confirmation, the interactive method and scope prompts of `auth login`,
 * `auth status`'s method line, `contacts create`'s welcome-SMS note, the 409 error and the unknown
 * help-topic hint; each wrapped between words, hints on their own lines. capture-pane -J joins the
 * lines the terminal itself wrapped, so a line svc did not wrap shows up longer than 80.
 */
import { afterEach, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { describeTty, exitOf, joinedLines, keys, killSession, startShell, startSvc, svcLine, TTY_ENV, waitFor } from '../helpers/tmux.js';

const SIZE = { cols: 80, rows: 50 };
const suite = cliSuite({ reset: false, config: 'file', token: false });
const sessions: string[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) killSession(s);
});

function session(s: string): string {
  sessions.push(s);
  return s;
}

/** The whole pane with the terminal's own wraps undone. */
const joined = (s: string) => joinedLines(s, 1000).map((l) => l.trimEnd());
const over80 = (lines: string[]) => lines.filter((l) => [...l].length > 80);
/** The pane's text with svc's wraps undone too (a line break and its indent as one space). */
const unwrapped = (s: string) =>
  joined(s)
    .join('\n')
    .replace(/\n {2,}/g, ' ');

describeTty('messages at 80 columns', () => {
  it('auth login: the method prompt, the scope prompt and the confirmation', async () => {
    const app = await suite.sb.admin.createApp(['contacts_read', 'contacts_write']);
    const env = suite.env({ ...TTY_ENV, HOME: suite.tmp.dir });
    const s = session(startSvc(['--base-url', suite.sb.baseUrl, 'auth', 'login'], env, SIZE));
    await waitFor(s, /How do you want to authenticate/);
    expect(over80(joined(s))).toEqual([]);
    keys(s, 'Enter');
    await waitFor(s, /Client ID/);
    keys(s, app.client_id, 'Enter');
    await waitFor(s, /Client secret/);
    keys(s, app.client_secret, 'Enter');
    await waitFor(s, /Scopes to request/);
    expect(over80(joined(s))).toEqual([]);
    keys(s, 'Enter');
    const end = await exitOf(s);
    expect(end.code).toBe(0);
    expect(unwrapped(s)).toMatch(/Logged in to .* saved in profile default/);
    expect(over80(joined(s))).toEqual([]);
    expect(joined(s).join('\n')).not.toContain(app.client_secret);

    const status = session(startSvc(['auth', 'status'], env, SIZE));
    expect((await exitOf(status)).code).toBe(0);
    expect(unwrapped(status)).toContain(`client credentials (client ${app.client_id}, secret in form body)`);
    expect(over80(joined(status))).toEqual([]);
  }, 90_000);

  it('auth login --with-token: the confirmation', async () => {
    const env = suite.env({ ...TTY_ENV, HOME: suite.tmp.dir });
    const line = `printf %s '${suite.token}' | ${svcLine(['--base-url', suite.sb.baseUrl, '--profile', 'a-rather-long-profile-name', 'auth', 'login', '--with-token'])}`;
    const s = session(startShell(line, env, SIZE));
    expect((await exitOf(s)).code).toBe(0);
    expect(unwrapped(s)).toContain('saved in profile a-rather-long-profile-name');
    expect(over80(joined(s))).toEqual([]);
  }, 60_000);

  it('contacts create: the welcome-SMS note, then the 409 of a second create', async () => {
    const env = suite.env({ ...TTY_ENV, SVC_TOKEN: suite.token });
    const args = ['contacts', 'create', '--phone', '+33612345678', '--sms-consent', 'subscribed', '--email', 'width80@example.com'];
    const first = session(startSvc(args, env, SIZE));
    expect((await exitOf(first)).code).toBe(0);
    expect(unwrapped(first)).toMatch(/welcome SMS/);
    expect(over80(joined(first))).toEqual([]);
    const second = session(startSvc(args, env, SIZE));
    expect((await exitOf(second)).code).not.toBe(0);
    const lines = joined(second);
    expect(lines.some((l) => l.startsWith('error: '))).toBe(true);
    expect(lines.some((l) => l.startsWith('hint: '))).toBe(true);
    expect(over80(lines)).toEqual([]);
  }, 60_000);

  it('svc help with an unknown topic: the error, and the hint on its own line', async () => {
    const s = session(startSvc(['help', 'nosuchtopic'], suite.env(TTY_ENV), SIZE));
    expect((await exitOf(s)).code).toBe(2);
    const lines = joined(s);
    expect(lines).toContain('error: unknown command "nosuchtopic"');
    expect(lines.some((l) => l.startsWith('hint: `svc --help` lists the commands'))).toBe(true);
    expect(over80(lines)).toEqual([]);
  }, 30_000);
});
