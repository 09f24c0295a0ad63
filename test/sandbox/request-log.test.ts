/**
 * The request log (GET /_sandbox/requests, its stream, one request by id) and the deprecations
 * seen (GET /_sandbox/deprecations), over real HTTP against a sandbox on port 0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/sandbox/request-log/ring.js';
import { http, type TestSandbox, tokenRequest, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let tokenId: string;

// biome-ignore lint/suspicious/noExplicitAny: admin answers are loosely typed records
const admin = async (path: string): Promise<any> => {
  const r = await http(sb.baseUrl, 'GET', `/_sandbox${path}`);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};

useSandbox((s) => ({ sb } = s));
beforeAll(async () => {
  const t = await sb.admin.createApiToken(['contacts_read', 'contacts_write']);
  token = t.token;
  tokenId = t.id;
});

describe('GET /_sandbox/requests', () => {
  it('logs a refused request with its credential by name, error, explanation and bodies, never the token', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'x', email: 'a@example.com' } });
    expect(r.status).toBe(403);
    const id = r.headers.get('x-request-id') as string;
    const page = await admin(`/requests?request_id=${id}`);
    expect(page.data).toHaveLength(1);
    const e = page.data[0];
    expect(e).toMatchObject({
      request_id: id,
      kind: 'service',
      business_id: 'biz_default',
      credential: { kind: 'api_token', id: tokenId, name: 'Test token' },
      method: 'POST',
      path: '/v1/events',
      status: 403,
      error: { code: 'insufficient_scope' },
    });
    expect(e.explanation.rule).toContain('events_write');
    expect(e.explanation.fix).toContain('events_write');
    // Refused before its body was read (the token is checked first): its size only.
    expect(e.request).toMatchObject({ body: null, bytes: 42 });
    expect(JSON.parse(e.response.body).error.code).toBe('insufficient_scope');
    expect(e.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(page)).not.toContain(token);
  });

  it('keeps the body of a request refused after reading it, and explains each field refused', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'not-an-email', color: 'red' } });
    expect(r.status).toBe(400);
    const e = await admin(`/requests/${r.headers.get('x-request-id')}`);
    expect(JSON.parse(e.request.body)).toEqual({ email: 'not-an-email', color: 'red' });
    expect(e.request.content_type).toBe('application/json');
    expect(e.explanation.fix).toMatch(/color: .*; email: |email: .*; color: /);
  });

  it('a missing or unknown bearer token is logged with its rule and what to change', async () => {
    const missing = await http(sb.baseUrl, 'GET', '/v1/contacts');
    const unknown = await http(sb.baseUrl, 'GET', '/v1/contacts', { token: 'sk_not-a-real-token-at-all-0000000000' });
    const a = await admin(`/requests/${missing.headers.get('x-request-id')}`);
    const b = await admin(`/requests/${unknown.headers.get('x-request-id')}`);
    expect(a.credential.kind).toBe('none');
    expect(a.explanation.rule).toMatch(/no Authorization header/);
    expect(b.credential).toEqual({ kind: 'unknown_token', id: null, name: null });
    expect(b.explanation.rule).toMatch(/expired.*revoked/);
    expect(JSON.stringify(b)).not.toContain('not-a-real-token');
  });

  it('masks the client secret and the access token of the token endpoint, and names the OAuth app', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const r = await tokenRequest(sb.baseUrl, {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: 'contacts_read',
    });
    expect(r.status).toBe(200);
    const accessToken = (r.body as { access_token: string }).access_token;
    const e = await admin(`/requests/${r.headers.get('x-request-id')}`);
    expect(e.kind).toBe('token');
    expect(e.credential).toEqual({ kind: 'oauth_app', id: app.client_id, name: 'Test app' });
    expect(e.request.body).toContain('client_secret=***');
    expect(JSON.parse(e.response.body).access_token).toBe('***');
    const all = JSON.stringify(await admin('/requests?limit=100&kind=all'));
    expect(all).not.toContain(app.client_secret);
    expect(all).not.toContain(accessToken);
    // The admin call that created the app shows its secret masked too.
    expect(all).toContain('"kind":"admin"');
  });

  it('filters by status class, exact status, path prefix, method and credential; admin calls only with kind=admin', async () => {
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'filter@example.com' } });
    const fourxx = await admin('/requests?status=4xx&limit=100');
    expect(fourxx.data.length).toBeGreaterThan(0);
    expect(fourxx.data.every((e: { status: number }) => e.status >= 400 && e.status < 500)).toBe(true);
    expect(fourxx.total).toBe(fourxx.data.length);
    const created = await admin('/requests?status=201&path=/v1/contacts&method=post');
    expect(created.data.map((e: { path: string }) => e.path)).toEqual(['/v1/contacts']);
    const mine = await admin(`/requests?credential=${tokenId}&limit=100`);
    expect(mine.data.every((e: { credential: { id: string } }) => e.credential.id === tokenId)).toBe(true);
    expect((await admin('/requests?limit=100')).data.some((e: { kind: string }) => e.kind === 'admin')).toBe(false);
    const adminOnly = await admin('/requests?kind=admin&limit=100');
    expect(adminOnly.data.length).toBeGreaterThan(0);
    expect(adminOnly.data.every((e: { path: string }) => e.path.startsWith('/_sandbox/'))).toBe(true);
  });

  it('pages newest first with a cursor, and refuses bad filters naming them', async () => {
    const first = await admin('/requests?limit=2&kind=all');
    expect(first.data).toHaveLength(2);
    expect(first.data[0].seq).toBeGreaterThan(first.data[1].seq);
    const second = await admin(`/requests?limit=2&kind=all&cursor=${first.next_cursor}`);
    expect(second.data[0].seq).toBeLessThan(first.data[1].seq);
    const bad = await http(sb.baseUrl, 'GET', '/_sandbox/requests?status=4yy&since=yesterday&color=red');
    expect(bad.status).toBe(400);
    const fields = (bad.body as { error: { details: { field: string }[] } }).error.details.map((d) => d.field);
    expect(fields.sort()).toEqual(['color', 'since', 'status']);
    const future = await admin('/requests?since=2999-01-01T00:00:00Z');
    expect(future.data).toEqual([]);
  });

  it('a request id not in the log answers 404 saying so', async () => {
    const r = await http(sb.baseUrl, 'GET', '/_sandbox/requests/req_nothing');
    expect(r.status).toBe(404);
    expect(r.text).toContain('not in the request log');
  });

  it('the stream sends each request answered after `after`, so nothing between a page and the stream is lost', async () => {
    const before = (await admin('/requests?limit=1')).latest_seq as number;
    const missed = await http(sb.baseUrl, 'GET', '/v1/contacts?limit=1', { token });
    const controller = new AbortController();
    const res = await fetch(`${sb.baseUrl}/_sandbox/requests/stream?after=${before}&status=2xx`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const later = http(sb.baseUrl, 'GET', '/v1/contacts?limit=2', { token });
    const ids = [missed.headers.get('x-request-id'), (await later).headers.get('x-request-id')];
    const deadline = Date.now() + 5000;
    while (!ids.every((id) => text.includes(id as string)) && Date.now() < deadline) {
      const { value } = await reader.read();
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    for (const id of ids) expect(text).toContain(id);
    expect(text).toMatch(/^id: \d+$/m);
  });
});

describe('GET /_sandbox/deprecations', () => {
  it('counts each deprecated or removed usage per credential, with first and last seen and an example request', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'dep@example.com' } });
    const id = (c.body as { id: string }).id;
    const u1 = await http(sb.baseUrl, 'POST', `/v1/contacts/${id}/unsubscribe`, { token });
    expect(u1.status).toBe(200);
    const u2 = await http(sb.baseUrl, 'POST', `/v1/contacts/${id}/unsubscribe`, { token, json: {} });
    await http(sb.baseUrl, 'GET', '/v1/contacts?email_permission=subscribed', { token });
    await http(sb.baseUrl, 'PATCH', `/v1/contacts/${id}`, { token, json: { email_consent: 'non_subscribed', phone_permission: 'x' } });
    const app = await sb.admin.createApp(['contacts_read']);
    await tokenRequest(sb.baseUrl, {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scopes: 'contacts_read',
    });
    const { data, total } = await admin('/deprecations');
    expect(total).toBe(data.length);
    const byCode = Object.fromEntries(data.map((d: { code: string }) => [d.code, d]));
    expect(Object.keys(byCode).sort()).toEqual([
      'email_permission_parameter',
      'non_subscribed_value',
      'phone_permission_field',
      'scopes_parameter',
      'unsubscribe_endpoint',
    ]);
    expect(byCode.unsubscribe_endpoint).toMatchObject({
      status: 'deprecated',
      count: 2,
      credential: { kind: 'api_token', id: tokenId },
      example_request_id: u2.headers.get('x-request-id'),
      business_id: 'biz_default',
    });
    expect(byCode.unsubscribe_endpoint.replacement).toContain('PATCH');
    expect(Date.parse(byCode.unsubscribe_endpoint.first_seen)).toBeLessThanOrEqual(Date.parse(byCode.unsubscribe_endpoint.last_seen));
    expect(byCode.scopes_parameter.credential).toEqual({ kind: 'oauth_app', id: app.client_id, name: 'Test app' });
    expect(byCode.non_subscribed_value.status).toBe('removed');
    const logged = await admin(`/requests/${u1.headers.get('x-request-id')}`);
    expect(logged.deprecations.map((d: { code: string }) => d.code)).toEqual(['unsubscribe_endpoint']);
  });
});

describe('the ring', () => {
  const entry = (bytes: number) => ({
    requestId: 'r',
    at: 0,
    kind: 'service' as const,
    businessId: null,
    credential: { kind: 'none' as const, id: null, name: null },
    method: 'GET',
    path: '/v1/contacts',
    query: '',
    status: 200,
    durationMs: 1,
    requestType: undefined,
    requestBody: Buffer.alloc(bytes),
    requestBytes: bytes,
    responseType: undefined,
    responseBody: '',
    responseBytes: 0,
    deprecations: [],
  });

  it('keeps at most N entries, the newest', () => {
    const log = new RequestLog(3, 1e9);
    for (let i = 0; i < 10; i++) log.add(entry(10));
    expect(log.size).toBe(3);
    expect(log.page({}, 10).data.map((e) => e.seq)).toEqual([10, 9, 8]);
  });

  it('keeps at most the byte budget, dropping the oldest first but always the newest', () => {
    const log = new RequestLog(100, 5000);
    for (let i = 0; i < 10; i++) log.add(entry(1000));
    expect(log.size).toBeLessThanOrEqual(4);
    expect(log.page({}, 100).data[0]?.seq).toBe(10);
    log.add(entry(100_000));
    expect(log.size).toBe(1);
  });
});

describe('with the request log off', () => {
  it('answers 404 on /_sandbox/requests naming --log-size 0', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    const off = await startSandbox({ logEntries: 0 });
    try {
      const r = await http(off.baseUrl, 'GET', '/_sandbox/requests');
      expect(r.status).toBe(404);
      expect(r.text).toContain('--log-size 0');
    } finally {
      await off.close();
    }
  });
});
