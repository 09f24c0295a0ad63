/**
 * svc contacts import against the sandbox: the Shopify fixture's exact counts, re-imports, the
 * welcome SMS, consent that `no` never downgrades, compliance suppression, the 200 of a lifted
 * merchant suppression, and people repeated in one file under concurrency 32.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { importSummary } from '../helpers/summary.js';

const t = cliSuite();
const FIXTURE = 'fixtures/shopify-customers-export.csv';

async function svc(argv: string[]) {
  return runCli(argv, { env: t.env() });
}

async function contactBy(filter: string[]) {
  const r = await svc(['contacts', 'list', ...filter, '--json']);
  return JSON.parse(r.stdout)[0];
}

const file = t.file;

describe('svc contacts import', () => {
  it('imports the Shopify fixture with exact counts, no welcome SMS; a re-import is all updated (or skipped)', async () => {
    const report = join(t.tmp.dir, 'report.csv');
    const r = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json', '--report', report]);
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual(
      importSummary({
        rows: 120,
        created: 113,
        updated: 2,
        skipped: 0,
        rejected: 5,
        sms_subscribed: 18,
        welcome_sms: 0,
        rejected_lines: [8, 14, 41, 81, 121],
        // Named with --preset: the variant is still picked from the header.
        preset: {
          name: 'shopify',
          variant: 'current',
          label: 'customers export with Customer ID and Default Address columns',
          recognised: false,
        },
      }),
    );
    expect(await t.sb.admin.outbox({ type: 'welcome_sms' })).toHaveLength(0);
    const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('line,email,phone,contact_id,outcome,status,error_code,message');
    expect(lines).toHaveLength(121);
    expect(lines[1]).toMatch(/^2,bruno\.1@example\.com,\+14155552001,ct_\w+,created,201,,$/);
    expect(lines[7]).toBe('8,,,,rejected,,invalid_row,email: one of email or phone is required');
    expect(lines[13]).toMatch(/^14,bruno\.13@example\.com,,,rejected,400,invalid_request,/);
    expect(lines[51]).toMatch(/^52,,\+14155551003,ct_\w+,updated,200,,$/);
    // Local phones take the default address's country; yes/no columns gave the consent.
    expect(await contactBy(['--email', 'eva.4@example.com'])).toMatchObject({
      phone: '+14155552004',
      email_consent: 'subscribed',
      sms_consent: 'subscribed',
      first_name: 'Eva',
    });
    // Row 50 (the person of row 1, "yes") subscribed them; row 1's "no" had written nothing.
    expect((await contactBy(['--email', 'bruno.1@example.com'])).email_consent).toBe('subscribed');

    const again = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 120, created: 0, updated: 115, rejected: 5, sms_subscribed: 0 });
    const skip = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json', '--if-exists', 'skip']);
    expect(JSON.parse(skip.stdout)).toMatchObject({ rows: 120, created: 0, updated: 0, skipped: 115, rejected: 5 });
    const fail = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json', '--if-exists', 'fail']);
    expect(JSON.parse(fail.stdout)).toMatchObject({ rows: 120, created: 0, rejected: 120 });
  }, 60_000);

  it('--welcome-sms: one welcome SMS per contact that actually moves to SMS subscribed, none on a re-import', async () => {
    const r = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json', '--welcome-sms']);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ sms_subscribed: 18, welcome_sms: 18 });
    const sent = await t.sb.admin.outbox({ type: 'welcome_sms' });
    expect(sent).toHaveLength(18);
    expect(new Set(sent.map((e) => e.contact_id)).size).toBe(18);
    const again = await svc(['contacts', 'import', FIXTURE, '--preset', 'shopify', '--json', '--welcome-sms']);
    expect(JSON.parse(again.stdout)).toMatchObject({ sms_subscribed: 0, welcome_sms: 0 });
    expect(await t.sb.admin.outbox({ type: 'welcome_sms' })).toHaveLength(18);
    // An existing contact moved to subscribed by the PATCH path counts too.
    const csv = file('one.csv', 'email,phone,sms_consent\nnew.sms@example.com,+14155550999,unsubscribed\n');
    await svc(['contacts', 'import', csv, '--json']);
    const up = file('up.csv', 'email,sms_consent\nnew.sms@example.com,subscribed\n');
    const moved = await svc(['contacts', 'import', up, '--json', '--welcome-sms']);
    expect(JSON.parse(moved.stdout)).toMatchObject({ updated: 1, sms_subscribed: 1, welcome_sms: 1 });
    expect(await t.sb.admin.outbox({ type: 'welcome_sms' })).toHaveLength(19);
  }, 60_000);

  it('"no" never downgrades a subscriber; --no-means unsubscribed makes it an opt-out', async () => {
    await svc(['contacts', 'import', file('a.csv', 'email,accepts_email_marketing\nsub@example.com,yes\n'), '--json']);
    const no = file('b.csv', 'email,accepts_email_marketing,first_name\nsub@example.com,no,Sue\n');
    const r = await svc(['contacts', 'import', no, '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ updated: 1 });
    expect(await contactBy(['--email', 'sub@example.com'])).toMatchObject({ email_consent: 'subscribed', first_name: 'Sue' });
    await svc(['contacts', 'import', no, '--json', '--no-means', 'unsubscribed']);
    expect((await contactBy(['--email', 'sub@example.com'])).email_consent).toBe('unsubscribed');
  });

  it('rejects read-only consent values before sending and compliance-suppressed contacts with the service code', async () => {
    await svc(['contacts', 'import', file('a.csv', 'email\nblocked@example.com\n'), '--json']);
    const blocked = await contactBy(['--email', 'blocked@example.com']);
    await t.sb.admin.forceConsent(blocked.id, { email_consent: 'compliance_suppressed' });
    const report = join(t.tmp.dir, 'r.csv');
    const csv = file(
      'b.csv',
      'email,email_consent,sms_consent\nblocked@example.com,subscribed,\nro@example.com,compliance_suppressed,\nro2@example.com,,pending\n',
    );
    const r = await svc(['contacts', 'import', csv, '--json', '--report', report]);
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 3, rejected: 3 });
    const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines[1]).toMatch(/^2,blocked@example\.com,,ct_\w+,rejected,422,compliance_suppressed,/);
    expect(lines[2]).toMatch(/^3,ro@example\.com,,,rejected,,invalid_row,"email_consent: ""compliance_suppressed"" is read-only/);
    expect(lines[3]).toMatch(/^4,ro2@example\.com,,,rejected,,invalid_row,"sms_consent: ""pending"" is read-only/);
    expect(await contactBy(['--email', 'ro@example.com'])).toBeUndefined();
  });

  it('a POST answered 200 (merchant suppression lifted) is updated whatever --if-exists says', async () => {
    await svc(['contacts', 'import', file('a.csv', 'email\nms@example.com\n'), '--json']);
    const c = await contactBy(['--email', 'ms@example.com']);
    await t.sb.admin.forceConsent(c.id, { email_consent: 'suppressed' });
    const r = await svc([
      'contacts',
      'import',
      file('b.csv', 'email,email_consent\nms@example.com,subscribed\n'),
      '--json',
      '--allow-unsuppress',
      '--if-exists',
      'skip',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, updated: 1, skipped: 0 });
    expect((await contactBy(['--email', 'ms@example.com'])).email_consent).toBe('subscribed');
  });

  it('people repeated in one file under concurrency 32 end with their last line, by email or by phone', async () => {
    const lines = ['email,phone,first_name'];
    for (let i = 1; i <= 400; i++) {
      const p = i % 10;
      // Some lines give only the phone, some only the email, the first and last ten both: one
      // person either way. A line with both waits for every earlier line sharing either.
      const middle = i > 10 && i <= 390;
      const email = middle && i % 3 === 0 ? '' : `p${p}@example.com`;
      const phone = middle && i % 3 === 1 ? '' : `+1415555${String(3000 + p)}`;
      lines.push(`${email},${phone},n${i}`);
    }
    const r = await svc(['contacts', 'import', file('d.csv', `${lines.join('\n')}\n`), '--json', '--concurrency', '32']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 400, created: 10, updated: 390 });
    for (let p = 0; p < 10; p++) {
      const last = 400 - ((400 - p) % 10);
      expect((await contactBy(['--phone', `+1415555${3000 + p}`])).first_name).toBe(`n${last}`);
    }
  }, 60_000);
});
