/**
 * Fitting tables to the terminal (io/table.ts), the pager's choice of command (io/pager.ts) and
 * --fields parsing (io/fields.ts): pure functions and the table writer on fake streams.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { contactTableColumns } from '../../src/commands/contacts/shared.js';
import type { Contact } from '../../src/contract/types.js';
import { makeColors } from '../../src/io/color.js';
import { parseFields, pickFields } from '../../src/io/fields.js';
import { type Column, Output } from '../../src/io/output.js';
import { findExecutable, pagerCommand, splitCommand } from '../../src/io/pager.js';
import { type FitColumn, fitCell, fitColumns } from '../../src/io/table.js';
import { fakeIO } from '../helpers/run-cli.js';

const col = (natural: number, min = natural, priority = 0): FitColumn => ({ natural, min, priority });

describe('fitColumns', () => {
  it('keeps natural widths when they fit', () => {
    expect(fitColumns([col(10), col(20)], 80)).toEqual({ shown: [0, 1], widths: [10, 20] });
  });

  it('cuts the widest column that may be cut, down to its minimum', () => {
    // 10 + 2 + 60 + 2 + 20 = 94 > 80: the 60-wide column gives 14.
    expect(fitColumns([col(10), col(60, 10), col(20, 10)], 80)).toEqual({ shown: [0, 1, 2], widths: [10, 46, 20] });
    // Widest first: both cut columns end level.
    expect(fitColumns([col(10), col(40, 10), col(40, 10)], 60)).toEqual({ shown: [0, 1, 2], widths: [10, 23, 23] });
  });

  it('drops the column of lowest priority when cutting to the minimums is not enough, then fits again', () => {
    const cols = [col(35, 35, 100), col(60, 20, 90), col(12, 12, 60), col(16, 13, 80), col(16, 11, 70), col(8, 8, 50)];
    const fit = fitColumns(cols, 80);
    // updated (50), then phone (60), then SMS consent (70) go; the email gets the room left.
    expect(fit.shown).toEqual([0, 1, 3]);
    expect(fit.widths).toEqual([35, 25, 16]);
    const at120 = fitColumns(cols, 120);
    expect(at120.shown).toEqual([0, 1, 2, 3, 4, 5]);
    expect(at120.widths.reduce((a, b) => a + b, 0) + 2 * 5).toBe(120);
  });

  it('on equal priority drops the rightmost column first', () => {
    expect(fitColumns([col(30), col(30), col(30)], 62).shown).toEqual([0, 1]);
  });

  it('cuts a lone column that still does not fit, even one meant to stay whole', () => {
    expect(fitColumns([col(50), col(50)], 30)).toEqual({ shown: [0], widths: [30] });
  });

  it('has no limit off a terminal (Infinity)', () => {
    expect(fitColumns([col(500), col(500)], Number.POSITIVE_INFINITY).widths).toEqual([500, 500]);
  });
});

describe('fitCell', () => {
  it('cuts with an ellipsis and pads to the width, counting wide characters as two columns', () => {
    expect(fitCell('abcdefghij', 5, true)).toBe('abcd…');
    expect(fitCell('abc', 5, true)).toBe('abc  ');
    expect(fitCell('abc', 5, false)).toBe('abc');
    // 日本語 and … would be 7 columns (cli-truncate 5 alone answers that): 日本… padded to 6.
    expect(fitCell('日本語のメール', 6, true)).toBe('日本… ');
    for (let w = 1; w <= 15; w++) expect(stringWidth(fitCell('日本語のメールアドレス', w, true))).toBe(w);
    // 日本 is 4 columns, … one: padded with one space to 6.
    expect(fitCell('日本', 6, true)).toBe('日本  ');
  });
});

const long = (n: number): Contact => ({
  id: `ct_${String(n).padStart(32, '0')}`,
  email: `someone.with.a.rather.long.address.${n}@a-long-company-domain.example.com`,
  phone: `+1415555${String(n).padStart(4, '0')}`,
  first_name: 'Ann',
  last_name: '李小龍',
  email_consent: 'never_subscribed',
  sms_consent: 'single_opt_in',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  orders_count: 2,
  total_spent: { USD: '12.50' },
  last_order_at: null,
});

async function table<T>(columns: Column<T>[], rows: T[], width: number): Promise<string[]> {
  const f = fakeIO({ tty: true, columns: width });
  const out = new Output(f.io, { canPrompt: false, canAnimate: false, humanStdout: true, color: false }, makeColors(false), false);
  const w = await out.list('table', columns);
  w.writePage(rows);
  w.end();
  return f.stdout().trimEnd().split('\n');
}

describe('the contacts table at a terminal', () => {
  const rows = [long(1), long(2), long(3)];
  const now = Date.parse('2026-01-02T00:00:00Z');
  for (const width of [80, 120]) {
    it(`at ${width} columns: one line per contact, none wider than the terminal`, async () => {
      const lines = await table(contactTableColumns(now), rows, width);
      expect(lines).toHaveLength(rows.length + 1);
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
      expect(lines[1]).toContain('…');
    });
  }

  it('at 120 columns the ids are whole; at 80 they are cut in the middle before an identifying column goes', async () => {
    const at120 = await table(contactTableColumns(now), rows, 120);
    for (const [i, r] of rows.entries()) expect(at120[i + 1]?.startsWith(`${r.id}  `)).toBe(true);
    const [h80, ...r80] = await table(contactTableColumns(now), rows, 80);
    expect(h80).toMatch(/^ID\s+EMAIL\s+PHONE\s+EMAIL CONSENT\s+SMS CONSENT$/);
    for (const [i, r] of rows.entries()) {
      const id = r80[i]?.split('  ')[0] as string;
      expect(id).toMatch(/^ct_0+…0+\d$/);
      expect(id.length).toBeLessThan(r.id.length);
      expect(r80[i]).toContain(r.phone as string);
    }
  });

  it('a contact without email keeps its phone as identifier once the phone column is dropped', async () => {
    const phoneOnly: Contact = { ...long(4), email: null };
    const lines = await table(contactTableColumns(now), [long(1), phoneOnly], 60);
    expect(lines[0]).toMatch(/^ID\s+EMAIL\/PHONE\s+/);
    expect(lines[0]).not.toMatch(/\sPHONE\s/);
    expect(lines[2]).toContain(phoneOnly.phone as string);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
  });

  it('a wide terminal shows name, orders and total spent; left out when the service returns none', async () => {
    const [h200, r200] = await table(contactTableColumns(now), rows, 200);
    expect(h200).toMatch(/^ID\s+EMAIL\s+PHONE\s+NAME\s+EMAIL CONSENT\s+SMS CONSENT\s+ORDERS\s+TOTAL SPENT\s+UPDATED$/);
    expect(r200).toContain('Ann 李小龍');
    expect(r200).toContain('12.50 USD');
    const bare = rows.map((r) => ({
      ...r,
      first_name: null,
      last_name: null,
      total_spent: {},
      orders_count: undefined as unknown as number,
    }));
    const [hBare] = await table(contactTableColumns(now), bare, 200);
    expect(hBare).toMatch(/^ID\s+EMAIL\s+PHONE\s+EMAIL CONSENT\s+SMS CONSENT\s+UPDATED$/);
  });

  it('with --fields, drops names, then updated, before the consent columns', async () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    const cols = contactTableColumns(now, ['id', 'first_name', 'last_name', 'updated_at', 'sms_consent', 'created_at']);
    // created (lowest) goes first, then the last name, then the first name; SMS consent stays.
    const [h80] = await table(cols, rows, 80);
    expect(h80).toMatch(/^ID\s+FIRST NAME\s+UPDATED\s+SMS CONSENT$/);
    const [h60] = await table(cols, rows, 60);
    expect(h60).toMatch(/^ID\s+UPDATED\s+SMS CONSENT$/);
    const [h50] = await table(cols, rows, 50);
    expect(h50).toMatch(/^ID\s+SMS CONSENT$/);
    // Wide characters count two columns: 李小龍 is 6 wide, and every line still fits.
    const lines = await table(cols, rows, 90);
    expect(lines[0]).toMatch(/^ID\s+FIRST NAME\s+LAST NAME\s+UPDATED\s+SMS CONSENT$/);
    expect(lines[1]).toContain('李小龍');
    for (const l of lines) expect(stringWidth(l)).toBeLessThanOrEqual(90);
  });

  it('off a terminal (--format table into a pipe) cuts nothing to a width', async () => {
    const f = fakeIO({ tty: false, columns: 80 });
    const out = new Output(f.io, { canPrompt: false, canAnimate: false, humanStdout: false, color: false }, makeColors(false), false);
    const w = await out.list('table', contactTableColumns(0));
    w.writePage([long(1)]);
    expect(f.stdout()).toContain(long(1).email as string);
  });
});

describe('pager command', () => {
  it('SVC_PAGER, else PAGER, else less -FRX; cat or an empty PAGER means none', () => {
    expect(pagerCommand({})).toEqual({ argv: ['less', '-FRX'], chosen: false });
    expect(pagerCommand({ PAGER: 'more' })).toEqual({ argv: ['more'], chosen: true });
    expect(pagerCommand({ PAGER: 'more', SVC_PAGER: 'less -S' })?.argv).toEqual(['less', '-S']);
    expect(pagerCommand({ PAGER: 'more', SVC_PAGER: '' })?.argv).toEqual(['more']);
    expect(pagerCommand({ PAGER: '' })).toBeUndefined();
    expect(pagerCommand({ PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({ SVC_PAGER: 'cat' })).toBeUndefined();
  });

  it('splits a command line with quotes like a shell', () => {
    expect(splitCommand(`less -R '--prompt=a b' "x\\"y" c\\ d`)).toEqual(['less', '-R', '--prompt=a b', 'x"y', 'c d']);
    expect(splitCommand('  ')).toEqual([]);
  });

  it('finds the executable on PATH', () => {
    expect(findExecutable('sh', { PATH: '/nowhere:/bin:/usr/bin' })).toMatch(/\/sh$/);
    expect(findExecutable('no-such-pager-here', { PATH: '/bin:/usr/bin' })).toBeUndefined();
  });
});

describe('--fields', () => {
  const valid = ['id', 'email', 'sms_consent'] as const;
  it('keeps the order given, trims spaces and drops repeats', () => {
    expect(parseFields(' sms_consent, id ,sms_consent', valid)).toEqual(['sms_consent', 'id']);
  });
  it('an unknown or missing name is a usage error naming it and listing the valid ones', () => {
    expect(() => parseFields('id,emial', valid)).toThrow(/unknown field "emial"; valid fields: id, email, sms_consent/);
    expect(() => parseFields(' , ', valid)).toThrow(/at least one field/);
  });
  it('picks the fields in order; a missing one is null', () => {
    expect(pickFields({ b: 1, a: 2 }, ['a', 'c', 'b'])).toEqual({ a: 2, c: null, b: 1 });
    expect(Object.keys(pickFields({ b: 1, a: 2 }, ['a', 'b']))).toEqual(['a', 'b']);
  });
});
