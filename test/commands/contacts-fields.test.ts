/**
 * --fields against the real sandbox: the fields chosen, in the order given, in every format of
 * `contacts list` (JSON, NDJSON, CSV, TSV, table), in `contacts get` (JSON and record) and in
 * `sandbox outbox`; an unknown name is a usage error (exit 2) naming it and the valid ones.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { type ContactsFixture, contactsFixture } from './contacts-fixture.js';

let fx: ContactsFixture;
let made: Contact[];
beforeAll(async () => {
  fx = await contactsFixture();
  made = [];
  for (let i = 0; i < 3; i++) made.push(await fx.create(['--phone', fx.phone(), '--sms-consent', 'subscribed', '--first-name', `F${i}`]));
});
afterAll(async () => {
  await fx?.close();
});

const FIELDS = 'sms_consent,id,email';
const pick = (c: Contact) => ({ sms_consent: c.sms_consent, id: c.id, email: c.email });

describe('contacts list --fields', () => {
  it('json: objects with only those keys, in that order', async () => {
    const rows = await fx.json<Record<string, unknown>[]>(['contacts', 'list', '--all', '--fields', FIELDS]);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) expect(Object.keys(r)).toEqual(['sms_consent', 'id', 'email']);
    for (const c of made) expect(rows).toContainEqual(pick(c));
  });

  it('ndjson: one such object per line', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--format', 'ndjson', '--fields', FIELDS, '--page-size', '2']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    for (const row of rows) expect(Object.keys(row)).toEqual(['sms_consent', 'id', 'email']);
    for (const c of made) expect(rows).toContainEqual(pick(c));
  });

  it('csv: a header of those names and one column each', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--format', 'csv', '--fields', FIELDS]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('sms_consent,id,email');
    const rows = parse(r.stdout, { columns: true }) as Record<string, string>[];
    for (const c of made) expect(rows).toContainEqual(pick(c));
  });

  it('tsv (piped, no format): those columns, values in full', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--fields', 'id,first_name,updated_at']);
    expect(r.code, r.stderr).toBe(0);
    const c = made[0] as Contact;
    expect(r.stdout.split('\n')).toContain(`${c.id}\tF0\t${c.updated_at}`);
  });

  it('table (terminal): those columns, in that order', async () => {
    const r = await fx.svc(['contacts', 'list', '--all', '--fields', FIELDS], { tty: true, columns: 120, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SMS CONSENT\s+ID\s+EMAIL$/);
    const c = made[0] as Contact;
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^subscribed\\s+${c.id}\\s+${c.email?.replace(/\./g, '\\.')}$`)));
  });

  it('an unknown field: exit 2 before any request, naming it and the valid fields', async () => {
    const r = await fx.svc(['contacts', 'list', '--fields', 'id,emial', '--debug']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown field "emial"/);
    expect(r.stderr).toMatch(/valid fields: id, email, phone, first_name, last_name, email_consent, sms_consent, created_at/);
    expect(r.stderr).not.toMatch(/GET /);
    const json = await fx.svc(['contacts', 'list', '--fields', 'nope', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.message).toMatch(/unknown field "nope"/);
    expect((await fx.svc(['contacts', 'list', '--fields', ','])).code).toBe(2);
  });
});

describe('contacts get --fields', () => {
  it('json: only those keys; record: only those lines, in that order', async () => {
    const c = made[1] as Contact;
    const obj = await fx.json<Record<string, unknown>>(['contacts', 'get', c.id, '--fields', 'email,id']);
    expect(obj).toEqual({ email: c.email, id: c.id });
    expect(Object.keys(obj)).toEqual(['email', 'id']);
    const r = await fx.svc(['contacts', 'get', c.id, '--fields', 'phone,first_name'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`phone       ${c.phone}\nfirst_name  F1\n`);
  });

  it('an unknown field is exit 2', async () => {
    const r = await fx.svc(['contacts', 'get', (made[0] as Contact).id, '--fields', 'id,age']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown field "age".*valid fields: id, email/);
  });
});

describe('sandbox outbox --fields', () => {
  it('json: only those keys (null where a side effect has none); table and unknown names', async () => {
    const r = await fx.svc([
      'sandbox',
      'outbox',
      '--base-url',
      fx.baseUrl,
      '--type',
      'welcome_sms',
      '--json',
      '--fields',
      'contact_id,type,order_id',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    for (const c of made) expect(rows).toContainEqual({ contact_id: c.id, type: 'welcome_sms', order_id: null });
    const table = await fx.svc(['sandbox', 'outbox', '--base-url', fx.baseUrl, '--fields', 'type,seq'], {
      tty: true,
      env: { NO_COLOR: '1' },
    });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^TYPE\s+SEQ$/);
    const bad = await fx.svc(['sandbox', 'outbox', '--base-url', fx.baseUrl, '--fields', 'kind']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown field "kind"; valid fields: seq, type, business_id, contact_id/);
    const live = await fx.svc(['sandbox', 'outbox', '--base-url', fx.baseUrl, '--follow', '--fields', 'seq']);
    expect(live.code).toBe(2);
  });
});
