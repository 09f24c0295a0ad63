/**
 * What the admin API does with a logged request (issue 37): copy as curl (run with the real curl
 * against the sandbox: the same answer), replay (a new request linked to its original, both
 * ways), and export as HAR 1.2 (checked against a HAR 1.2 schema) and NDJSON.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { HAR_1_2_SCHEMA } from '../helpers/har-schema.js';
import { http, type TestSandbox, tokenRequest, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

// biome-ignore lint/suspicious/noExplicitAny: admin answers are loosely typed records
const admin = async (path: string, method = 'GET'): Promise<any> => {
  const r = await http(sb.baseUrl, method, `/_sandbox${path}`);
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const idOf = (r: { headers: Headers }) => r.headers.get('x-request-id') as string;

/** Runs a curl command text in a POSIX shell with the given variables set; its stdout (the body). */
async function runCurl(command: string, vars: Record<string, string>): Promise<string> {
  const { stdout } = await promisify(execFile)('sh', ['-c', `${command} --silent --show-error`], {
    env: { PATH: process.env.PATH, ...vars },
  });
  return stdout;
}

describe('copy as curl', () => {
  it('gives a command with the token as $SVC_TOKEN; run with it set, it gets what the logged request got', async () => {
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'curl@example.com', first_name: "O'Hara" } });
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'curl@example.com', first_name: "O'Hara" } });
    expect(r.status).toBe(409);
    const c = await admin(`/requests/${idOf(r)}/curl`);
    expect(c.curl).toContain('"Authorization: Bearer ${SVC_TOKEN}"');
    expect(c.curl).not.toContain(token);
    expect(c.variables.map((v: { name: string }) => v.name)).toEqual(['SVC_TOKEN']);
    const body = JSON.parse(await runCurl(c.curl, { SVC_TOKEN: token }));
    expect(body.error.code).toBe(r.body.error.code);
    expect(body.error.message).toBe(r.body.error.message);
    expect(body.error.existing_contact_id ?? body.error.contact_id).toBe(r.body.error.existing_contact_id ?? r.body.error.contact_id);
  });

  it('a token request: the client secret as $SVC_CLIENT_SECRET, never printed; run, it gets a token', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const r = await tokenRequest(sb.baseUrl, {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(r.status).toBe(200);
    const c = await admin(`/requests/${idOf(r)}/curl`);
    expect(c.curl).not.toContain(app.client_secret);
    expect(c.variables.map((v: { name: string }) => v.name)).toEqual(['SVC_CLIENT_SECRET']);
    const body = JSON.parse(await runCurl(c.curl, { SVC_CLIENT_SECRET: app.client_secret }));
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: r.body.expires_in });
  });
});

describe('replay', () => {
  it('sends the request again as a new request marked as a replay, linked both ways', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { order_id: 'rp-1', total: '5.00', currency: 'EUR', order_date: '2026-02-01', email: 'rp@example.com' },
    });
    expect(r.status).toBe(201);
    const rep = await admin(`/requests/${idOf(r)}/replay`, 'POST');
    expect(rep).toMatchObject({ replay_of: idOf(r), status: 200 });
    expect(rep.request_id).not.toBe(idOf(r));
    expect(rep.request).toMatchObject({ request_id: rep.request_id, replay_of: idOf(r), path: '/v1/orders/placed' });
    expect(rep.request.effects.records).toEqual([expect.objectContaining({ type: 'order', action: 'updated', id: 'rp-1' })]);
    expect((await admin(`/requests/${idOf(r)}`)).replays).toEqual([rep.request_id]);
    const listed = await admin(`/requests?replay_of=${idOf(r)}`);
    expect(listed.data.map((e: { request_id: string }) => e.request_id)).toEqual([rep.request_id]);
    expect((await admin('/orders/rp-1')).last_request_id).toBe(rep.request_id);
  });

  it('refuses an admin call (409) and an unknown id (404)', async () => {
    const a = await http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: {} });
    const all = await admin(`/requests?kind=admin&request_id=${idOf(a)}`);
    expect(all.data).toHaveLength(1);
    expect((await http(sb.baseUrl, 'POST', `/_sandbox/requests/${idOf(a)}/replay`)).status).toBe(409);
    expect((await http(sb.baseUrl, 'POST', '/_sandbox/requests/req_nope/replay')).status).toBe(404);
  });
});

describe('export', () => {
  it('HAR 1.2: passes the schema, oldest first, bodies and the token masked, request ids and effects kept', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'har@example.com' } });
    const res = await fetch(`${sb.baseUrl}/_sandbox/requests/export?format=har`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('sandbox-requests.har');
    const text = await res.text();
    expect(text).not.toContain(token);
    const har = JSON.parse(text);
    const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
    const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(HAR_1_2_SCHEMA);
    expect(validate(har), JSON.stringify(validate.errors)).toBe(true);
    const entries = har.log.entries;
    const times = entries.map((e: { startedDateTime: string }) => Date.parse(e.startedDateTime));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const mine = entries.find((e: { _requestId: string }) => e._requestId === idOf(r));
    expect(mine.request.postData.text).toContain('har@example.com');
    expect(mine.request.headers).toContainEqual({ name: 'authorization', value: 'Bearer ***' });
    expect(mine.response.status).toBe(201);
    expect(mine._effects.records[0]).toMatchObject({ type: 'contact', action: 'created' });
  });

  it('NDJSON: one logged request per line, the filters of the list apply', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'nd@example.com' } });
    const res = await fetch(`${sb.baseUrl}/_sandbox/requests/export?format=ndjson&search=nd%40example.com`);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).request_id)).toEqual([idOf(r)]);
    const bad = await http(sb.baseUrl, 'GET', '/_sandbox/requests/export?format=xml');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('format');
  });
});
