/**
 * `--plan` on a terminal (tmux): while it reads a large account, one redrawn line counts the pages
 * read and the contacts seen; it is gone before the plan is printed. Skipped without tmux or a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { describeTty, exitOf, inSession, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite();

describeTty('--plan on a terminal', () => {
  it('shows pages read and contacts seen while it reads, then only the plan', async () => {
    const env = suite.env(TTY_ENV);
    const many = join(suite.tmp.dir, 'many.csv');
    writeFileSync(many, `email\n${Array.from({ length: 1250 }, (_, i) => `a${i}@example.com`).join('\n')}\n`);
    expect((await suite.svc(['contacts', 'import', many, '--json'])).code).toBe(0);
    const one = join(suite.tmp.dir, 'one.csv');
    writeFileSync(one, 'email,email_consent\na1249@example.com,subscribed\n');
    // Five pages at 600 ms each: about 3 s of reading to see (and to see before the fifth page).
    await suite.sb.admin.setFaults({ latency_ms: 600 });
    const session = startSvc(['contacts', 'import', one, '--plan', '--plan-read', 'pages'], env);
    try {
      await inSession(session, async () => {
        const progress = /reading the account: (\d+) page\(s\), (\d+) contact\(s\) seen/;
        const seen = await waitFor(session, progress);
        const [, pages, contacts] = progress.exec(seen) as RegExpExecArray;
        expect(Number(contacts)).toBe(Number(pages) * 250);
        expect(Number(pages)).toBeLessThan(5);
        const end = await exitOf(session);
        expect(end.code).toBe(0);
        expect(end.screen).toMatch(/plan: 1 row\(s\); nothing was sent \(read every page of the account: 5 pages, 1250 contacts\)/);
        expect(end.screen).toMatch(/never_subscribed → subscribed +1 +line 2/);
        expect(end.screen).not.toMatch(/reading the account/);
      });
    } finally {
      await suite.sb.admin.setFaults({});
    }
  }, 60_000);
});
