/**
 * The client against the real sandbox over HTTP: typed methods, pagination, retries, renewal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Credentials } from '../../src/client/auth.js';
import { ServiceClient, type ServiceClientOptions } from '../../src/client/client.js';
import { ApiError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../../src/client/errors.js';
import type { RetryInfo } from '../../src/client/types.js';
import { SCOPES } from '../../src/contract/scopes.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
const clients: ServiceClient[] = [];

function makeClient(credentials: Credentials, extra: Partial<ServiceClientOptions> = {}) {
  const log = { debug: [] as string[], warn: [] as string[] };
  const client = new ServiceClient({
    baseUrl: sb.baseUrl,
    credentials,
    logger: { debug: (m) => log.debug.push(m), warn: (m) => log.warn.push(m) },
    debug: true,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...extra,
  });
  clients.push(client);
  return { client, log };
}

beforeAll(async () => {
  sb = await withSandbox();
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await sb.close();
});

describe('typed methods', () => {
  it('creates, reads, patches, lists, unsubscribes and deletes a contact; upserts an order; sends an event', async () => {
    const { client, log } = makeClient({ kind: 'api_token', token: await sb.tokenWithAllScopes() });
    const created = await client.createContact({ email: 'Ada@Example.com', first_name: 'Ada' });
    expect(created.status).toBe(201);
    expect(created.body.email).toBe('ada@example.com');
    expect(created.uncertain).toBe(false);
    expect(created.attempts).toBe(1);
    const id = created.body.id;
    expect((await client.getContact(id)).first_name).toBe('Ada');
    const patched = await client.patchContact(id, { last_name: 'Lovelace' });
    expect(patched.body.last_name).toBe('Lovelace');
    const conflict = await client.createContact({ email: 'ada@example.com' }).catch((e) => e);
    expect(conflict).toBeInstanceOf(ApiError);
    expect(conflict).toMatchObject({ status: 409, code: 'contact_exists', id });
    expect(conflict.requestId).toMatch(/\S/);

    const order = await client.upsertOrder({
      order_id: 'o-1',
      total: '10.50',
      currency: 'eur',
      order_date: '2026-11-01',
      email: 'ada@example.com',
    });
    expect(order.status).toBe(201);
    expect(
      (await client.upsertOrder({ order_id: 'o-1', total: '11.00', currency: 'EUR', order_date: '2026-11-01', email: 'ada@example.com' }))
        .status,
    ).toBe(200);

    const ev = await client.sendEvent({ event_type: 'signup', email: 'ada@example.com' });
    expect(ev.status).toBe(200);
    expect(ev.body.id).toMatch(/^ev_/);

    const legacy = await client.unsubscribeContactLegacy(id);
    expect(legacy.body.email_consent).toBe('unsubscribed');
    await client.unsubscribeContactLegacy(id);
    const deprecations = log.warn.filter((w) => w.includes('deprecated'));
    expect(deprecations).toHaveLength(1);
    expect(deprecations[0]).toContain('PATCH /v1/contacts/{id}');

    await client.deleteContact(id);
    expect(await client.getContact(id).catch((e) => e.status)).toBe(404);
    expect(
      log.debug.some((l) => /POST http:\/\/127\.0\.0\.1:\d+\/v1\/contacts → 201 in \d+ ms \(attempt 1, request id \S+\)/.test(l)),
    ).toBe(true);
  });

  it('walks every page with the cursor iterator', async () => {
    const { client } = makeClient({ kind: 'api_token', token: await sb.tokenWithAllScopes() });
    for (let i = 0; i < 7; i++) await client.createContact({ email: `page${i}@example.com` });
    const pages: number[] = [];
    const emails: string[] = [];
    for await (const page of client.paginateContacts({}, { pageSize: 3 })) {
      pages.push(page.length);
      emails.push(...page.map((c) => c.email ?? ''));
    }
    expect(pages.every((n) => n <= 3)).toBe(true);
    for (let i = 0; i < 7; i++) expect(emails).toContain(`page${i}@example.com`);
    expect(new Set(emails).size).toBe(emails.length);
  });

  it('raw request resolves for every status', async () => {
    const { client } = makeClient({ kind: 'api_token', token: await sb.tokenWithAllScopes() });
    const res = await client.request({ method: 'GET', path: '/v1/contacts/ct_nope' });
    expect(res.status).toBe(404);
    expect((res.body as { error: { code: string } }).error.code).toBe('not_found');
  });
});

describe('client credentials', () => {
  it('renews the token ahead of expiry mid-run (token TTL 2 s)', async () => {
    const short = await withSandbox({ tokenTtlSeconds: 2 });
    try {
      const app = await short.admin.createApp([...SCOPES]);
      const client = new ServiceClient({
        baseUrl: short.baseUrl,
        credentials: { kind: 'client_credentials', clientId: app.client_id, clientSecret: app.client_secret },
        logger: { debug() {}, warn() {} },
      });
      clients.push(client);
      const started = Date.now();
      let n = 0;
      while (Date.now() - started < 3000) {
        await client.createContact({ email: `ttl${n++}@example.com` });
        await new Promise((r) => setTimeout(r, 100));
      }
      const provider = client.tokens as unknown as { requests: number };
      expect(provider.requests).toBeGreaterThanOrEqual(2);
      expect(n).toBeGreaterThan(10);
    } finally {
      await short.close();
    }
  });

  it('renews once after a revocation and replays; concurrent requests share one renewal', async () => {
    const app = await sb.admin.createApp([...SCOPES]);
    const { client, log } = makeClient({ kind: 'client_credentials', clientId: app.client_id, clientSecret: app.client_secret });
    await client.listContacts({ limit: 1 });
    await sb.admin.revokeAppTokens(app.client_id);
    await Promise.all(Array.from({ length: 10 }, () => client.listContacts({ limit: 1 })));
    expect((client.tokens as unknown as { requests: number }).requests).toBe(2);
    expect(log.debug.filter((l) => l.includes('token renewed, replaying')).length).toBeGreaterThanOrEqual(1);
  });

  it('fails with invalid_client without retrying', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const { client, log } = makeClient({ kind: 'client_credentials', clientId: app.client_id, clientSecret: 'wrong-secret-value' });
    const err = await client.listContacts({}).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_client', isAuthError: true });
    expect(log.debug.filter((l) => l.includes('/oauth/token'))).toHaveLength(1);
  });

  it('sends a secret with HTTP Basic when asked', async () => {
    const app = await sb.admin.createApp(['contacts_read']);
    const { client, log } = makeClient({
      kind: 'client_credentials',
      clientId: app.client_id,
      clientSecret: app.client_secret,
      clientAuth: 'basic',
    });
    await client.listContacts({ limit: 1 });
    expect(log.debug.some((l) => l.includes('/oauth/token → 200'))).toBe(true);
  });

  it('warns about fewer scopes granted and ensureScope fails before any request', async () => {
    const biz = await sb.admin.createBusiness('No orders', ['contacts_read', 'contacts_write', 'events_write']);
    const app = await sb.admin.createApp([...SCOPES], biz.id);
    const { client, log } = makeClient({
      kind: 'client_credentials',
      clientId: app.client_id,
      clientSecret: app.client_secret,
      scopes: ['contacts_read', 'orders_write'],
    });
    await client.ensureScope('listContacts');
    expect(log.warn.join('\n')).toContain('missing orders_write');
    const before = log.debug.length;
    const err = await client.ensureScope('upsertOrder').catch((e) => e);
    expect(err).toBeInstanceOf(MissingScopeError);
    expect(err.scope).toBe('orders_write');
    expect(log.debug.length).toBe(before);
  });
});

describe('retries against injected faults', () => {
  it('waits at least Retry-After on a 429, and reports it through onRetry', async () => {
    const local = await withSandbox();
    try {
      const { client } = makeClient({ kind: 'api_token', token: await local.tokenWithAllScopes() }, { baseUrl: local.baseUrl });
      await local.admin.setFaults({ rate_limit_rps: 1 });
      const retries: RetryInfo[] = [];
      await client.listContacts({ limit: 1 });
      const started = Date.now();
      await client.listContacts({ limit: 1 }, { onRetry: (i) => retries.push(i) });
      const waited = Date.now() - started;
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatchObject({ status: 429, serverDirected: true, attempt: 1 });
      expect(waited).toBeGreaterThanOrEqual(retries[0]!.delayMs);
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    } finally {
      await local.close();
    }
  });

  it('onRetry may shorten a backoff (a bulk run probing an outage), never a wait the service asked for', async () => {
    const local = await withSandbox();
    try {
      const token = await local.tokenWithAllScopes();
      // Backoff: three attempts 2 s apart, against a port nothing listens on any more.
      const gone = await withSandbox();
      const url = gone.baseUrl;
      await gone.close();
      const slow = makeClient(
        { kind: 'api_token', token },
        { baseUrl: url, random: () => 1, retry: { baseDelayMs: 2000, maxDelayMs: 2000, maxAttempts: 3 } },
      ).client;
      const waits: number[] = [];
      let started = Date.now();
      const err = await slow
        .listContacts(
          { limit: 1 },
          {
            onRetry: (i) => {
              waits.push(i.delayMs);
              i.delayMs = 10;
            },
          },
        )
        .catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(waits).toEqual([2000, 2000]);
      expect(Date.now() - started).toBeLessThan(1500);
      // Server-directed: Retry-After of a one-per-second limit is waited in full.
      const { client } = makeClient({ kind: 'api_token', token }, { baseUrl: local.baseUrl });
      await local.admin.setFaults({ rate_limit_rps: 1 });
      await client.listContacts({ limit: 1 });
      started = Date.now();
      const asked: number[] = [];
      await client.listContacts(
        { limit: 1 },
        {
          onRetry: (i) => {
            asked.push(i.delayMs);
            i.delayMs = 0;
          },
        },
      );
      expect(asked).toHaveLength(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual((asked[0] as number) - 5);
    } finally {
      await local.close();
    }
  });

  it('fails with RetryWaitTooLongError when Retry-After exceeds the maximum', async () => {
    const local = await withSandbox();
    try {
      const { client } = makeClient(
        { kind: 'api_token', token: await local.tokenWithAllScopes() },
        { baseUrl: local.baseUrl, maxRetryWaitMs: 100 },
      );
      await local.admin.setFaults({ rate_limit_rps: 1 });
      await client.listContacts({ limit: 1 });
      expect(await client.listContacts({ limit: 1 }).catch((e) => e)).toBeInstanceOf(RetryWaitTooLongError);
    } finally {
      await local.close();
    }
  });

  it('retries 500s and destroyed connections for idempotent calls; a contact create is not retried after them', async () => {
    const local = await withSandbox();
    try {
      const { client } = makeClient(
        { kind: 'api_token', token: await local.tokenWithAllScopes() },
        { baseUrl: local.baseUrl, retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 20 } },
      );
      await local.admin.setFaults({ error_rate: 0.3, reset_rate: 0.3 });
      let retried = 0;
      let uncertain = 0;
      for (let i = 0; i < 30; i++) {
        const r = await client.upsertOrder(
          { order_id: `f-${i}`, total: 1, currency: 'USD', order_date: '2026-01-01', email: `f${i}@example.com` },
          { onRetry: () => retried++ },
        );
        expect([200, 201]).toContain(r.status);
        if (r.uncertain) uncertain++;
      }
      expect(retried).toBeGreaterThan(5);
      expect(uncertain).toBeGreaterThan(0);

      let failures = 0;
      let creates = 0;
      for (let i = 0; i < 30; i++) {
        const retries: RetryInfo[] = [];
        try {
          await client.createContact({ email: `c${i}@example.com` }, { onRetry: (info) => retries.push(info) });
          creates++;
        } catch (e) {
          failures++;
          if (e instanceof ApiError) expect(e).toMatchObject({ status: 500, uncertain: true });
          else {
            expect(e).toBeInstanceOf(NetworkError);
            expect(e).toMatchObject({ kind: 'reset', sent: true });
          }
        }
        expect(retries).toHaveLength(0);
      }
      expect(failures).toBeGreaterThan(3);
      expect(creates).toBeGreaterThan(3);
    } finally {
      await local.close();
    }
  });

  it('retries a contact create after 503 (not processed)', async () => {
    const local = await withSandbox();
    try {
      const { client } = makeClient(
        { kind: 'api_token', token: await local.tokenWithAllScopes() },
        { baseUrl: local.baseUrl, retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 30 } },
      );
      // Every request answers 503 until the first retry is announced; then the faults are
      // cleared, so the retry (after the service's Retry-After) is processed. Deterministic.
      await local.admin.setFaults({ unavailable_rate: 1 });
      let retried = 0;
      let cleared: Promise<void> | undefined;
      const r = await client.createContact(
        { email: 'u503@example.com' },
        {
          onRetry: (info) => {
            retried++;
            expect(info.status).toBe(503);
            cleared ??= local.admin.setFaults({});
          },
        },
      );
      await cleared;
      expect(r.status).toBe(201);
      expect(r.uncertain).toBe(false);
      expect(r.attempts).toBe(2);
      expect(retried).toBeGreaterThan(0);
    } finally {
      await local.close();
    }
  });

  it('a refused connection is retried, then reported as not sent', async () => {
    const { client } = makeClient(
      { kind: 'api_token', token: 'tok-unused' },
      { baseUrl: 'http://127.0.0.1:9', retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 } },
    );
    const err = await client.createContact({ email: 'x@example.com' }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ kind: 'refused', sent: false, attempts: 3 });
  });
});

describe('abort and lazy answers', () => {
  it('one abort signal shared by many requests in flight rejects them all at once, and leaves the signal reusable until then', async () => {
    const { client } = makeClient({ kind: 'api_token', token: await sb.tokenWithAllScopes() });
    const controller = new AbortController();
    const order = (i: number) => ({
      order_id: `ab-${i}`,
      total: '1.00',
      currency: 'EUR',
      order_date: '2026-11-01',
      email: 'ab@example.com',
    });
    // The same signal first serves requests that finish normally.
    const first = await Promise.all([1, 2, 3].map((i) => client.upsertOrder(order(i), { signal: controller.signal })));
    expect(first.map((r) => r.status)).toEqual([201, 201, 201]);
    await sb.admin.setFaults({ latency_ms: 2000 });
    try {
      const started = Date.now();
      const pending = Array.from({ length: 20 }, (_, i) =>
        client.upsertOrder(order(100 + i), { signal: controller.signal }).catch((e) => e),
      );
      setTimeout(() => controller.abort(new Error('stop now')), 50);
      const results = await Promise.all(pending);
      expect(Date.now() - started).toBeLessThan(1500);
      for (const r of results) expect(r).toMatchObject({ message: 'stop now' });
      // Already aborted: refused without a request.
      await expect(client.upsertOrder(order(200), { signal: controller.signal })).rejects.toThrow('stop now');
    } finally {
      await sb.admin.setFaults({});
    }
  });

  it('a result reads its body, headers and request id on demand, and serialises them', async () => {
    const { client } = makeClient({ kind: 'api_token', token: await sb.tokenWithAllScopes() });
    const res = await client.upsertOrder({
      order_id: 'lazy-1',
      total: '2.50',
      currency: 'EUR',
      order_date: '2026-11-01',
      email: 'lazy@example.com',
    });
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.requestId).toBe(res.headers['x-request-id']);
    expect(res.body).toMatchObject({ order_id: 'lazy-1', total: '2.50' });
    expect(res.body).toBe(res.body);
    // Nothing internal shows through a spread (raw headers, bytes, caches).
    expect(Object.keys({ ...res }).sort()).toEqual(['attempts', 'status', 'uncertain']);
    const plain = JSON.parse(JSON.stringify(res));
    expect(plain).toMatchObject({ status: 201, attempts: 1, uncertain: false, requestId: res.requestId, body: { order_id: 'lazy-1' } });
  });
});
