import { describe, expect, it } from 'vitest';
import { deprecationNotice, extractList, extractNextCursor, linkNext, parseErrorBody, unwrapObject } from '../../src/client/response.js';

describe('parseErrorBody', () => {
  it('reads the service shape with id, request id, required scope and details', () => {
    const body = {
      error: {
        code: 'contact_exists',
        message: 'a contact with this email exists',
        id: 'ct_1',
        request_id: 'req_9',
        required_scope: 'contacts_write',
        details: [{ field: 'email', message: 'taken' }],
      },
    };
    expect(parseErrorBody(409, body, JSON.stringify(body), {})).toEqual({
      status: 409,
      code: 'contact_exists',
      message: 'a contact with this email exists',
      id: 'ct_1',
      requestId: 'req_9',
      requiredScope: 'contacts_write',
      details: [{ field: 'email', message: 'taken' }],
    });
  });

  it('reads the OAuth shape', () => {
    const body = { error: 'invalid_client', error_description: 'client authentication failed' };
    expect(parseErrorBody(401, body, '', { 'x-request-id': 'req_1' })).toMatchObject({
      status: 401,
      code: 'invalid_client',
      message: 'client authentication failed',
      requestId: 'req_1',
    });
  });

  it('uses the status as the code for bodies that are not JSON', () => {
    expect(parseErrorBody(502, 'Bad Gateway from nginx', 'Bad Gateway from nginx', {})).toMatchObject({
      code: '502',
      message: 'Bad Gateway from nginx',
    });
    expect(parseErrorBody(503, undefined, '<html><body>down</body></html>', {})).toMatchObject({
      code: '503',
      message: 'service unavailable',
    });
    expect(parseErrorBody(418, undefined, '', {})).toMatchObject({ code: '418', message: 'HTTP 418' });
  });
});

describe('list and object tolerance', () => {
  it('reads the array from data, contacts or a bare array', () => {
    expect(extractList({ data: [1, 2] })).toEqual([1, 2]);
    expect(extractList({ contacts: [3] })).toEqual([3]);
    expect(extractList([4])).toEqual([4]);
    expect(extractList({})).toBeUndefined();
    expect(extractList({ data: null })).toBeUndefined();
    expect(extractList({ items: [1] })).toBeUndefined();
    expect(extractList('{"data":[')).toBeUndefined();
  });

  it('finds the next cursor in every known place', () => {
    expect(extractNextCursor({ next_cursor: 'a' }, {})).toBe('a');
    expect(extractNextCursor({ next: 'b' }, {})).toBe('b');
    expect(extractNextCursor({ links: { next: 'https://x/v1/contacts?cursor=c' } }, {})).toBe('https://x/v1/contacts?cursor=c');
    expect(extractNextCursor({ meta: { next_cursor: 'd' } }, {})).toBe('d');
    expect(extractNextCursor({ paging: { cursors: { after: 'e' } } }, {})).toBe('e');
    expect(extractNextCursor({ data: [], next_cursor: null }, { link: '</v1/contacts?cursor=f>; rel="next"' })).toBe(
      '/v1/contacts?cursor=f',
    );
    expect(extractNextCursor({ data: [], next_cursor: null }, {})).toBeNull();
  });

  it('parses Link headers with several relations', () => {
    expect(linkNext('<https://a/1>; rel="prev", <https://a/3>; rel="next"')).toBe('https://a/3');
    expect(linkNext('<https://a/1>; rel="prev"')).toBeUndefined();
  });

  it('unwraps {data: {...}} but keeps bare objects', () => {
    expect(unwrapObject({ data: { id: 'ct_1' } })).toEqual({ id: 'ct_1' });
    expect(unwrapObject({ id: 'ct_1', email: 'a@b.c' })).toEqual({ id: 'ct_1', email: 'a@b.c' });
  });

  it('names the successor and sunset of a deprecated route', () => {
    expect(
      deprecationNotice({
        deprecation: 'true',
        link: '<http://x/v1/contacts/ct_1>; rel="successor-version"',
        sunset: 'Wed, 01 Jul 2027 00:00:00 GMT',
      }),
    ).toEqual({ successor: 'http://x/v1/contacts/ct_1', sunset: 'Wed, 01 Jul 2027 00:00:00 GMT' });
  });
});
