/**
 * `contacts import --plan` against a seeded account with contacts in every email and SMS state,
 * and a file that reaches every cell: the plan's exact table, samples, --plan-out and --json; no
 * write sent while planning; and the import that follows does what the plan said (each row's
 * outcome, every contact's final consent, the welcome SMS in the outbox).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

async function svc(argv: string[]) {
  return runCli(argv, { env: t.env() });
}

const file = t.file;

/** email, phone, email_consent, sms_consent: one contact per state of each channel. */
const SEED: Array<[string, string, string, string]> = [
  ['sub@example.com', '+14155550101', 'subscribed', 'subscribed'],
  ['unsub@example.com', '+14155550102', 'unsubscribed', 'unsubscribed'],
  ['never@example.com', '+14155550103', 'never_subscribed', 'never_subscribed'],
  ['supp@example.com', '+14155550104', 'suppressed', 'single_opt_in'],
  ['comp@example.com', '+14155550105', 'compliance_suppressed', 'pending'],
  ['pend@example.com', '+14155550106', 'subscribed', 'pending'],
  ['supp2@example.com', '', 'suppressed', 'never_subscribed'],
];

async function seed(): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [email, phone, ec, sc] of SEED) {
    const r = await svc(['contacts', 'create', '--email', email, ...(phone ? ['--phone', phone] : []), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout) as Contact;
    await t.sb.admin.forceConsent(c.id, { email_consent: ec, sms_consent: sc });
    ids.set(email, c.id);
  }
  return ids;
}

// Every line's intent is in docs/importer.md's "Planning an import" terms.
const ROWS = `email,phone,first_name,email_consent,sms_consent,accepts_sms_marketing
new@example.com,+14155550201,,subscribed,subscribed,
sub@example.com,,,unsubscribed,,
unsub@example.com,,,,subscribed,
never@example.com,,,,single_opt_in,
supp@example.com,,,subscribed,,
comp@example.com,,,subscribed,,
pend@example.com,,,,subscribed,
supp2@example.com,,Ada,,,
supp2@example.com,,,,unsubscribed,
bad@example.com,,,compliance_suppressed,,
sub@example.com,+14155550102,,,,
new@example.com,,,,unsubscribed,
,+14155550103,,subscribed,,
unsub@example.com,,,,,no
`;

const PLAN_TEXT = `plan: 14 row(s); nothing was sent (read every page of the account: 1 page, 7 contacts)

email consent:
  new → subscribed                     1  line 2
  subscribed → subscribed              2  lines 8, 13
  subscribed → unsubscribed            1  line 3
  unsubscribed → unsubscribed          2  lines 4, 15
  never_subscribed → subscribed        1  line 14
  never_subscribed → never_subscribed  1  line 5
  suppressed → subscribed              1  line 6
  suppressed → never_subscribed        1  line 10
  suppressed → suppressed              1  line 9

SMS consent:
  new → subscribed                     1  line 2
  subscribed → subscribed              2  lines 3, 15
  subscribed → unsubscribed            1  line 13
  unsubscribed → subscribed            1  line 4
  never_subscribed → unsubscribed      1  line 10
  never_subscribed → never_subscribed  1  line 9
  never_subscribed → single_opt_in     1  line 5
  single_opt_in → single_opt_in        2  lines 6, 14
  pending → subscribed                 1  line 8

outcome:
  created       1  line 2                  new contacts
  updated       8  lines 3, 4, 5, 8, 9, …  existing contacts written (--if-exists update)
  unsuppressed  2  lines 6, 10             merchant-suppressed: the write lifts the suppression (needs --allow-unsuppress)
  answered 422  1  line 7                  compliance-suppressed: the service refuses any write
  refused       1  line 11                 svc's rules: an invalid row or a read-only value, not sent
  rejected      1  line 12                 the service would refuse the write (409 or 400; see --plan-out)

also:
  welcome SMS             3  lines 2, 4, 8  moves into SMS subscribed: the service sends each a welcome SMS (--welcome-sms)
  "no" not written (SMS)  1  line 15        a "no" never downgrades (--no-means unsubscribed writes it)
`;

