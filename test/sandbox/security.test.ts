/**
 * The admin API and the dashboard against hostile web pages, without a browser: a rebound Host
 * (DNS rebinding), cross-site Origin and Sec-Fetch-Site (CSRF, bodyless POSTs included), framing
 * headers, the admin token; the service's own routes keep answering any Host.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { externalAddress } from '../helpers/sandbox.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request (node:http lets the Host header be anything, as a rebound name would make it). */
function raw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return rawAt('127.0.0.1', port, method, path, headers, body);
}

/** A raw request to one address of this machine. */
function rawAt(host: string, port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const code = (a: Answer) => (JSON.parse(a.body) as { error: { code: string; message: string } }).error;

let sb: RunningSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

async function contactsCount(s: RunningSandbox, token: string): Promise<number> {
  const res = await fetch(`${s.baseUrl}/v1/contacts`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: unknown[] }).data.length;
}

async function seeded(s: RunningSandbox): Promise<string> {
  const t = (await (
    await fetch(`${s.baseUrl}/_sandbox/api-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: [...SCOPES] }),
    })
  ).json()) as { token: string };
  const res = await fetch(`${s.baseUrl}/v1/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ada@example.com' }),
  });
  expect(res.status).toBe(201);
  return t.token;
}

describe('Host names (DNS rebinding)', () => {
  it('refuses the admin API and the dashboard under a name that is not loopback, naming --allowed-host', async () => {
    sb = await startSandbox();
    for (const path of ['/', '/dashboard/app.js', '/favicon.ico', '/_sandbox/businesses', '/_sandbox/outbox/stream']) {
      const a = await raw(sb.port, 'GET', path, { host: `evil.example:${sb.port}` });
      expect(a.status, path).toBe(403);
      expect(code(a).code).toBe('host_not_allowed');
      expect(code(a).message).toContain('--allowed-host evil.example');
    }
    const reset = await raw(sb.port, 'POST', '/_sandbox/reset', { host: 'evil.example' });
    expect(reset.status).toBe(403);
  });

  it('answers loopback names and addresses on any port', async () => {
    sb = await startSandbox();
    for (const host of [
      'localhost',
      `localhost:${sb.port}`,
      'app.localhost:3000',
      '127.0.0.1:9',
      '127.1.2.3',
      '[::1]:8080',
      'LOCALHOST.',
    ]) {
      const a = await raw(sb.port, 'GET', '/_sandbox/businesses', { host });
      expect(a.status, host).toBe(200);
    }
  });

  it('answers the names given with --allowed-host and the bound address', async () => {
    sb = await startSandbox({ allowedHosts: ['tunnel.example.net'] });
    expect((await raw(sb.port, 'GET', '/', { host: 'tunnel.example.net' })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/_sandbox/businesses', { host: 'Tunnel.Example.Net:443' })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/_sandbox/businesses', { host: 'other.example.net' })).status).toBe(403);
  });

  it('keeps /v1, /oauth/token and /openapi.json answering any Host (they have their own credentials)', async () => {
    sb = await startSandbox();
    const token = await seeded(sb);
    const host = 'evil.example';
    expect((await raw(sb.port, 'GET', '/openapi.json', { host })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/v1/contacts', { host, authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/v1/contacts', { host })).status).toBe(401);
    const form = 'grant_type=client_credentials&client_id=nope&client_secret=nope';
    const oauth = await raw(sb.port, 'POST', '/oauth/token', { host, 'content-type': 'application/x-www-form-urlencoded' }, form);
    expect(oauth.status).toBe(401);
  });
});

