/**
 * The admin API's OpenAPI document (GET /_sandbox/openapi.json): served apart from the service's,
 * a valid OpenAPI 3.1 document, and every admin answer of the tests is checked against it
 * (test/helpers/openapi-conformance.ts, through withSandbox).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminOpenApiDoc, answerProblem } from '../helpers/openapi-conformance.js';
import { http, type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await withSandbox();
});
afterAll(() => sb.close());

describe('GET /_sandbox/openapi.json', () => {
  it('serves the admin document, apart from the service document at /openapi.json', async () => {
    const admin = await http(sb.baseUrl, 'GET', '/_sandbox/openapi.json');
    expect(admin.status).toBe(200);
    const doc = admin.body as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc).toEqual(JSON.parse(JSON.stringify(adminOpenApiDoc)));
    for (const p of ['/_sandbox/requests', '/_sandbox/deprecations', '/_sandbox/flows', '/_sandbox/snapshots', '/_sandbox/faults'])
      expect(Object.keys(doc.paths)).toContain(p);
    const service = (await http(sb.baseUrl, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(service.paths).some((p) => p.startsWith('/_sandbox'))).toBe(false);
  });

  it('the answers of the request log, deprecations, flows and snapshots match it; an answer off it is caught', async () => {
    const token = await sb.tokenWithAllScopes();
    await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
    await http(sb.baseUrl, 'GET', '/v1/contacts');
    const calls: [string, string, unknown?][] = [
      ['GET', '/_sandbox/requests?limit=5'],
      ['GET', '/_sandbox/requests?status=4xx'],
      ['GET', '/_sandbox/requests?status=nope'],
      ['GET', '/_sandbox/deprecations'],
      ['GET', '/_sandbox/info'],
      ['GET', '/_sandbox/contact-labels?ids=ct_none,ct_other'],
      ['GET', '/_sandbox/contact-labels'],
      ['POST', '/_sandbox/flows', { event_type: 'x' }],
      ['GET', '/_sandbox/flows'],
      ['POST', '/_sandbox/snapshots', { name: 's1' }],
      ['GET', '/_sandbox/snapshots'],
      ['POST', '/_sandbox/snapshots/s1/restore'],
      ['DELETE', '/_sandbox/snapshots/s1'],
      ['DELETE', '/_sandbox/snapshots/s1'],
    ];
    for (const [method, path, json] of calls) {
      const r = await http(sb.baseUrl, method, path, { json });
      const problem = answerProblem({
        method,
        url: path,
        status: r.status,
        contentType: r.headers.get('content-type') ?? undefined,
        body: r.text,
      });
      expect(problem, `${method} ${path}`).toBeUndefined();
    }
    const first = ((await http(sb.baseUrl, 'GET', '/_sandbox/requests?limit=1')).body as { data: unknown[] }).data[0];
    const off = answerProblem({
      method: 'GET',
      url: '/_sandbox/requests',
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({
        data: [{ ...(first as object), secret: 'x' }],
        next_cursor: null,
        total: 1,
        latest_seq: 1,
        capacity: { entries: 1, bytes: 1 },
      }),
    });
    expect(off).toMatch(/off its schema/);
    expect(sb.offDocument).toEqual([]);
  });
});

describe('GET /_sandbox/contact-labels', () => {
  it("answers each known contact's e-mail, phone and name by id, and leaves out ids of no contact", async () => {
    const token = await sb.tokenWithAllScopes();
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: 'label@example.com', first_name: 'Ada', last_name: 'L' },
    });
    const id = (c.body as { id: string }).id;
    const r = await http(sb.baseUrl, 'GET', `/_sandbox/contact-labels?ids=${id},ct_none`);
    expect(r.body).toEqual({ data: { [id]: { email: 'label@example.com', phone: null, name: 'Ada L' } } });
  });
});