/** The import's report outcome each planned outcome must become. */
const AS_IMPORTED: Record<string, string> = {
  created: 'created',
  updated: 'updated',
  unsuppressed: 'updated',
  skipped: 'skipped',
  answered_422: 'rejected',
  refused: 'rejected',
  rejected: 'rejected',
};

function csvRecords(path: string): Array<Record<string, string>> {
  return parse(readFileSync(path, 'utf8'), { columns: true }) as Array<Record<string, string>>;
}

/**
 * Imports the file after planning and checks that it did what the plan said: each line's outcome,
 * the final consent of every contact a row wrote (the last row wins), and the welcome SMS.
 */
async function importAndCompare(csv: string, planOut: string, flags: string[]): Promise<void> {
  const report = join(t.tmp.dir, `report-${flags.join('')}.csv`);
  const r = await svc(['contacts', 'import', csv, '--report', report, '--json', ...flags]);
  expect([0, 4], r.stderr).toContain(r.code);
  const planned = csvRecords(planOut);
  const done = csvRecords(report);
  expect(done.map((d) => [d.line, d.outcome])).toEqual(planned.map((p) => [p.line, AS_IMPORTED[p.outcome as string]]));
  for (const [i, p] of planned.entries()) {
    if (p.outcome === 'answered_422') expect((done[i] as Record<string, string>).status).toBe('422');
    if (p.outcome === 'refused') expect((done[i] as Record<string, string>).error_code).toBe('invalid_row');
  }
  const all = JSON.parse((await svc(['contacts', 'list', '--all', '--json'])).stdout) as Contact[];
  const find = (email: string, phone: string) => all.find((c) => (email ? c.email === email : c.phone === phone)) as Contact;
  const expected = new Map<string, { email_consent: string; sms_consent: string }>();
  for (const p of planned) {
    if (!p.email_to) continue;
    expected.set(find(p.email as string, p.phone as string).id, { email_consent: p.email_to, sms_consent: p.sms_to as string });
  }
  for (const [id, consent] of expected)
    expect(
      all.find((c) => c.id === id),
      id,
    ).toMatchObject(consent);
  const welcome = (await t.sb.admin.outbox({ type: 'welcome_sms' })) as Array<{ contact_id: string }>;
  const sent = planned.filter((p) => p.welcome_sms === 'sent').map((p) => find(p.email as string, p.phone as string).id);
  expect(welcome.map((w) => w.contact_id).sort()).toEqual(sent.sort());
  expect(JSON.parse(r.stdout).welcome_sms).toBe(sent.length);
}

