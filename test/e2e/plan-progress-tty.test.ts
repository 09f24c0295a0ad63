/**
 * `--plan` on a terminal (tmux): while it reads a large account, one redrawn line counts the pages
 * read and the contacts seen; it is gone before the plan is printed. Skipped without tmux or a build.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';
import { root } from '../helpers/spawn-cli.js';
import { exitOf, hasTmux, killSession, startSvc, waitFor } from '../helpers/tmux.js';

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

describe.skipIf(!built || !hasTmux)('--plan on a terminal', () => {
  it('shows pages read and contacts seen while it reads, then only the plan', async () => {
    const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: await sb.tokenWithAllScopes(), CI: '', NO_COLOR: '1' };
    const many = join(cfg.dir, 'many.csv');
    writeFileSync(many, `email\n${Array.from({ length: 1250 }, (_, i) => `a${i}@example.com`).join('\n')}\n`);
    expect((await runCli(['contacts', 'import', many, '--json'], { env })).code).toBe(0);
    const one = join(cfg.dir, 'one.csv');
    writeFileSync(one, 'email,email_consent\na1249@example.com,subscribed\n');
    await sb.admin.setFaults({ latency_ms: 250 });
    const session = startSvc(['contacts', 'import', one, '--plan', '--plan-read', 'pages'], env);
    try {
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
    } finally {
      killSession(session);
      await sb.admin.setFaults({});
    }
  }, 60_000);
});
