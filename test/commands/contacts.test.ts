/**
 * svc contacts against the real sandbox over HTTP: filters (read-only values forced through the
 * admin API), paging under concurrent inserts, get, create conflicts, delete and unsubscribe.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_CONSENT_VALUES, SMS_CONSENT_VALUES } from '../../src/contract/consent.js';
import type { Contact } from '../../src/contract/types.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { type ContactsFixture, contactsFixture } from './contacts-fixture.js';

let fx: ContactsFixture;
let tmp: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  fx = await contactsFixture();
  tmp = tempConfigDir();
});
afterAll(async () => {
  await fx?.close();
  tmp?.cleanup();
});

const ids = (list: Contact[]) => list.map((c) => c.id);

describe('list filters', () => {
  let everyone: Contact[];
  beforeAll(async () => {
    // One contact in every consent state, read-only ones forced through the admin API.
    const emailStates = await Promise.all(
      (['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed'] as const).map((v) => fx.create(['--email-consent', v])),
    );
    const sms = await Promise.all(
      (['subscribed', 'unsubscribed', 'single_opt_in'] as const).map((v) => fx.create(['--phone', fx.phone(), '--sms-consent', v])),
    );
    const compliance = await fx.create();
    await fx.forceConsent(compliance.id, { email_consent: 'compliance_suppressed' });
    const pending = await fx.create(['--phone', fx.phone()]);
    await fx.forceConsent(pending.id, { sms_consent: 'pending' });
    expect(emailStates.length + sms.length).toBe(7);
    everyone = await fx.json<Contact[]>(['contacts', 'list', '--all', '--page-size', '3']);
    expect(everyone.some((c) => c.email_consent === 'compliance_suppressed')).toBe(true);
    expect(everyone.some((c) => c.sms_consent === 'pending')).toBe(true);
  });

  for (const [kind, flag, values, field] of [
    ['email', '--email-consent', EMAIL_CONSENT_VALUES, 'email_consent'],
    ['SMS', '--sms-consent', SMS_CONSENT_VALUES, 'sms_consent'],
  ] as const) {
    it(`filters by every ${kind} consent value, read-only ones included`, async () => {
      for (const v of values) {
        const got = await fx.json<Contact[]>(['contacts', 'list', '--all', flag, v]);
        const want = everyone.filter((c) => c[field] === v);
        expect(want.length, v).toBeGreaterThan(0);
        expect(ids(got), v).toEqual(ids(want));
      }
    });
  }

  it('combines filters, and filters by exact email (any case) and by a phone typed by a person', async () => {
    const c = await fx.create(['--phone', '(415) 555-0199', '--default-country', 'US', '--sms-consent', 'single_opt_in']);
    expect(c.phone).toBe('+14155550199');
    expect(ids(await fx.json(['contacts', 'list', '--email', (c.email as string).toUpperCase()]))).toEqual([c.id]);
    expect(ids(await fx.json(['contacts', 'list', '--phone', '415.555.0199', '--default-country', 'us']))).toEqual([c.id]);
    expect(ids(await fx.json(['contacts', 'list', '--phone', '001 415 555 0199']))).toEqual([c.id]);
    expect(ids(await fx.json(['contacts', 'list', '--phone', '+14155550199', '--sms-consent', 'single_opt_in']))).toEqual([c.id]);
    expect(await fx.json(['contacts', 'list', '--phone', '+14155550199', '--sms-consent', 'subscribed'])).toEqual([]);
  });

  it('filters by --updated-since', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await fx.json(['contacts', 'list', '--all', '--updated-since', future])).toEqual([]);
    const before = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const c = await fx.create();
    const got = await fx.json<Contact[]>(['contacts', 'list', '--all', '--updated-since', before]);
    expect(ids(got)).toContain(c.id);
    expect(got.every((x) => Date.parse(x.updated_at) >= Date.parse(before))).toBe(true);
    // A bare date is midnight UTC: tomorrow's date has none yet, today's has the new contact.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await fx.json(['contacts', 'list', '--all', '--updated-since', tomorrow])).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(ids(await fx.json<Contact[]>(['contacts', 'list', '--all', '--updated-since', today]))).toContain(c.id);
  });
});

describe('paging', () => {
  it('walks 3+ pages while other contacts are inserted: none missed, none repeated', async () => {
    const existing = await fx.json<Contact[]>(['contacts', 'list', '--all']);
    expect(existing.length).toBeGreaterThanOrEqual(8);
    let inserting = true;
    const inserted: string[] = [];
    const inserter = (async () => {
      while (inserting && inserted.length < 30) {
        inserted.push((await fx.create()).id);
      }
    })();
    const r = await fx.svc(['contacts', 'list', '--all', '--page-size', '2', '--format', 'ndjson']);
    inserting = false;
    await inserter;
    expect(r.code, r.stderr).toBe(0);
    expect(inserted.length).toBeGreaterThan(0);
    const got = r.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Contact).id);
    expect(new Set(got).size).toBe(got.length);
    // Every contact that existed before the walk is there, in creation order, first.
    expect(got.slice(0, existing.length)).toEqual(ids(existing));
    // What was inserted during the walk and seen is in insertion order.
    const seen = got.slice(existing.length);
    expect(seen).toEqual(inserted.slice(0, seen.length));
    expect(Math.ceil(got.length / 2)).toBeGreaterThanOrEqual(3);
    // Nothing is missed overall: a second walk finds every contact.
    const after = await fx.json<Contact[]>(['contacts', 'list', '--all', '--page-size', '250']);
    expect(ids(after)).toEqual([...ids(existing), ...inserted]);
  });

  it('--limit N stops after N, across pages; without --limit or --all one page of 50', async () => {
    const all = await fx.json<Contact[]>(['contacts', 'list', '--all']);
    const five = await fx.json<Contact[]>(['contacts', 'list', '--limit', '5', '--page-size', '2']);
    expect(ids(five)).toEqual(ids(all).slice(0, 5));
    for (let n = all.length; n <= 50; n++) await fx.create();
    const def = await fx.json<Contact[]>(['contacts', 'list']);
    expect(def).toHaveLength(50);
    const tty = await fx.svc(['contacts', 'list'], { tty: true });
    expect(tty.stderr).toMatch(/more match/);
    // One contact is "the first 1 contact", not "1 contacts".
    const one = await fx.svc(['contacts', 'list', '--limit', '1'], { tty: true });
    expect(one.stderr).toContain('Showed the first 1 contact; more match.');
    expect((await fx.svc(['contacts', 'list', '--limit', '2'], { tty: true })).stderr).toContain(
      'Showed the first 2 contacts; more match.',
    );
  });

  it('--json equals --format json, and ndjson holds the same objects', async () => {
    const a = await fx.svc(['contacts', 'list', '--all', '--json']);
    const b = await fx.svc(['contacts', 'list', '--all', '--format', 'json']);
    const c = await fx.svc(['contacts', 'list', '--all', '--format', 'ndjson', '--page-size', '7']);
    expect(a.stdout).toBe(b.stdout);
    const nd = c.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(nd).toEqual(JSON.parse(a.stdout));
  });
});

describe('get / create', () => {
  it('gets a contact as JSON and as key/value lines', async () => {
    const c = await fx.create(['--first-name', 'Ann', '--last-name', 'Lee']);
    expect(await fx.json(['contacts', 'get', c.id])).toEqual(c);
    const r = await fx.svc(['contacts', 'get', c.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^id\\s+${c.id}$`, 'm'));
    expect(r.stdout).toMatch(/^first_name\s+Ann$/m);
    const missing = await fx.svc(['contacts', 'get', 'ct_doesnotexist']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no contact with id ct_doesnotexist/);
  });

  it('creates with every writable field, the phone normalised; piped output is the id', async () => {
    const email = fx.email();
    const r = await fx.svc([
      'contacts',
      'create',
      '--email',
      email,
      '--phone',
      '0044 20 7946 0958',
      '--first-name',
      'Zoë',
      '--last-name',
      "O'Neil",
      '--email-consent',
      'subscribed',
      '--sms-consent',
      'single_opt_in',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^\S+$/);
    expect(r.stderr).toContain(`Created contact ${id}`);
    const c = await fx.json<Contact>(['contacts', 'get', id]);
    expect(c).toMatchObject({
      email,
      phone: '+442079460958',
      first_name: 'Zoë',
      last_name: "O'Neil",
      email_consent: 'subscribed',
      sms_consent: 'single_opt_in',
    });
  });

  /** `svc contacts create ARGS` → the contact printed. */
  const createContact = (...args: string[]) => fx.json<Contact>(['contacts', 'create', ...args]);

  it('--if-exists fail (default) exits 1 naming the existing id', async () => {
    const c = await fx.create(['--first-name', 'First']);
    const r = await fx.svc(['contacts', 'create', '--email', c.email as string, '--first-name', 'Second']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(c.id);
    const j = await fx.svc(['contacts', 'create', '--json', '--email', c.email as string, '--if-exists', 'fail']);
    expect(j.code).toBe(1);
    expect((JSON.parse(j.stderr) as { error: { id: string; status: number } }).error).toMatchObject({ id: c.id, status: 409 });
    expect((await fx.json<Contact>(['contacts', 'get', c.id])).first_name).toBe('First');
  });

  it('--if-exists skip prints the existing contact unchanged', async () => {
    const c = await fx.create(['--first-name', 'First']);
    const got = await createContact('--email', c.email as string, '--first-name', 'Other', '--if-exists', 'skip');
    expect(got).toEqual(c);
    expect((await fx.json<Contact>(['contacts', 'get', c.id])).first_name).toBe('First');
  });

  it('--if-exists update patches the existing contact', async () => {
    const c = await fx.create(['--first-name', 'First']);
    const got = await createContact(
      '--email',
      c.email as string,
      '--first-name',
      'Updated',
      '--email-consent',
      'unsubscribed',
      '--if-exists',
      'update',
    );
    expect(got).toMatchObject({ id: c.id, first_name: 'Updated', email_consent: 'unsubscribed' });
    // Conflict found by phone as well.
    const p = await fx.create(['--phone', fx.phone()]);
    const byPhone = await createContact('--phone', p.phone as string, '--last-name', 'Byphone', '--if-exists', 'update');
    expect(byPhone).toMatchObject({ id: p.id, last_name: 'Byphone' });
  });
});

