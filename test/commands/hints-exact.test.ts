/**
 * Hints made exact (issue 36): a top-level typo gets the command meant; a secret flag that does
 * not exist points to its stdin form without echoing the value; the not-logged-in hint of a named
 * profile logs in that profile; `events send --file --json` says where the rejected lines are; the
 * `embedded-sandbox` profile a `--sandbox` run writes is marked in `auth list`.
 */
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';

const suite = cliSuite({ reset: false, token: false });

describe('exact hints', () => {
  it('svc contcts list: did you mean contacts', async () => {
    const r = await suite.svc(['contcts', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'contcts'\n(Did you mean contacts?)\n");
  });

  it('--client-secret points to --client-secret-stdin and never prints the value', async () => {
    const r = await suite.svc(['auth', 'login', '--client-id', 'app_x', '--client-secret=s3cr3t-value-123']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: unknown option '--client-secret'");
    expect(r.stderr).toContain('pipe it to --client-secret-stdin');
    expect(r.stderr).not.toContain('s3cr3t-value-123');
  });

  it('not logged in with a named profile: the hint logs in that profile', async () => {
    const named = await suite.svc(['--profile', 'work', 'contacts', 'list']);
    expect(named.code).toBe(3);
    expect(named.stderr).toContain('hint: run `svc auth login --profile work`, set SVC_TOKEN');
    const dflt = await suite.svc(['contacts', 'list']);
    expect(dflt.stderr).toContain('hint: run `svc auth login`, set SVC_TOKEN');
    const status = await suite.svc(['--profile', 'work', 'auth', 'status']);
    expect(status.stderr).toContain('hint: run `svc auth login --profile work`, or set SVC_TOKEN');
  });

  it('events send --file --json: the rejected lines are said to be in rejected_lines, not "above"', async () => {
    const file = suite.file('events.ndjson', '{"type":"signup","email":"a@example.com"}\n{"type":"","email":"b@example.com"}\n');
    const r = await suite.svc(['events', 'send', '--file', file, '--json'], { env: { SVC_TOKEN: suite.token } });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).rejected_lines).toContain(2);
    expect(r.stderr).toContain("in the summary's rejected_lines on stdout");
    expect(r.stderr).not.toContain('listed above');
  });

  it('the embedded-sandbox profile is marked in auth list and said so', async () => {
    expect((await suite.svc(['--sandbox', 'contacts', 'list'])).code).toBe(0);
    const json = await suite.svc(['auth', 'list', '--json']);
    const rows = JSON.parse(json.stdout) as Array<{ name: string; embedded_sandbox: boolean }>;
    expect(rows.find((r) => r.name === 'embedded-sandbox')?.embedded_sandbox).toBe(true);
    const human = await suite.svc(['auth', 'list'], { tty: true });
    expect(human.stdout).toMatch(/embedded-sandbox\s+\(embedded sandbox: --sandbox\)/);
    expect(human.stderr).toContain('embedded-sandbox: written by `svc --sandbox …`');
  }, 60_000);
});
