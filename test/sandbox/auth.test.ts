/** Spec "Authentication", "POST /oauth/token" and open-points "Authentication" / token endpoint table. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, tokenRequest, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let clock = Date.parse('2026-07-01T00:00:00Z');
beforeAll(async () => {
  sb = await withSandbox({ now: () => clock });
});
afterAll(() => sb.close());

const ALL = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'];

async function grant(form: Record<string, string>, headers?: Record<string, string>) {
  return tokenRequest(sb.baseUrl, { grant_type: 'client_credentials', ...form }, headers);
}

describe('POST /oauth/token', () => {
  it('200: answers access_token, token_type Bearer, expires_in 7200, scope, created_at in Unix seconds', async () => {
    const app = await sb.admin.createApp(['contacts_read', 'orders_write']);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scope: 'contacts_read orders_write' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
      scope: 'contacts_read orders_write',
      created_at: Math.floor(clock / 1000),
    });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('scope absent: the token gets every scope enabled on the application', async () => {
    const app = await sb.admin.createApp(['contacts_read', 'events_write']);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    expect(r.body.scope).toBe('contacts_read events_write');
  });

  it('an application has no scopes until selected: its token grants none', async () => {
    const app = await sb.admin.createApp([]);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe('');
    const list = await http(sb.baseUrl, 'GET', '/v1/contacts', { token: r.body.access_token });
    expect(list.status).toBe(403);
  });

  it('an empty scope counts as absent', async () => {
    const app = await sb.admin.createApp(['contacts_read', 'events_write']);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scope: ' ' });
    expect(r.body.scope).toBe('contacts_read events_write');
  });

  it('the parameter `scopes` is a synonym of `scope`', async () => {
    const app = await sb.admin.createApp(ALL);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scopes: 'events_write' });
    expect(r.body.scope).toBe('events_write');
  });

  it('`scope` wins when both `scope` and `scopes` are sent', async () => {
    const app = await sb.admin.createApp(ALL);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scope: 'contacts_read', scopes: 'events_write' });
    expect(r.body.scope).toBe('contacts_read');
  });

  it('client credentials by HTTP Basic are accepted', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const basic = Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64');
    const r = await tokenRequest(sb.baseUrl, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe('contacts_read');
  });

  it('HTTP Basic: id and secret are form-urlencoded before base64 (RFC 6749 §2.3.1), so percent-escapes are decoded', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const percentEscape = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const basic = Buffer.from(`${percentEscape(app.client_id)}:${percentEscape(app.client_secret)}`).toString('base64');
    const r = await tokenRequest(sb.baseUrl, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(r.status).toBe(200);
    const wrong = Buffer.from(`${percentEscape(app.client_id)}:${percentEscape(`${app.client_secret}x`)}`).toString('base64');
    const w = await tokenRequest(sb.baseUrl, { grant_type: 'client_credentials' }, { authorization: `Basic ${wrong}` });
    expect(w.status).toBe(401);
    expect(w.body.error.code).toBe('invalid_client');
  });

  for (const [what, scope, named] of [
    ['a requested scope is not enabled on the application', 'contacts_read orders_write', 'orders_write'],
    ['an unknown scope name', 'admin', undefined],
  ] as const) {
    it(`400 invalid_scope: ${what}`, async () => {
      const app = await sb.admin.createApp(['contacts_read']);
      const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scope });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_scope');
      if (named) expect(r.body.error.message).toContain(named);
    });
  }

  it('fewer scopes granted: a scope the business lacks is silently left out and `scope` shows it', async () => {
    const biz = await sb.admin.createBusiness('No orders plan', ['contacts_read', 'contacts_write', 'events_write']);
    const app = await sb.admin.createApp(ALL, biz.id);
    const r = await grant({ client_id: app.client_id, client_secret: app.client_secret, scope: 'contacts_read orders_write' });
    expect(r.status).toBe(200);
    expect(r.body.scope).toBe('contacts_read');
    const order = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token: r.body.access_token,
      json: { order_id: 'x', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'a@example.com' },
    });
    expect(order.status).toBe(403);
  });

  it('401 invalid_client: wrong secret', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const r = await grant({ client_id: app.client_id, client_secret: `${app.client_secret}x` });
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ code: 'invalid_client', request_id: r.headers.get('x-request-id') });
  });

  it('401 invalid_client: unknown client id, with a Basic challenge when Basic was used', async () => {
    const basic = Buffer.from('app_nope:secret').toString('base64');
    const r = await tokenRequest(sb.baseUrl, { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('invalid_client');
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('400 invalid_request: missing grant_type, client_id or client_secret', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    expect((await tokenRequest(sb.baseUrl, { client_id: app.client_id, client_secret: app.client_secret })).body.error.code).toBe(
      'invalid_request',
    );
    expect((await grant({ client_secret: app.client_secret })).body.error.code).toBe('invalid_request');
    expect((await grant({ client_id: app.client_id })).status).toBe(400);
  });

  it('400 unsupported_grant_type: a grant other than client_credentials', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const r = await tokenRequest(sb.baseUrl, { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('unsupported_grant_type');
  });

  it('400 invalid_request: a JSON body instead of a form', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const r = await http(sb.baseUrl, 'POST', '/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    const t = await http(sb.baseUrl, 'POST', '/oauth/token', { raw: 'x', headers: { 'content-type': 'text/plain' } });
    expect(t.status).toBe(400);
    expect(t.body.error.code).toBe('invalid_request');
  });

  it('a new token does not revoke older ones', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const a = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    const b = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    expect(a.body.access_token).not.toBe(b.body.access_token);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: a.body.access_token })).status).toBe(200);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: b.body.access_token })).status).toBe(200);
  });

  it('regenerating the secret: the new one works, the old one answers invalid_client', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const { client_secret } = await sb.admin.regenerateSecret(app.client_id);
    expect(client_secret).not.toBe(app.client_secret);
    expect((await grant({ client_id: app.client_id, client_secret: app.client_secret })).status).toBe(401);
    expect((await grant({ client_id: app.client_id, client_secret })).status).toBe(200);
  });
});

describe('bearer tokens on /v1', () => {
  it('401 unauthorized with WWW-Authenticate when the token is missing', async () => {
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('401 unauthorized when the token is malformed', async () => {
    for (const authorization of ['Bearer', 'Token abc', 'Bearer a b', 'Basic eDp5']) {
      const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { headers: { authorization } });
      expect(r.status, authorization).toBe(401);
      expect(r.body.error.code).toBe('unauthorized');
    }
  });

  it('401 unauthorized when the token is unknown', async () => {
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { token: 'sk_unknown' });
    expect(r.status).toBe(401);
  });

  it('401 unauthorized once an access token has expired (7200 s)', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const t = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    clock += 7199_000;
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token })).status).toBe(200);
    clock += 1_000;
    const r = await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it('401 unauthorized once the application tokens are revoked', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const t = await grant({ client_id: app.client_id, client_secret: app.client_secret });
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token })).status).toBe(200);
    await sb.admin.revokeAppTokens(app.client_id);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token })).status).toBe(401);
  });

  it('API tokens: default scope contacts_read only; revocable', async () => {
    const t = await sb.admin.createApiToken();
    expect(t.scopes).toEqual(['contacts_read']);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.token })).status).toBe(200);
    await sb.admin.revokeApiToken(t.id);
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t.token })).status).toBe(401);
  });

  it('403 insufficient_scope names the scope in error.required_scope and WWW-Authenticate', async () => {
    const t = await sb.admin.createApiToken(['contacts_read']);
    const r = await http(sb.baseUrl, 'POST', '/v1/events', { token: t.token, json: { event_type: 'x', email: 'a@example.com' } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'insufficient_scope', required_scope: 'events_write' });
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="events_write"');
  });

  it('each operation needs its scope: contacts_read, contacts_write, orders_write, events_write', async () => {
    const t = await sb.admin.createApiToken(['contacts_read']);
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/contacts', { email: 'scope@example.com' }, 'contacts_write'],
      ['PATCH', '/v1/contacts/ct_x', {}, 'contacts_write'],
      ['DELETE', '/v1/contacts/ct_x', undefined, 'contacts_write'],
      ['POST', '/v1/contacts/ct_x/unsubscribe', undefined, 'contacts_write'],
      ['POST', '/v1/orders/placed', {}, 'orders_write'],
      ['POST', '/v1/events', {}, 'events_write'],
    ];
    for (const [method, path, json, scope] of cases) {
      const r = await http(sb.baseUrl, method, path, { token: t.token, json });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.required_scope).toBe(scope);
    }
  });
});

describe('secrets at rest', () => {
  it('stores client secrets and tokens only as hashes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sb-'));
    const file = join(dir, 'sandbox.db');
    const local = await withSandbox({ db: file });
    try {
      const app = await local.admin.createApp(['contacts_read']);
      const api = await local.admin.createApiToken();
      const t = await tokenRequest(local.baseUrl, {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
      });
      await local.close();
      const bytes = readFileSync(file).toString('latin1');
      expect(bytes).toContain(app.client_id);
      for (const secret of [app.client_secret, api.token, t.body.access_token as string]) expect(bytes).not.toContain(secret);
    } finally {
      await local.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--token-ttl', () => {
  it('tokenTtlSeconds sets expires_in and the lifetime', async () => {
    let now = Date.parse('2026-07-01T00:00:00Z');
    const short = await withSandbox({ tokenTtlSeconds: 2, now: () => now });
    try {
      const app = await short.admin.createApp(['contacts_read']);
      const t = await tokenRequest(short.baseUrl, {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
      });
      expect(t.body.expires_in).toBe(2);
      expect((await http(short.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token })).status).toBe(200);
      now += 2000;
      expect((await http(short.baseUrl, 'GET', '/v1/contacts', { token: t.body.access_token })).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});
