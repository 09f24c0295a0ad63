/**
 * svc sandbox logs (issue 37) in-process against a sandbox over real HTTP: the layout at 80 and
 * 120 columns (status, whole path and reason of each refused request), one line per request into
 * a pipe, --search, --curl, --har (checked against a HAR 1.2 schema), --ndjson, replay and flows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { HAR_1_2_SCHEMA } from '../helpers/har-schema.js';
import { runCli } from '../helpers/run-cli.js';
import { http } from '../helpers/sandbox.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

let token: string;
let env: Record<string, string>;
const LONG_PATH = '/v1/contacts/ct_this_contact_id_is_long_enough_to_need_more_than_one_line_at_80_columns';
let refusedId: string;
let okId: string;
beforeAll(async () => {
  token = (await fx.sb.admin.createApiToken(['contacts_read', 'contacts_write'])).token;
  env = fx.env({ SVC_TOKEN: token });
  const ok = await http(fx.sb.baseUrl, 'POST', '/v1/contacts', {
    token,
    json: { email: 'ada.lovelace@example.com', phone: '+33612345678' },
  });
  okId = ok.headers.get('x-request-id') as string;
  const refused = await http(fx.sb.baseUrl, 'GET', LONG_PATH, { token });
  refusedId = refused.headers.get('x-request-id') as string;
  await http(fx.sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'x', email: 'a@example.com' } });
});

const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
const widest = (text: string) =>
  Math.max(
    ...plain(text)
      .split('\n')
      .map((l) => [...l].length),
  );

/** The path of the first row matching `rowPattern`, with its pieces continued on the lines below it. */
function wholePath(out: string, rowPattern: RegExp): string {
  const lines = out.split('\n');
  const row = lines.findIndex((l) => rowPattern.test(l));
  const col = (lines[row] as string).indexOf('/v1/');
  let path = (lines[row] as string).slice(col).split('  ', 1)[0] as string;
  for (const l of lines.slice(row + 1)) {
    if (!(l.length > col && l.slice(0, col).trim() === '' && l[col] !== ' ')) break;
    path += l.slice(col).split('  ', 1)[0];
  }
  return path;
}

