/**
 * `contacts unsubscribe|delete --ids-file FILE --plan`: what each id would become (unsubscribed,
 * unsuppressed first, 422, not found, not an id), exact, with nothing sent; the real run then
 * does what was planned.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

async function svc(argv: string[]) {
  return runCli(argv, { env: t.env() });
}

async function seed(email: string, consent: string): Promise<string> {
  const c = JSON.parse((await svc(['contacts', 'create', '--email', email, '--json'])).stdout);
  await t.sb.admin.forceConsent(c.id, { email_consent: consent });
  return c.id;
}

describe('--ids-file --plan', () => {
  it('unsubscribe: every outcome planned exactly, nothing sent, and the run agrees', async () => {
    const sub = await seed('a@example.com', 'subscribed');
    const supp = await seed('b@example.com', 'suppressed');
    const comp = await seed('c@example.com', 'compliance_suppressed');
    const ids = join(t.tmp.dir, 'ids.txt');
    writeFileSync(ids, `id\n${sub}\n${supp}\n${comp}\nct_nobody\nnot an id\n${sub}\n`);
    const before = (await svc(['contacts', 'list', '--all', '--json'])).stdout;
    const planOut = join(t.tmp.dir, 'plan.csv');
    const r = await svc(['contacts', 'unsubscribe', '--ids-file', ids, '--plan', '--plan-out', planOut]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'plan: 6 id(s); nothing was sent (read every page of the account: 1 page, 3 contacts)',
        '',
        'email consent:',
        '  subscribed → unsubscribed    1  line 2',
        '  unsubscribed → unsubscribed  1  line 7',
        '  suppressed → unsubscribed    1  line 3',
        '',
        'outcome:',
        '  unsubscribed  2  lines 2, 7  email_consent becomes unsubscribed',
        '  unsuppressed  1  line 3      merchant-suppressed: the consent write lifts the suppression first',
        '  not found     1  line 5      no such contact (not an error for this command)',
        '  answered 422  1  line 4      compliance-suppressed: the service refuses any write',
        '  rejected      1  line 6      not a contact id',
        '',
        `every id's planned outcome: ${planOut}`,
        '',
      ].join('\n'),
    );
    expect((await svc(['contacts', 'list', '--all', '--json'])).stdout).toBe(before);

    const j = JSON.parse((await svc(['contacts', 'unsubscribe', '--ids-file', ids, '--plan', '--json', '--plan-read', 'lookups'])).stdout);
    expect(j.account).toEqual({ read: 'lookups', pages: 0, lookups: 4, contacts_seen: 3 });
    expect(j.outcomes.unsubscribed).toEqual({ count: 2, lines: [2, 7] });

    const report = join(t.tmp.dir, 'report.csv');
    const done = await svc(['contacts', 'unsubscribe', '--ids-file', ids, '--report', report]);
    expect(done.code).toBe(4);
    const planned = readFileSync(planOut, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').slice(0, 3));
    const real = readFileSync(report, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',').slice(0, 3));
    const as: Record<string, string> = { done: 'unsubscribed', unsuppressed: 'unsubscribed', answered_422: 'rejected' };
    expect(real).toEqual(planned.map(([line, id, o]) => [line, id, as[o as string] ?? o]));
    const after = JSON.parse((await svc(['contacts', 'list', '--all', '--json'])).stdout) as Array<{ id: string; email_consent: string }>;
    expect(after.map((c) => [c.id, c.email_consent])).toEqual([
      [sub, 'unsubscribed'],
      [supp, 'unsubscribed'],
      [comp, 'compliance_suppressed'],
    ]);
  });

  it('delete --plan needs no --yes and deletes nothing; --plan without --ids-file is a usage error', async () => {
    const a = await seed('a@example.com', 'subscribed');
    const ids = join(t.tmp.dir, 'ids.txt');
    writeFileSync(ids, `${a}\n${a}\n`);
    const r = await svc(['contacts', 'delete', '--ids-file', ids, '--plan', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      plan: 'delete',
      outcomes: { deleted: { count: 1, lines: [1] }, not_found: { count: 1, lines: [2] } },
      transitions: { email: [{ from: 'subscribed', to: 'deleted', count: 1, lines: [1] }] },
    });
    expect((await svc(['contacts', 'get', a])).code).toBe(0);
    const usage = await svc(['contacts', 'delete', a, '--plan']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--plan goes with --ids-file/);
  });
});