describe('svc contacts import --plan', () => {
  it('plans every cell exactly, sends nothing, and the import then does what it planned', async () => {
    await seed();
    const csv = file('people.csv', ROWS);
    const planOut = join(t.tmp.dir, 'plan.csv');
    const before = await svc(['contacts', 'list', '--all', '--json']);

    const r = await svc(['contacts', 'import', csv, '--plan', '--plan-out', planOut, '--welcome-sms']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${PLAN_TEXT}\nevery row's planned outcome: ${planOut}\n`);
    const rows = readFileSync(planOut, 'utf8').trimEnd().split('\n');
    expect(rows[0]).toBe('line,email,phone,contact_id,outcome,email_from,email_to,sms_from,sms_to,welcome_sms,message');
    expect(rows[1]).toBe('2,new@example.com,+14155550201,,created,new,subscribed,new,subscribed,sent,');
    expect(rows[6]).toMatch(/^7,comp@example\.com,,ct_\w+,answered_422,,,,,,compliance-suppressed: any write answers 422$/);
    expect(rows[9]).toMatch(
      /^10,supp2@example\.com,,ct_\w+,unsuppressed,suppressed,never_subscribed,never_subscribed,unsubscribed,,merchant suppression lifted$/,
    );
    expect(rows[11]).toMatch(
      /^12,sub@example\.com,\+14155550102,ct_\w+,rejected,,,,,,"the phone belongs to another contact, ct_\w+ \(409\)"$/,
    );
    expect(rows[13]).toMatch(/^14,,\+14155550103,ct_\w+,updated,never_subscribed,subscribed,single_opt_in,single_opt_in,,$/);
    expect(rows).toHaveLength(15);
    // Nothing was written: the same contacts, no side effect.
    expect((await svc(['contacts', 'list', '--all', '--json'])).stdout).toBe(before.stdout);
    expect(await t.sb.admin.outbox({})).toEqual([]);

    const j = await svc(['contacts', 'import', csv, '--plan', '--json', '--welcome-sms', '--plan-read', 'lookups']);
    expect(j.code, j.stderr).toBe(0);
    const plan = JSON.parse(j.stdout);
    expect(plan.account).toEqual({ read: 'lookups', pages: 0, lookups: 11, contacts_seen: 7 });
    expect(plan.outcomes).toEqual({
      created: { count: 1, lines: [2] },
      updated: { count: 8, lines: [3, 4, 5, 8, 9] },
      unsuppressed: { count: 2, lines: [6, 10] },
      skipped: { count: 0, lines: [] },
      answered_422: { count: 1, lines: [7] },
      refused: { count: 1, lines: [11] },
      rejected: { count: 1, lines: [12] },
    });
    expect(plan.transitions.email[0]).toEqual({ from: 'new', to: 'subscribed', count: 1, lines: [2] });
    expect(plan.transitions.sms).toHaveLength(9);
    expect(plan.welcome_sms).toEqual({ count: 3, lines: [2, 4, 8], sent: true });
    expect(plan.no_not_written).toEqual({ email: { count: 0, lines: [] }, sms: { count: 1, lines: [15] } });
    expect(plan.plan_out).toBeNull();

    // The real run stops before sending: the two unsuppressing rows the plan named.
    const stopped = await svc(['contacts', 'import', csv, '--welcome-sms']);
    expect(stopped.code).toBe(2);
    expect(stopped.stderr).toBe(
      'error: 2 row(s) in the file would lift a merchant suppression (lines 6, 10): writing consent to a contact whose email_consent is suppressed unsuppresses it first\n' +
        'hint: see them with --plan; add --allow-unsuppress if lifting the suppressions is intended\n',
    );
    expect((await svc(['contacts', 'list', '--all', '--json'])).stdout).toBe(before.stdout);

    await importAndCompare(csv, planOut, ['--welcome-sms', '--allow-unsuppress']);
  }, 60_000);

  it('--if-exists skip and no --welcome-sms: skipped rows, welcome SMS recorded as suppressed; the import agrees', async () => {
    await seed();
    const csv = file('people.csv', ROWS);
    const planOut = join(t.tmp.dir, 'plan.csv');
    const r = await svc(['contacts', 'import', csv, '--plan', '--plan-out', planOut, '--if-exists', 'skip', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.outcomes.skipped).toEqual({ count: 9, lines: [3, 4, 5, 8, 9] });
    expect(plan.welcome_sms).toEqual({ count: 1, lines: [2], sent: false });
    await importAndCompare(csv, planOut, ['--if-exists', 'skip', '--allow-unsuppress']);
  }, 60_000);

  it('auto: a file naming fewer people than the account reads pages only until look-ups cost less', async () => {
    const lines = ['email'];
    for (let i = 1; i <= 600; i++) lines.push(`m${i}@example.com`);
    expect((await svc(['contacts', 'import', file('many.csv', `${lines.join('\n')}\n`), '--json'])).code).toBe(0);
    const r = await svc(['contacts', 'import', file('one.csv', 'email,email_consent\nm600@example.com,subscribed\n'), '--plan', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    // The file is read while the first pages come: one page, or two when the file was slower.
    expect(plan.account).toMatchObject({ read: 'lookups', lookups: 1 });
    expect([1, 2]).toContain(plan.account.pages);
    expect(plan.transitions.email).toEqual([{ from: 'never_subscribed', to: 'subscribed', count: 1, lines: [2] }]);
  }, 30_000);
});
