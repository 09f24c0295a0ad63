/**
 * svc sandbox logs in a real pseudo-terminal (tmux) at 80 and 120 columns (issue 37): every
 * refused request keeps its status, whole path and reason, no line passes the width (capture-pane
 * -J joins what the terminal wrapped), and --follow prints the same layout. Skipped without tmux
 * or a build.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { http } from '../helpers/sandbox.js';
import { describeTty, exitOf, joinedLines, killSession, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite({ reset: false, build: true });
let env: Record<string, string>;
beforeEach(() => {
  env = suite.env(TTY_ENV);
});
afterEach(() => suite.sb.admin.setFaults({}));

const LONG = '/v1/contacts/ct_a_contact_id_long_enough_to_continue_the_path_on_the_next_line';

/** The path of the last line matching `rowPattern`, with its pieces continued on the lines below it. */
function wholePath(lines: string[], rowPattern: RegExp): string {
  const row = lines.findLastIndex((l) => rowPattern.test(l));
  const col = (lines[row] as string).indexOf('/v1/');
  let path = (lines[row] as string).slice(col).split('  ', 1)[0] as string;
  for (const l of lines.slice(row + 1)) {
    if (!(l.length > col && l.slice(0, col).trim() === '' && l[col] !== ' ')) break;
    path += l.slice(col).split('  ', 1)[0];
  }
  return path;
}

/** The pane's lines, the terminal's wraps undone. */
const joined = (session: string) => joinedLines(session, 500).map((l) => l.trimEnd());

describeTty('svc sandbox logs in a terminal', () => {
  for (const cols of [80, 120]) {
    it(`at ${cols} columns: status, whole path and reason of each refused request; no line over ${cols}`, async () => {
      const marker = `w${cols}`;
      await http(suite.sb.baseUrl, 'GET', `${LONG}_${marker}`, { token: suite.token });
      await http(suite.sb.baseUrl, 'POST', '/v1/contacts', { token: suite.token, json: { email: 'not an e-mail' } });
      const session = startSvc(['sandbox', 'logs', '--status', '4xx'], env, { cols, rows: 60 });
      try {
        const { code } = await exitOf(session);
        expect(code).toBe(0);
        const lines = joined(session);
        const text = lines.join('\n');
        expect(lines.filter((l) => [...l].length > cols)).toEqual([]);
        expect(text).toMatch(/^TIME\s+STATUS\s+METHOD\s+PATH\s+CREDENTIAL/m);
        // The reason, wrapped to the width (an id longer than the line continues on the next).
        expect(text.replace(/\s+/g, '')).toContain(
          `not_found:contactct_a_contact_id_long_enough_to_continue_the_path_on_the_next_line_${marker}notfound`,
        );
        expect(text).toMatch(/\d\d:\d\d:\d\dZ\s+404\s+GET\s+\/v1\/contacts\//);
        expect(text).toMatch(/\d\d:\d\d:\d\dZ\s+400\s+POST\s+\/v1\/contacts/);
        expect(text).toContain('invalid_request');
        expect(text).toContain('Test token (API token)');
        // The long path continues on the lines below its row, none of it cut.
        expect(wholePath(lines, /404\s+GET\s/)).toBe(`${LONG}_${marker}`);
      } finally {
        killSession(session);
      }
    });
  }

  it('--follow at 80 columns: the same layout, the reason on the next line', async () => {
    const session = startSvc(['sandbox', 'logs', '--follow'], env, { cols: 80, rows: 40 });
    try {
      await waitFor(session, /^TIME\s+STATUS\s+METHOD\s+PATH/m);
      await http(suite.sb.baseUrl, 'DELETE', '/v1/contacts/ct_followed_one', { token: suite.token });
      const shown = await waitFor(session, /ct_followed_one not found/);
      expect(shown).toMatch(/\d\d:\d\d:\d\dZ\s+404\s+DELETE\s+\/v1\/contacts\/ct_followed_one\s+Test token \(API token\)/);
      expect(shown).toMatch(/^TIME\s+STATUS\s+METHOD\s+PATH\s+CREDENTIAL/m);
      expect(shown).toMatch(/\n\s+not_found: contact ct_followed_one not found/);
      expect(joined(session).filter((l) => [...l].length > 80)).toEqual([]);
    } finally {
      killSession(session);
    }
  });
});
