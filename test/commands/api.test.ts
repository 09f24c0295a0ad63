/**
 * svc api: raw authenticated requests against the real sandbox.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';

const fx = cliSuite({ reset: false, config: 'file' });

const svc = fx.svc;

describe('svc api', () => {
  it('POST with -F fields sends a typed JSON body and prints the answer', async () => {
    const r = await svc([
      'api',
      'POST',
      '/v1/contacts',
      '-F',
      'email=api1@example.com',
      '-F',
      'send_welcome_sms=false',
      '-F',
      'first_name=Api',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ email: 'api1@example.com', first_name: 'Api' });
    expect(body.id).toMatch(/^ct_/);
  });

  it('-f (raw field) sends strings where -F would type them, and goes to the query for GET', async () => {
    const r = await svc(['api', 'POST', '/v1/contacts', '-F', 'email=api3@example.com', '-f', 'first_name=123', '-f', 'last_name=true']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ first_name: '123', last_name: 'true' });
    const typed = await svc(['api', 'POST', '/v1/contacts', '-F', 'email=api4@example.com', '-F', 'first_name=123']);
    expect(typed.code).toBe(1);
    const q = await svc(['api', 'GET', '/v1/contacts', '-f', 'email=api3@example.com']);
    expect(JSON.parse(q.stdout).data.map((c: { email: string }) => c.email)).toEqual(['api3@example.com']);
  });

  it('GET with -F fields sends a query string', async () => {
    const r = await svc(['api', 'GET', '/v1/contacts', '-F', 'email=api1@example.com', '-F', 'limit=5']);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.data).toHaveLength(1);
    expect(body.data[0].email).toBe('api1@example.com');
  });

  it('--input reads the body from a file or stdin; -i prints status and headers', async () => {
    const file = join(fx.tmp.dir, 'body.json');
    writeFileSync(file, JSON.stringify({ email: 'api2@example.com' }));
    const fromFile = await svc(['api', 'POST', '/v1/contacts', '--input', file, '-i']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toMatch(/^HTTP\/1\.1 201\n/);
    expect(fromFile.stdout).toMatch(/\nx-request-id: \S+\n/);
    const fromStdin = await svc(['api', 'POST', '/v1/events', '--input', '-'], {
      stdin: JSON.stringify({ event_type: 'ping', email: 'api2@example.com' }),
    });
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ status: 'accepted' });
  });

  it('prints the error body and exits 1 on 4xx; 3 on 401', async () => {
    const nf = await svc(['api', 'GET', '/v1/contacts/ct_missing']);
    expect(nf.code).toBe(1);
    expect(JSON.parse(nf.stdout).error.code).toBe('not_found');
    expect(nf.stderr).toMatch(/^error: .*HTTP 404 \(GET \/v1\/contacts\/ct_missing\), request id \S+\n$/);
    // --json: the body still on stdout, the error JSON of the contract on stderr (and nothing else).
    const nfJson = await svc(['api', 'GET', '/v1/contacts/ct_missing', '--json']);
    expect(nfJson.code).toBe(1);
    expect(JSON.parse(nfJson.stdout).error.code).toBe('not_found');
    const err = JSON.parse(nfJson.stderr).error;
    expect(err).toMatchObject({ code: 'not_found', status: 404 });
    expect(err.request_id).toMatch(/\S/);
    const bad = await svc(['api', 'GET', '/v1/contacts'], { env: { SVC_TOKEN: 'revoked-or-wrong' } });
    expect(bad.code).toBe(3);
    expect(bad.stdout + bad.stderr).not.toContain('revoked-or-wrong');
  });

  it('rejects a bad method or an absolute URL before sending (exit 2); a path without its slash is taken as gh does', async () => {
    expect((await svc(['api', 'FETCH', '/v1/contacts'])).code).toBe(2);
    expect((await svc(['api', 'GET', 'https://elsewhere.example.com/v1/contacts'])).code).toBe(2);
    const bare = await svc(['api', 'GET', 'v1/contacts?limit=1']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout).data).toHaveLength(1);
  });

  it('the deprecated unsubscribe warns once, naming the successor', async () => {
    const created = JSON.parse((await svc(['api', 'POST', '/v1/contacts', '-F', 'email=dep@example.com'])).stdout);
    const r = await svc(['api', 'POST', `/v1/contacts/${created.id}/unsubscribe`]);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('deprecated'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('PATCH /v1/contacts/{id}');
  });
});
