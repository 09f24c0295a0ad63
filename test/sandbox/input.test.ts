/** open-points "General": media types, body size, invalid JSON, unknown fields, odd strings, request ids, 404s. */
import { describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

const contacts = async () => (await http(sb.baseUrl, 'GET', '/v1/contacts', { token })).body.data.length;
const raw = (path: string, body: string | Buffer, contentType?: string) =>
  http(sb.baseUrl, 'POST', path, { token, raw: body, headers: contentType ? { 'content-type': contentType } : {} });

describe('bad input is answered 4xx and stores nothing', () => {
  it('400 invalid_json for a body that is not JSON', async () => {
    for (const body of ['{', '{"email": }', "{'email': 'a@example.com'}", '{"email":"a@example.com"} x']) {
      const r = await raw('/v1/contacts', body, 'application/json');
      expect(r.status, body).toBe(400);
      expect(r.body.error.code).toBe('invalid_json');
    }
    expect(await contacts()).toBe(0);
  });

  it('400 invalid_json for bytes that are not UTF-8', async () => {
    const r = await raw('/v1/contacts', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'application/json');
    expect(r.body.error.code).toBe('invalid_json');
  });

  it('400 invalid_request for a JSON value that is not an object', async () => {
    for (const body of ['[]', '"x"', '42', 'null']) {
      const r = await raw('/v1/contacts', body, 'application/json');
      expect(r.status, body).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  it('400 invalid_request naming every unknown field in details', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'u@example.com', nick: 'x', age: 3 } });
    expect(r.status).toBe(400);
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual(['nick', 'age']);
    expect(await contacts()).toBe(0);
  });

  it('400 for wrong types', async () => {
    for (const json of [
      { email: 42 },
      { email: ['a@example.com'] },
      { phone: 14155550100 },
      { email: 'a@example.com', first_name: { x: 1 } },
    ]) {
      expect((await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json })).status).toBe(400);
    }
    expect(await contacts()).toBe(0);
  });

  it('413 payload_too_large above 1 MiB', async () => {
    const body = JSON.stringify({ email: 'big@example.com', first_name: 'x'.repeat(1024 * 1024) });
    const r = await raw('/v1/contacts', body, 'application/json');
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    expect(await contacts()).toBe(0);
  });

  it('415 unsupported_media_type for a non-JSON content type, including a form and no content type', async () => {
    const body = JSON.stringify({ email: 'ct@example.com' });
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined]) {
      // fetch labels a string body text/plain; a Buffer body goes without a content type.
      const r = await raw('/v1/contacts', ct === undefined ? Buffer.from(body) : body, ct);
      expect(r.status, String(ct)).toBe(415);
      expect(r.body.error.code).toBe('unsupported_media_type');
    }
    expect(await contacts()).toBe(0);
  });

  it('accepts application/json with a charset parameter', async () => {
    const r = await raw('/v1/contacts', JSON.stringify({ email: 'charset@example.com' }), 'application/json; charset=utf-8');
    expect(r.status).toBe(201);
    await http(sb.baseUrl, 'DELETE', `/v1/contacts/${r.body.id}`, { token });
  });

  it('400 for odd strings: lone surrogates, NUL characters, overlong names, deep nesting', async () => {
    const bodies = [
      '{"email":"s@example.com","first_name":"\\ud800"}',
      '{"email":"s@example.com","first_name":"a\\u0000b"}',
      '{"email":"s@example.com","\\udfff":"x"}',
      JSON.stringify({ email: 's@example.com', first_name: 'x'.repeat(256) }),
      `{"event_type":"x","email":"s@example.com","properties":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`,
    ];
    for (const body of bodies) {
      const path = body.includes('event_type') ? '/v1/events' : '/v1/contacts';
      const r = await raw(path, body, 'application/json');
      expect(r.status, body.slice(0, 60)).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
    expect(await contacts()).toBe(0);
  });

  it('keeps emoji and other valid Unicode intact', async () => {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'uni@example.com', first_name: 'Zoë 🚀 李' } });
    expect(r.status).toBe(201);
    expect(r.body.first_name).toBe('Zoë 🚀 李');
    await http(sb.baseUrl, 'DELETE', `/v1/contacts/${r.body.id}`, { token });
  });

  it('a __proto__ key is an unknown field, not a prototype change', async () => {
    const r = await raw('/v1/contacts', '{"email":"p@example.com","__proto__":{"email_consent":"subscribed"}}', 'application/json');
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].field).toBe('__proto__');
  });
});

describe('request ids and error bodies', () => {
  it('every response carries X-Request-Id; error bodies repeat it as error.request_id', async () => {
    const ok = await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
    expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
    const err = await http(sb.baseUrl, 'GET', '/v1/contacts');
    expect(err.body.error.request_id).toBe(err.headers.get('x-request-id'));
    const ids = new Set([ok.headers.get('x-request-id'), err.headers.get('x-request-id')]);
    expect(ids.size).toBe(2);
  });

  it('X-Request-Id also on 204, 404, 413, 415, invalid JSON, malformed paths, admin calls, the token endpoint and /openapi.json', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'rid@example.com' } });
    const answers = [
      await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token }),
      await http(sb.baseUrl, 'GET', '/nowhere', { token }),
      await raw('/v1/contacts', `{"email":"${'a'.repeat(1024 * 1024)}"}`, 'application/json'),
      await raw('/v1/contacts', 'email=x', 'text/plain'),
      await raw('/v1/contacts', '{nope', 'application/json'),
      await http(sb.baseUrl, 'GET', '/v1/contacts/%E0%A4%A', { token }),
      await http(sb.baseUrl, 'GET', '/_sandbox/outbox'),
      await http(sb.baseUrl, 'POST', '/oauth/token', {
        raw: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      await http(sb.baseUrl, 'GET', '/openapi.json'),
    ];
    expect(answers.map((a) => a.status)).toEqual([204, 404, 413, 415, 400, 400, 200, 400, 200]);
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const a of answers) if (a.status >= 400) expect(a.body.error.request_id).toBe(a.headers.get('x-request-id'));
  });

  it('404 not_found for an unknown route, in the service body', async () => {
    const r = await http(sb.baseUrl, 'GET', '/v2/contacts', { token });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'not_found', request_id: expect.stringMatching(/^req_/) });
  });

  it('GET /openapi.json needs no token', async () => {
    const r = await http(sb.baseUrl, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
  });
});