describe('svc sandbox logs on a terminal', () => {
  for (const columns of [80, 120]) {
    it(`at ${columns} columns: status, the whole path and the reason of every refused request, within the width`, async () => {
      const r = await runCli(['sandbox', 'logs'], { env, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
      expect(r.stdout).toMatch(/^TIME\s+STATUS\s+METHOD\s+PATH\s+CREDENTIAL/m);
      // The path continues on the next lines rather than being cut.
      expect(wholePath(r.stdout, /\s404\s+GET\s/)).toBe(LONG_PATH);
      const flat = r.stdout.replace(/\s+/g, ' ');
      expect(flat).toContain('not_found: contact ct_this_contact_id_is_long_enough');
      expect(flat).toContain('insufficient_scope: this token lacks the scope events_write');
      expect(r.stdout).toContain('Test token (API token)');
      expect(r.stdout).toMatch(/\d\d:\d\d:\d\dZ\s+201\s+POST\s+\/v1\/contacts/);
      if (columns === 120) expect(r.stdout).toContain(okId);
      else expect(r.stdout).toContain(`(${refusedId})`);
    });
  }

  it('into a pipe: one line per request, nothing cut', async () => {
    const r = await runCli(['sandbox', 'logs'], { env });
    const lines = r.stdout.trimEnd().split('\n');
    const refused = lines.find((l) => l.includes(refusedId)) as string;
    expect(refused).toContain(LONG_PATH);
    expect(refused).toMatch(/not_found: contact ct_this_contact_id_is_long_enough_to_need_more_than_one_line_at_80_columns not found/);
  });

  it('--request-id wraps why and fix between words at 80 columns', async () => {
    const events = await runCli(['sandbox', 'logs', '--status', '403', '--json'], { env });
    const id = (JSON.parse(events.stdout) as { request_id: string }[])[0]?.request_id as string;
    const r = await runCli(['sandbox', 'logs', '--request-id', id], { env, tty: true, columns: 80 });
    expect(widest(r.stdout.split('\nRequest body')[0] as string)).toBeLessThanOrEqual(80);
    const lines = plain(r.stdout).split('\n');
    const fix = lines.findIndex((l) => l.startsWith('fix'));
    // Every line break falls between words: the words of the text are whole on their lines.
    const fixText = [lines[fix]?.slice(12), ...lines.slice(fix + 1).filter((l) => l.startsWith(' '.repeat(12)))].map((l) => l?.trim());
    const json = JSON.parse((await runCli(['sandbox', 'logs', '--request-id', id, '--json'], { env })).stdout);
    expect(fixText.join(' ')).toContain(json.explanation.fix.split(' ').slice(0, 12).join(' '));
  });
});

describe('search, curl, export', () => {
  it('--search finds a request by an e-mail in its body, and by a phone', async () => {
    const r = await runCli(['sandbox', 'logs', '--search', 'ada.lovelace@example.com', '--json'], { env });
    expect((JSON.parse(r.stdout) as { request_id: string }[]).map((e) => e.request_id)).toEqual([okId]);
    const phone = await runCli(['sandbox', 'logs', '--search', '+33612345678', '--json'], { env });
    expect((JSON.parse(phone.stdout) as { request_id: string }[]).map((e) => e.request_id)).toContain(okId);
  });

  it('--request-id --curl prints the command with $SVC_TOKEN, never the token', async () => {
    const r = await runCli(['sandbox', 'logs', '--request-id', okId, '--curl'], { env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^curl -X POST '.*\/v1\/contacts'/);
    expect(r.stdout).toContain('Authorization: Bearer ${SVC_TOKEN}');
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(r.stderr).toContain('set SVC_TOKEN to');
  });

  it('--har FILE writes HAR 1.2 that passes the schema; --ndjson prints one request per line', async () => {
    const file = join(fx.tmp.dir, 'session.har');
    const r = await runCli(['sandbox', 'logs', '--har', file], { env, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/wrote \d+ request\(s\) to .*session\.har/);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
    const validate = addFormats(new Ajv({ strict: false })).compile(HAR_1_2_SCHEMA);
    expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
    const nd = await runCli(['sandbox', 'logs', '--ndjson', '--status', '4xx'], { env });
    const rows = nd.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.every((e) => e.status >= 400)).toBe(true);
    expect(rows.map((e) => e.request_id)).toContain(refusedId);
    const both = await runCli(['sandbox', 'logs', '--ndjson', '--follow'], { env });
    expect(both.code).toBe(2);
  });
});

describe('svc sandbox replay and flows', () => {
  it('replay sends the request again, linked to its original', async () => {
    const r = await runCli(['sandbox', 'replay', refusedId, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ replay_of: refusedId, status: 404, request: { replay_of: refusedId } });
    const original = JSON.parse((await runCli(['sandbox', 'logs', '--request-id', refusedId, '--json'], { env })).stdout);
    expect(original.replays).toEqual([out.request_id]);
    const tty = await runCli(['sandbox', 'replay', okId], { env, tty: true, columns: 80 });
    expect(tty.stdout).toMatch(/409\s+POST\s+\/v1\/contacts/);
    expect(tty.stderr).toContain(`replayed ${okId} as req_`);
    expect((await runCli(['sandbox', 'replay', 'req_nope'], { env })).code).toBe(1);
  });

  it('flows list, show, disable and enable', async () => {
    const flow = await fx.sb.admin.createFlow('signup', 'Welcome series');
    await http(fx.sb.baseUrl, 'POST', '/v1/events', {
      token: await fx.sb.tokenWithAllScopes(),
      json: { event_type: 'signup', email: 'f@example.com' },
    });
    const list = await runCli(['sandbox', 'flows', 'list'], { env, tty: true });
    expect(list.stdout).toMatch(new RegExp(`${flow.id}\\s+Welcome series\\s+event signup\\s+yes\\s+1`));
    const show = await runCli(['sandbox', 'flows', 'show', flow.id], { env, tty: true });
    show.stdout = plain(show.stdout);
    expect(show.stdout).toMatch(/runs on\s+event signup/);
    expect(show.stdout).toContain('recent runs');
    expect((await runCli(['sandbox', 'flows', 'disable', flow.id], { env })).code).toBe(0);
    const off = JSON.parse((await runCli(['sandbox', 'flows', 'show', flow.id, '--json'], { env })).stdout);
    expect(off).toMatchObject({ enabled: false, runs: 1 });
    await runCli(['sandbox', 'flows', 'enable', flow.id], { env });
    expect(JSON.parse((await runCli(['sandbox', 'flows', 'list', '--json'], { env })).stdout)[0].enabled).toBe(true);
    expect((await runCli(['sandbox', 'flows', 'show', 'flow_nope'], { env })).code).toBe(1);
  });
});
