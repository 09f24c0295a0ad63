/** Pure parts of the contacts commands: phone normalisation, welcome SMS rule, CSV cells, ids files. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readIds } from '../../src/commands/contacts/bulk.js';
import {
  CONTACT_CSV_COLUMNS,
  checkPhoneRequirement,
  contactTableColumns,
  parsePhone,
  relativeTime,
  welcomeSmsOutcome,
} from '../../src/commands/contacts/shared.js';
import { type Context, createContext } from '../../src/context.js';
import type { Contact } from '../../src/contract/types.js';
import { CredentialStore } from '../../src/store/store.js';
import { fakeIO, tempConfigDir } from '../helpers/run-cli.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  cfg = tempConfigDir();
});
afterEach(() => cfg.cleanup());

function ctxWith(opts: { stdin?: string; json?: boolean; tty?: boolean } = {}) {
  const f = fakeIO({ stdin: opts.stdin, tty: opts.tty });
  const ctx: Context = createContext({ io: f.io, env: { SVC_CONFIG_DIR: cfg.dir }, flags: { json: opts.json } });
  return { ctx, stdout: f.stdout, stderr: f.stderr };
}

const base: Contact = {
  id: 'ct_1',
  email: 'a@example.com',
  phone: '+14155550100',
  first_name: 'Ann',
  last_name: 'Lee',
  email_consent: 'subscribed',
  sms_consent: 'never_subscribed',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  orders_count: 2,
  total_spent: { USD: '12.50', EUR: '3.00' },
  last_order_at: null,
};

describe('phone numbers typed by people', () => {
  it('normalises with --default-country and international prefixes', async () => {
    const { ctx } = ctxWith();
    expect(await parsePhone(ctx, '--phone', '(415) 555-0100', 'US')).toBe('+14155550100');
    expect(await parsePhone(ctx, '--phone', '0044 20 7946 0958', undefined)).toBe('+442079460958');
    expect(await parsePhone(ctx, '--phone', '+44 20 7946 0958', undefined)).toBe('+442079460958');
  });
  it("uses the profile's default_country when no flag is given", async () => {
    new CredentialStore(cfg.dir).setProfile('default', { default_country: 'gb' });
    const { ctx } = ctxWith();
    expect(await parsePhone(ctx, '--phone', '020 7946 0958', undefined)).toBe('+442079460958');
    // The flag wins over the profile.
    expect(await parsePhone(ctx, '--phone', '(415) 555-0100', 'US')).toBe('+14155550100');
  });
  it('refuses an impossible number with exit code 2', async () => {
    const { ctx } = ctxWith();
    await expect(parsePhone(ctx, '--phone', '+1 555', undefined)).rejects.toMatchObject({ exitCode: 2 });
    await expect(parsePhone(ctx, '--phone', '555-0100', undefined)).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('welcome SMS rule (spec transition table)', () => {
  const after = { ...base, sms_consent: 'subscribed' as const };
  it('is sent on a move into subscribed, suppressed with send_welcome_sms false', () => {
    for (const prev of ['never_subscribed', 'unsubscribed', 'single_opt_in', 'pending'] as const) {
      expect(welcomeSmsOutcome({ sms_consent: 'subscribed' }, prev, after)).toBe('sent');
      expect(welcomeSmsOutcome({ sms_consent: 'subscribed', send_welcome_sms: false }, prev, after)).toBe('suppressed');
    }
  });
  it('is not sent when already subscribed or for other values', () => {
    expect(welcomeSmsOutcome({ sms_consent: 'subscribed' }, 'subscribed', after)).toBe('none');
    expect(welcomeSmsOutcome({ sms_consent: 'single_opt_in' }, 'never_subscribed', base)).toBe('none');
    expect(welcomeSmsOutcome({ email_consent: 'subscribed' }, 'never_subscribed', base)).toBe('none');
    expect(welcomeSmsOutcome({ sms_consent: 'subscribed' }, undefined, after)).toBe('unknown');
  });
});

describe('phone requirement', () => {
  it('needs a phone in the write or on the contact', () => {
    expect(() => checkPhoneRequirement({ sms_consent: 'single_opt_in' }, { phone: null }, 'ct_1')).toThrow(/--sms-consent single_opt_in/);
    expect(() => checkPhoneRequirement({ sms_consent: 'subscribed' }, undefined)).toThrow(/phone/);
    expect(() => checkPhoneRequirement({ sms_consent: 'subscribed' }, { phone: '+14155550100' }, 'ct_1')).not.toThrow();
    expect(() => checkPhoneRequirement({ sms_consent: 'subscribed', phone: '+14155550100' }, { phone: null }, 'ct_1')).not.toThrow();
    expect(() => checkPhoneRequirement({ sms_consent: 'unsubscribed' }, { phone: null }, 'ct_1')).not.toThrow();
  });
});

describe('list output columns', () => {
  it('the table shows id, email, phone, name, email consent, SMS consent, orders, total spent, updated (name and the order figures dropped when empty)', () => {
    const columns = contactTableColumns(0);
    expect(columns.map((c) => c.header)).toEqual([
      'id',
      'email',
      'phone',
      'name',
      'email consent',
      'sms consent',
      'orders',
      'total spent',
      'updated',
    ]);
    expect(columns.filter((c) => c.dropWhenEmpty).map((c) => c.header)).toEqual(['name', 'orders', 'total spent']);
  });
  it('the table shows the update time relative to now', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(relativeTime('2026-03-10T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-03-10T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-03-10T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-03-09T11:00:00Z', now)).toBe('1 day ago');
    expect(relativeTime('2026-03-01T12:00:00Z', now)).toBe('9 days ago');
    expect(relativeTime('2025-12-01T12:00:00Z', now)).toBe('2025-12-01');
    expect(relativeTime(null, now)).toBe('');
  });
  it('CSV has every field, escapes formulas, leaves E.164 phones and numbers alone', async () => {
    const { ctx, stdout } = ctxWith();
    const crafted: Contact[] = [
      { ...base, id: 'ct_a', first_name: '=cmd|/C calc!A0', last_name: '@SUM(1)' },
      { ...base, id: 'ct_b', first_name: '+x', last_name: '-x', phone: '+442079460958' },
      { ...base, id: 'ct_c', first_name: '\tTab', last_name: '-12.5', total_spent: {} },
    ];
    const w = await ctx.out.list('csv', contactTableColumns(0), CONTACT_CSV_COLUMNS);
    w.writePage(crafted.slice(0, 2));
    w.writePage(crafted.slice(2));
    w.end();
    const rows = parse(stdout(), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'id',
      'email',
      'phone',
      'first_name',
      'last_name',
      'email_consent',
      'sms_consent',
      'created_at',
      'updated_at',
      'orders_count',
      'total_spent',
      'last_order_at',
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ first_name: "'=cmd|/C calc!A0", last_name: "'@SUM(1)", phone: '+14155550100' });
    expect(rows[1]).toMatchObject({ first_name: "'+x", last_name: "'-x", phone: '+442079460958' });
    expect(rows[2]).toMatchObject({ first_name: "'\tTab", last_name: '-12.5', total_spent: '{}', last_order_at: '' });
    expect(JSON.parse(rows[0]?.total_spent ?? '')).toEqual({ USD: '12.50', EUR: '3.00' });
  });
});

describe('ids files', () => {
  it('skips blanks, comments and an id header; takes the first CSV field', async () => {
    const file = join(cfg.dir, 'ids.txt');
    writeFileSync(file, '\uFEFFid\n# to remove\nct_1\n\n  ct_2  \r\nct_3,a@example.com\n');
    const { ctx } = ctxWith();
    expect((await readIds(ctx, file)).ids).toEqual([
      { line: 3, id: 'ct_1' },
      { line: 5, id: 'ct_2' },
      { line: 6, id: 'ct_3' },
    ]);
  });
  it('reads - from stdin; a list without ids is empty (nothing to do, not an error)', async () => {
    expect((await readIds(ctxWith({ stdin: 'ct_9\nct_8\n' }).ctx, '-')).ids).toEqual([
      { line: 1, id: 'ct_9' },
      { line: 2, id: 'ct_8' },
    ]);
    expect((await readIds(ctxWith({ stdin: '\n# nothing\n' }).ctx, '-')).ids).toEqual([]);
  });
});