describe('delete', () => {
  it('without --yes off a terminal exits 2 and deletes nothing', async () => {
    const c = await fx.create();
    const r = await fx.svc(['contacts', 'delete', c.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(0);
  });

  it('with --yes deletes; --json prints {"deleted": true, "id"}; a second delete is 404 (exit 1)', async () => {
    const c = await fx.create();
    expect(await fx.json(['contacts', 'delete', c.id, '--yes'])).toEqual({ deleted: true, id: c.id });
    expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(1);
    const again = await fx.svc(['contacts', 'delete', c.id, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no contact/);
  });

  it('asks on a terminal: "y" deletes, "n" keeps (exit 1)', async () => {
    const keep = await fx.create();
    const no = await fx.svc(['contacts', 'delete', keep.id], { tty: true, stdin: 'n\n' });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(keep.email as string);
    expect(no.stderr).toMatch(/cancelled/);
    expect((await fx.svc(['contacts', 'get', keep.id])).code).toBe(0);
    const gone = await fx.create();
    const yes = await fx.svc(['contacts', 'delete', gone.id], { tty: true, stdin: 'y\n' });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain(`Deleted contact ${gone.id}`);
    expect((await fx.svc(['contacts', 'get', gone.id])).code).toBe(1);
  });

  it('--ids-file --yes deletes many, with a summary and a report; exit 4 when one is rejected', async () => {
    const a = await fx.create();
    const b = await fx.create();
    const locked = await fx.create();
    await fx.forceConsent(locked.id, { email_consent: 'compliance_suppressed' });
    const file = join(tmp.dir, 'delete-ids.txt');
    writeFileSync(file, `id\n${a.id}\n\n# comment\n${b.id}\nct_missing\n${locked.id}\nbad/id\n`);
    const report = join(tmp.dir, 'delete-report.csv');
    const noYes = await fx.svc(['contacts', 'delete', '--ids-file', file]);
    expect(noYes.code).toBe(2);
    const r = await fx.svc(['contacts', 'delete', '--ids-file', file, '--yes', '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 5, deleted: 2, not_found: 1, rejected: 2, failed: 0, resumed: 0 });
    const rows = parse(readFileSync(report, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((x) => [x.line, x.id, x.outcome, x.status])).toEqual([
      ['2', a.id, 'deleted', ''],
      ['5', b.id, 'deleted', ''],
      ['6', 'ct_missing', 'not_found', '404'],
      ['7', locked.id, 'rejected', '422'],
      ['8', 'bad/id', 'rejected', ''],
    ]);
    expect((await fx.svc(['contacts', 'get', a.id])).code).toBe(1);
    expect((await fx.svc(['contacts', 'get', locked.id])).code).toBe(0);
    // Human summary on stderr; all deleted or not found → exit 0.
    const again = await fx.svc(['contacts', 'delete', '--ids-file', '-', '--yes'], { stdin: `${a.id}\n${b.id}\n` });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/rows 2 {2}deleted 0 {2}not_found 2 {2}rejected 0 {2}failed 0/);
  });
});

describe('scopes and conflicts', () => {
  it('a read-only token cannot write: exit 3 with a hint, nothing created', async () => {
    const token = await fx.tokenWith(['contacts_read']);
    const email = fx.email();
    const r = await fx.svc(['contacts', 'create', '--email', email], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/contacts_write/);
    expect(await fx.json(['contacts', 'list', '--email', email])).toEqual([]);
  });

  it('a write-only token can still patch consent (the service does the checks it cannot read for)', async () => {
    const c = await fx.create(['--phone', fx.phone()]);
    const token = await fx.tokenWith(['contacts_write']);
    const r = await fx.svc(['contacts', 'patch', c.id, '--sms-consent', 'single_opt_in', '--json'], { env: { SVC_TOKEN: token } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: c.id, sms_consent: 'single_opt_in' });
  });

  it("patch to another contact's email exits 1 naming that contact; nothing changes", async () => {
    const a = await fx.create();
    const b = await fx.create();
    const r = await fx.svc(['contacts', 'patch', b.id, '--email', a.email as string]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(a.id);
    expect((await fx.json<Contact>(['contacts', 'get', b.id])).email).toBe(b.email);
  });

  it('delete --ids-file on a terminal without --yes asks once', async () => {
    const a = await fx.create();
    const b = await fx.create();
    const file = join(tmp.dir, 'ask-ids.txt');
    writeFileSync(file, `${a.id}\n${b.id}\n`);
    const r = await fx.svc(['contacts', 'delete', '--ids-file', file], { tty: true, stdin: 'y\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Delete 2 contacts/);
    for (const c of [a, b]) expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(1);
  });
});

describe('unsubscribe', () => {
  it('PATCHes email_consent=unsubscribed', async () => {
    const c = await fx.create(['--email-consent', 'subscribed']);
    const got = await fx.json<Contact>(['contacts', 'unsubscribe', c.id]);
    expect(got).toMatchObject({ id: c.id, email_consent: 'unsubscribed' });
  });

  it('--legacy uses the deprecated endpoint and shows the deprecation warning', async () => {
    const c = await fx.create(['--email-consent', 'subscribed']);
    const r = await fx.svc(['contacts', 'unsubscribe', c.id, '--legacy', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: c.id, email_consent: 'unsubscribed' });
    expect(r.stderr).toMatch(/deprecat/i);
    const plain = await fx.svc(['contacts', 'unsubscribe', c.id]);
    expect(plain.stderr).not.toMatch(/deprecat/i);
  });

  it('--ids-file unsubscribes many with a summary', async () => {
    const a = await fx.create(['--email-consent', 'subscribed']);
    const b = await fx.create(['--email-consent', 'suppressed']);
    const r = await fx.svc(['contacts', 'unsubscribe', '--ids-file', '-', '--json'], { stdin: `${a.id}\n${b.id}\nct_nope\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 3, unsubscribed: 2, not_found: 1, rejected: 0, failed: 0, resumed: 0 });
    for (const c of [a, b]) expect((await fx.json<Contact>(['contacts', 'get', c.id])).email_consent).toBe('unsubscribed');
  });

  it('an --ids-file without ids (a pipeline that matched nobody) is nothing to do: exit 0, a zero summary, a header-only report', async () => {
    const report = join(tmp.dir, 'empty-ids-report.csv');
    const r = await fx.svc(['contacts', 'unsubscribe', '--ids-file', '-', '--json', '--report', report], { stdin: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ rows: 0, unsubscribed: 0, not_found: 0, rejected: 0, failed: 0 });
    expect(r.stderr).toBe('');
    expect(readFileSync(report, 'utf8')).toBe('line,id,outcome,status,error_code,message\n');
    // Only a header and a comment; delete asks nothing (no terminal, no --yes needed beyond the usual rule).
    const file = join(tmp.dir, 'no-ids.txt');
    writeFileSync(file, 'id\n# nobody\n\n');
    const d = await fx.svc(['contacts', 'delete', '--ids-file', file, '--yes']);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toContain('holds no ids: nothing to do');
    expect(d.stderr).toMatch(/rows 0 {2}deleted 0/);
  });
});
