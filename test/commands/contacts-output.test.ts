/**
 * Output formats of `svc contacts list` against the real sandbox: CSV parsed back equals the JSON
 * output, formula escaping on crafted names (E.164 phones untouched), table and TSV.
 */
import { PassThrough, Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { main } from '../../src/main.js';
import { waitUntil } from '../helpers/outage.js';
import { type ContactsFixture, contactsFixture } from './contacts-fixture.js';

let fx: ContactsFixture;
let plain: Contact[];
beforeAll(async () => {
  fx = await contactsFixture();
  plain = [];
  for (let i = 0; i < 5; i++) {
    plain.push(
      await fx.create(['--first-name', `Ann ${i}`, '--last-name', 'Lee, "Jr"', '--phone', fx.phone(), '--email-consent', 'subscribed']),
    );
  }
  plain.push(await fx.create(['--sms-consent', 'unsubscribed']));
});
afterAll(async () => {
  await fx?.close();
});

/** A CSV cell read back into the JSON value it came from (the contact's types are known). */
function fromCell(field: string, cell: string): unknown {
  if (field === 'total_spent') return JSON.parse(cell);
  if (field === 'orders_count') return Number(cell);
  return cell === '' ? null : cell;
}

describe('csv', () => {
  it('parsed back with csv-parse equals the JSON output, across pages', async () => {
    const json = await fx.json<Contact[]>(['contacts', 'list', '--all', '--email-consent', 'subscribed']);
    expect(json.length).toBe(5);
    const r = await fx.svc(['contacts', 'list', '--all', '--email-consent', 'subscribed', '--format', 'csv', '--page-size', '2']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    const back = rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, fromCell(k, v)])));
    expect(back).toEqual(json);
    // One header only, although three pages were written.
    expect(r.stdout.split('\n').filter((l) => l.startsWith('id,')).length).toBe(1);
  });

  it('an empty result is just the header', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--sms-consent', 'pending', '--format', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'id,email,phone,first_name,last_name,email_consent,sms_consent,created_at,updated_at,orders_count,total_spent,last_order_at\n',
    );
  });

  it('escapes cells a spreadsheet would run (=, @, +, -) but not E.164 phones', async () => {
    const crafted = [
      ['=cmd|/C calc!A0', '@SUM(A1)'],
      ['+x', '-x'],
      ['-1+1', '=1+1'],
    ];
    const made: Contact[] = [];
    for (const [first, last] of crafted) {
      made.push(
        await fx.create([
          '--first-name',
          first as string,
          '--last-name',
          last as string,
          '--phone',
          fx.phone(),
          '--email-consent',
          'never_subscribed',
        ]),
      );
    }
    const r = await fx.svc(['contacts', 'list', '--all', '--email-consent', 'never_subscribed', '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    for (const [i, c] of made.entries()) {
      const row = rows.find((x) => x.id === c.id);
      expect(row).toBeDefined();
      expect(row?.first_name).toBe(`'${crafted[i]?.[0]}`);
      expect(row?.last_name).toBe(`'${crafted[i]?.[1]}`);
      expect(row?.phone).toBe(c.phone);
      expect(row?.phone).toMatch(/^\+1415555\d{4}$/);
    }
    // JSON keeps the values as they are.
    const json = await fx.json<Contact[]>(['contacts', 'list', '--all', '--email-consent', 'never_subscribed']);
    expect(json.find((x) => x.id === made[0]?.id)?.first_name).toBe('=cmd|/C calc!A0');
  });
});

describe('table and tsv', () => {
  it('a terminal gets a table with the header once, printed page by page', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--page-size', '2'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+EMAIL\s+PHONE\s+(NAME\s+)?EMAIL CONSENT\s+SMS CONSENT\s+(ORDERS\s+)?UPDATED$/);
    expect(lines.filter((l) => l.startsWith('ID ')).length).toBe(1);
    const all = await fx.json<Contact[]>(['contacts', 'list', '--all']);
    expect(lines.length).toBe(all.length + 1);
    for (const c of all) expect(r.stdout).toContain(c.id);
  });

  it('a terminal table fits 80 and 120 columns: one line per contact, each with its id (whole at 120), long cells cut with …', async () => {
    const long = await fx.create(['--email', `a.very.long.address.that.cannot.fit.${Date.now()}@an-example-company-domain.com`]);
    for (const columns of [80, 120]) {
      const r = await fx.svc(['contacts', 'list', '--all'], { tty: true, columns, env: { NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(columns);
      const all = await fx.json<Contact[]>(['contacts', 'list', '--all']);
      expect(lines).toHaveLength(all.length + 1);
      // At 80 columns an id is cut in the middle (both ends kept); at 120 it is whole.
      const shown = (id: string) => (columns >= 120 ? `${id}  ` : `${id.slice(0, 4)}`);
      for (const c of all) expect(lines.filter((l) => l.startsWith(shown(c.id)) && l.includes(c.id.slice(-4)))).toHaveLength(1);
      expect(lines.find((l) => l.includes(long.id.slice(-4)) && l.startsWith(shown(long.id)))).toContain('…');
    }
  });

  it('a pipe without --format gets TSV rows of the same columns, no header', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--email-consent', 'subscribed']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    const cells = (lines[0] as string).split('\t');
    const first = plain[0] as Contact;
    expect(cells).toEqual([first.id, first.email, first.phone, 'subscribed', 'never_subscribed', first.updated_at]);
  });

  it('an empty table says so on stderr', async () => {
    const r = await fx.svc(['contacts', 'list', '--sms-consent', 'pending'], { tty: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No contacts match/);
  });
});

describe('back-pressure', () => {
  it('--all fetches the next page only when stdout has taken the last one', async () => {
    // A reader that takes nothing until released: one page fills its buffer.
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let out = '';
    const stdout = new Writable({
      highWaterMark: 16,
      write(chunk, _enc, done) {
        out += chunk.toString();
        gate.then(() => done());
      },
    });
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const stdin = new PassThrough();
    stdin.end();
    const io = { stdin, stdout, stderr, stdinIsTTY: false, stdoutIsTTY: false, stderrIsTTY: false };
    const pages = () => (err.match(/GET \S+\/v1\/contacts\S* → 200/g) ?? []).length;
    const run = main(['contacts', 'list', '--all', '--format', 'ndjson', '--page-size', '2', '--debug'], { io, env: fx.env });
    // The first page arrives (a state), then stdout stays unread a while: no second page is fetched.
    await waitUntil('the first page', () => pages() >= 1);
    await new Promise((r) => setTimeout(r, 400));
    expect(pages()).toBe(1);
    release();
    expect(await run, err).toBe(0);
    const all = await fx.json<Contact[]>(['contacts', 'list', '--all']);
    expect(all.length).toBeGreaterThan(4);
    expect(pages()).toBe(Math.ceil(all.length / 2));
    expect(
      out
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(all.map((c) => c.id));
  });
});