describe('cross-site requests (CSRF)', () => {
  it("refuses a bodyless POST /_sandbox/reset from another page's Origin, and the data stays", async () => {
    sb = await startSandbox();
    const token = await seeded(sb);
    for (const origin of ['http://evil.example', 'null', `http://localhost:${sb.port + 1}`, `http://evil.example:${sb.port}`]) {
      const res = await fetch(`${sb.baseUrl}/_sandbox/reset`, { method: 'POST', headers: { origin } });
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed');
    }
    const bySite = await fetch(`${sb.baseUrl}/_sandbox/reset`, { method: 'POST', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(bySite.status).toBe(403);
    expect(((await bySite.json()) as { error: { code: string } }).error.code).toBe('cross_site_refused');
    const secret = await fetch(`${sb.baseUrl}/_sandbox/api-tokens`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(secret.status).toBe(403);
    expect(await contactsCount(sb, token)).toBe(1);
  });

  it("accepts the sandbox's own Origin, and requests with neither header (curl, scripts)", async () => {
    sb = await startSandbox();
    const own = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
      method: 'PUT',
      headers: { origin: sb.baseUrl, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(own.status).toBe(200);
    const viaLocalhost = await raw(sb.port, 'POST', '/_sandbox/reset', {
      host: `localhost:${sb.port}`,
      origin: `http://localhost:${sb.port}`,
    });
    expect(viaLocalhost.status).toBe(200);
    // A local proxy forwarding its own port: the Origin matches the Host asked for.
    const proxied = await raw(sb.port, 'POST', '/_sandbox/reset', { host: 'localhost:3000', origin: 'http://localhost:3000' });
    expect(proxied.status).toBe(200);
    expect((await raw(sb.port, 'POST', '/_sandbox/reset')).status).toBe(200);
  });

  it('lets a page of another site open the dashboard (a link) but not call the admin API', async () => {
    sb = await startSandbox();
    expect((await raw(sb.port, 'GET', '/', { 'sec-fetch-site': 'cross-site' })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/_sandbox/businesses', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });
});

describe('framing and content security', () => {
  it('forbids framing everywhere and gives the dashboard a strict policy', async () => {
    sb = await startSandbox();
    for (const path of ['/', '/_sandbox/businesses', '/openapi.json', '/v1/contacts']) {
      const a = await raw(sb.port, 'GET', path);
      expect(a.headers['x-frame-options'], path).toBe('DENY');
      expect(a.headers['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
    const page = await raw(sb.port, 'GET', '/');
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'.*script-src 'self'/);
  });
});

describe('the admin token', () => {
  const adminToken = 'sbx_admin_test_0123456789abcdef';

  it('is required by the admin API and the dashboard when set', async () => {
    sb = await startSandbox({ adminToken });
    const without = await raw(sb.port, 'POST', '/_sandbox/reset');
    expect(without.status).toBe(401);
    expect(code(without).code).toBe('admin_token_required');
    expect((await raw(sb.port, 'POST', '/_sandbox/reset', { 'x-sandbox-admin-token': 'wrong-token-of-some-length' })).status).toBe(401);
    expect((await raw(sb.port, 'GET', '/dashboard/app.js')).status).toBe(401);
    expect((await raw(sb.port, 'POST', '/_sandbox/reset', { 'x-sandbox-admin-token': adminToken })).status).toBe(200);
    // The service itself does not need it.
    expect((await raw(sb.port, 'GET', '/openapi.json')).status).toBe(200);
  });

  it("exchanges the dashboard URL's token for a cookie that no script reads and no other site sends", async () => {
    sb = await startSandbox({ adminToken });
    expect((await raw(sb.port, 'GET', '/?admin_token=not-the-token')).status).toBe(401);
    const first = await raw(sb.port, 'GET', `/?admin_token=${adminToken}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(new RegExp(`^svc_sandbox_admin_${sb.port}=${adminToken}; Path=/; HttpOnly; SameSite=Strict`));
    const jar = cookie.split(';')[0] as string;
    expect((await raw(sb.port, 'GET', '/', { cookie: jar })).status).toBe(200);
    expect((await raw(sb.port, 'GET', '/_sandbox/businesses', { cookie: `other=1; ${jar}` })).status).toBe(200);
    // Even with the cookie, another page's request is refused.
    expect((await raw(sb.port, 'POST', '/_sandbox/reset', { cookie: jar, origin: 'http://evil.example' })).status).toBe(403);
  });
});

/** A raw request to another address of this machine (a client that is not on loopback, as another machine is). */
function rawTo(address: string, port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return rawAt(address, port, method, path, { host: `${address}:${port}`, ...headers });
}

describe('another machine', () => {
  it.skipIf(!externalAddress)('reaches the admin API and the dashboard of a wide bind only with the admin token', async () => {
    const address = externalAddress as string;
    const adminToken = 'sbx_admin_remote_0123456789abcdef';
    sb = await startSandbox({ port: 0, host: '0.0.0.0', adminToken });
    for (const path of ['/_sandbox/businesses', '/']) {
      const without = await rawTo(address, sb.port, 'GET', path);
      expect(without.status, path).toBe(401);
      expect(code(without).code).toBe('admin_token_required');
      expect((await rawTo(address, sb.port, 'GET', path, { 'x-sandbox-admin-token': adminToken })).status, path).toBe(200);
    }
    // A page of another site is refused even with the token's cookie (Origin), from there too.
    const first = await rawTo(address, sb.port, 'GET', `/?admin_token=${adminToken}`);
    const jar = String(first.headers['set-cookie']).split(';')[0] as string;
    const csrf = await rawTo(address, sb.port, 'POST', '/_sandbox/reset', { cookie: jar, origin: 'http://evil.example' });
    expect(csrf.status).toBe(403);
    // The service answers other machines with its own credentials, token or not.
    expect((await rawTo(address, sb.port, 'GET', '/openapi.json')).status).toBe(200);
  });
});
