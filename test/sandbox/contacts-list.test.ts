/** GET /v1/contacts: filters, cursor paging stable under inserts, Link rel=next, removed parameters. */
import { beforeAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
const ids: string[] = [];

useSandbox((s) => ({ sb, token } = s));
beforeAll(async () => {
  for (let i = 0; i < 7; i++) {
    const r = await http(sb.baseUrl, 'POST', '/v1/contacts', {
      token,
      json: { email: `list${i}@example.com`, phone: `+4420794600${10 + i}`, email_consent: i % 2 === 0 ? 'subscribed' : 'unsubscribed' },
    });
    ids.push(r.body.id);
  }
});

const list = (query: string) => http(sb.baseUrl, 'GET', `/v1/contacts${query}`, { token });

describe('GET /v1/contacts', () => {
  it('answers {data, next_cursor} in creation order, 50 by default', async () => {
    const r = await list('');
    expect(r.status).toBe(200);
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual(ids);
    expect(r.body.next_cursor).toBeNull();
    expect(r.headers.get('link')).toBeNull();
  });

  it('filters by email_consent', async () => {
    const r = await list('?email_consent=subscribed');
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[2], ids[4], ids[6]]);
  });

  it('filters by the read-only values compliance_suppressed and pending', async () => {
    await sb.admin.forceConsent(ids[1] as string, { email_consent: 'compliance_suppressed', sms_consent: 'pending' });
    expect((await list('?email_consent=compliance_suppressed')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
    expect((await list('?sms_consent=pending')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[1]]);
  });

  it('filters by email (case-insensitive exact), phone (exact) and updated_since', async () => {
    expect((await list('?email=LIST3%40example.com')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[3]]);
    expect((await list('?phone=%2B442079460015')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[5]]);
    expect((await list('?updated_since=2999-01-01T00:00:00Z')).body.data).toEqual([]);
    expect((await list('?updated_since=2000-01-01T00:00:00Z')).body.data.length).toBe(7);
  });

  it('400 for an unknown consent value, a bad limit, a bad cursor, a bad updated_since, an unknown parameter', async () => {
    for (const q of [
      '?email_consent=non_subscribed',
      '?sms_consent=x',
      '?limit=0',
      '?limit=251',
      '?limit=abc',
      '?cursor=zzz',
      '?updated_since=yesterday',
      '?sort=asc',
    ]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('invalid_request');
    }
  });

  it('400 for the removed email_permission and phone_permission, naming the replacement', async () => {
    const a = await list('?email_permission=subscribed');
    expect(a.status).toBe(400);
    expect(a.body.error.details).toEqual([{ field: 'email_permission', message: 'was removed; use email_consent instead' }]);
    const b = await list('?phone_permission=subscribed');
    expect(b.body.error.details[0].message).toContain('sms_consent');
  });

  it('400 when a parameter is repeated', async () => {
    expect((await list('?email_consent=subscribed&email_consent=unsubscribed')).status).toBe(400);
  });

  it('pages with limit and an opaque cursor, with Link rel="next"', async () => {
    const first = await list('?limit=3');
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 3));
    expect(first.body.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const link = first.headers.get('link');
    expect(link).toBe(`<${sb.baseUrl}/v1/contacts?limit=3&cursor=${first.body.next_cursor}>; rel="next"`);
    const nextUrl = (link as string).slice(1, (link as string).indexOf('>'));
    const second = await http(sb.baseUrl, 'GET', nextUrl.slice(sb.baseUrl.length), { token });
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual(ids.slice(3, 6));
  });

  it('keeps the filters in the Link of the next page', async () => {
    const r = await list('?email_consent=subscribed&limit=2');
    expect(r.headers.get('link')).toContain('email_consent=subscribed&limit=2&cursor=');
  });

  it('stable under inserts: walking the pages while contacts are added sees every original once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let k = 0;
    do {
      const r = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...r.body.data.map((c: { id: string }) => c.id));
      cursor = r.body.next_cursor;
      await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: `late${k++}@example.com` } });
    } while (cursor !== null && k < 50);
    expect(seen.slice(0, 7)).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('stable under deletes: deleting the last seen contact neither skips nor repeats', async () => {
    const first = await list('?limit=3');
    expect(first.body.data[2].id).toBe(ids[2]);
    expect((await http(sb.baseUrl, 'DELETE', `/v1/contacts/${ids[2]}`, { token })).status).toBe(204);
    const next = await list(`?limit=2&cursor=${first.body.next_cursor}`);
    expect(next.body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[4]]);
  });
});
