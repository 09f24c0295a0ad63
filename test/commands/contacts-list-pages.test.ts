/**
 * A listing that cannot be trusted stops loudly: `contacts list --all` and the pagination
 * iterator accept only the list shapes open-points names (`data`, `contacts`, a bare array); a
 * page that is none of them (`{}`, `{"data":null}`, a truncated body, a body that is not JSON) or
 * a next-page cursor seen before is an error (exit 1) saying the listing is incomplete, and what
 * was printed before stays printed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/client/client.js';
import { IncompleteListingError } from '../../src/client/errors.js';
import { type Cleanup, rawServer } from '../helpers/raw-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const contact = (id: string) => ({
  id,
  email: `${id}@example.com`,
  email_consent: 'subscribed',
  sms_consent: 'never_subscribed',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

/** A contacts service whose first page is good (next cursor c2) and whose second is `second` (raw body text). */
async function service(second: string, contentType = 'application/json') {
  const s = await rawServer(({ head }) => {
    const isSecond = head.includes('cursor=');
    const body = isSecond ? second : JSON.stringify({ data: [contact('ct_1'), contact('ct_2')], next_cursor: 'c2' });
    const type = isSecond ? contentType : 'application/json';
    return [`HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`];
  }, cleanups);
  return s;
}

function env(baseUrl: string) {
  const tmp = tempConfigDir();
  cleanups.push(tmp.cleanup);
  return { SVC_CONFIG_DIR: tmp.dir, SVC_BASE_URL: baseUrl, SVC_TOKEN: 'tok_list_pages' };
}

describe('contacts list --all against pages that are no list', () => {
  for (const [what, body, type] of [
    ['{}', '{}', 'application/json'],
    ['{"data":null}', '{"data":null}', 'application/json'],
    ['a truncated body', '{"data":[{"id":"ct_3","em', 'application/json'],
    ['a body that is not JSON', '<html>proxy error</html>', 'text/html'],
  ] as const) {
    it(`${what}: exit 1, the listing incomplete, the first page still printed`, async () => {
      const s = await service(body, type);
      const r = await runCli(['contacts', 'list', '--all', '--format', 'ndjson'], { env: env(s.origin) });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('ct_1');
      expect(r.stdout).toContain('ct_2');
      expect(r.stderr).toMatch(/error: the listing is incomplete: the service answered a page of contacts that is not a list/);
    });
  }

  it('the shapes open-points names are pages: `contacts` and a bare array', async () => {
    const s = await service(JSON.stringify([contact('ct_3')]));
    const r = await runCli(['contacts', 'list', '--all', '--json'], { env: env(s.origin) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((c: { id: string }) => c.id)).toEqual(['ct_1', 'ct_2', 'ct_3']);
    const s2 = await service(JSON.stringify({ contacts: [contact('ct_4')], next_cursor: null }));
    const r2 = await runCli(['contacts', 'list', '--all', '--json'], { env: env(s2.origin) });
    expect(JSON.parse(r2.stdout).map((c: { id: string }) => c.id)).toEqual(['ct_1', 'ct_2', 'ct_4']);
  });

  it('a cursor given twice: exit 1 at once instead of listing the same pages forever', async () => {
    const s = await rawServer(({ head }) => {
      const n = head.includes('cursor=') ? 'ct_b' : 'ct_a';
      const body = JSON.stringify({ data: [contact(n)], next_cursor: 'again' });
      return [`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`];
    }, cleanups);
    const r = await runCli(['contacts', 'list', '--all', '--format', 'ndjson'], { env: env(s.origin) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the listing is incomplete: the service gave the same next-page cursor twice');
    expect(r.stdout.match(/"id":"ct_b"/g)).toHaveLength(1);
    expect(s.requests()).toBe(2);
  });
});

describe('a next-page cursor svc does not understand', () => {
  /** 600 contacts: a first page of 500 whose next cursor is `cursor`, then 100 (never asked for when it stops). */
  async function listing(cursor: unknown) {
    const s = await rawServer(({ head }) => {
      const second = head.includes('cursor=');
      const ids = second ? Array.from({ length: 100 }, (_, i) => `ct_${501 + i}`) : Array.from({ length: 500 }, (_, i) => `ct_${i + 1}`);
      const body = JSON.stringify({ data: ids.map(contact), next_cursor: second ? null : cursor });
      return [`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`];
    }, cleanups);
    return s;
  }

  for (const [what, cursor, shown] of [
    ['a number', 500, 'a number (500)'],
    ['an object', { after: 'ct_500' }, 'an object ({"after":"ct_500"})'],
    ['a boolean', true, 'a boolean (true)'],
  ] as const) {
    it(`${what}: contacts list --all stops with exit 1 naming it, after the 500 listed`, async () => {
      const s = await listing(cursor);
      const r = await runCli(['contacts', 'list', '--all', '--format', 'ndjson'], { env: env(s.origin) });
      expect(r.code).toBe(1);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(500);
      expect(r.stderr).toContain(`error: the listing is incomplete: the next-page cursor next_cursor is ${shown}`);
      expect(r.stderr).toContain('after 500 contacts');
      expect(s.requests()).toBe(1);
    });
  }

  it('api --paginate: the same stop, exit 1, the array left open', async () => {
    const s = await listing(7);
    const r = await runCli(['api', 'GET', '/v1/contacts', '--paginate'], { env: env(s.origin) });
    expect(r.code).toBe(1);
    expect(r.stdout.startsWith('[')).toBe(true);
    expect(r.stdout.trimEnd().endsWith(']')).toBe(false);
    expect(r.stderr).toContain('the next-page cursor next_cursor is a number (7)');
  });

  it('what open-points allows still pages: a string cursor, null, an empty string, a URL in links.next', async () => {
    for (const cursor of ['c2', '/v1/contacts?cursor=c2']) {
      const s = await listing(cursor);
      const r = await runCli(['contacts', 'list', '--all', '--format', 'ndjson'], { env: env(s.origin) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(600);
    }
    for (const cursor of [null, '']) {
      const s = await listing(cursor);
      const r = await runCli(['contacts', 'list', '--all', '--format', 'ndjson'], { env: env(s.origin) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(500);
    }
  });
});

describe('the pagination iterator', () => {
  const client = (origin: string) => {
    const c = new ServiceClient({ baseUrl: origin, credentials: { kind: 'api_token', token: 't' }, logger: { debug() {}, warn() {} } });
    cleanups.push(() => c.close());
    return c;
  };

  it('yields the good pages, then fails on a page that is no list', async () => {
    const s = await service('{"data":null}');
    const pages: string[][] = [];
    const err = await (async () => {
      for await (const page of client(s.origin).paginateContacts({})) pages.push(page.map((c) => c.id));
    })().catch((e) => e);
    expect(pages).toEqual([['ct_1', 'ct_2']]);
    expect(err).toBeInstanceOf(IncompleteListingError);
    expect(err.code).toBe('invalid_page');
  });

  it('fails on a repeated cursor instead of ending quietly', async () => {
    const s = await rawServer(() => {
      const body = JSON.stringify({ data: [contact('ct_x')], next_cursor: 'loop' });
      return [`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`];
    }, cleanups);
    let pages = 0;
    const err = await (async () => {
      for await (const _ of client(s.origin).paginateContacts({})) pages++;
    })().catch((e) => e);
    expect(pages).toBe(2);
    expect(err).toBeInstanceOf(IncompleteListingError);
    expect(err.message).toMatch(/same next-page cursor twice .*after 2 contacts/);
  });
});
