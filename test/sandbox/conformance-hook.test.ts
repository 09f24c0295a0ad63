/** The test-only hook that checks every sandbox answer against the served OpenAPI document catches what it should. */
import { describe, expect, it } from 'vitest';
import { answerProblem } from '../helpers/openapi-conformance.js';
import { http, withSandbox } from '../helpers/sandbox.js';

const answer = (method: string, url: string, status: number, body: string) => ({
  method,
  url,
  status,
  contentType: 'application/json; charset=utf-8',
  body,
});

describe('OpenAPI conformance hook', () => {
  it('passes documented answers and ignores what the document does not cover (admin, unknown routes)', () => {
    expect(answerProblem(answer('GET', '/v1/contacts?limit=1', 200, '{"data":[],"next_cursor":null}'))).toBeUndefined();
    expect(answerProblem(answer('GET', '/_sandbox/faults', 200, '{}'))).toBeUndefined();
    expect(answerProblem(answer('GET', '/nope', 404, '{}'))).toBeUndefined();
  });

  it('flags an undocumented status, a body off its schema, and a body where none is documented', () => {
    expect(answerProblem(answer('GET', '/v1/contacts', 418, '{}'))).toMatch(/does not list/);
    expect(answerProblem(answer('GET', '/v1/contacts', 200, '{"data":1}'))).toMatch(/off its schema/);
    expect(answerProblem(answer('GET', '/v1/contacts/ct_1', 401, '{"error":{"code":"x"}}'))).toMatch(/message/);
    expect(answerProblem(answer('DELETE', '/v1/contacts/ct_1', 204, '{}'))).toMatch(/does not describe/);
  });

  it('a sandbox that answered off its document fails on close', async () => {
    const sb = await withSandbox();
    await http(sb.baseUrl, 'GET', '/v1/contacts');
    expect(sb.offDocument).toEqual([]);
    sb.offDocument.push('GET /v1/contacts answered 418');
    await expect(sb.close()).rejects.toThrow(/outside its OpenAPI document/);
  });
});
