/** The contacts endpoints: list (one page, or every page lazily), get, create, patch, the legacy unsubscribe, delete. */
import type { Contact, ContactListFilter, ContactWrite } from '../contract/types.js';
import { contactIdMismatch, createdContactMismatch } from './answer-identity.js';
import { IncompleteListingError } from './errors.js';
import type { RequestPipeline } from './pipeline.js';
import { queryString } from './query.js';
import { describeNonList, extractList, extractNextCursor, isCursorUrl, unwrapObject } from './response.js';
import type { ApiResult, CallOptions, ContactPageResult } from './types.js';

/** A bodyless idempotent request (GET, DELETE) with the call's signal and callbacks; errors thrown. */
function sendIdempotent(pipeline: RequestPipeline, method: 'GET' | 'DELETE', path: string, route: string, opts?: CallOptions) {
  return pipeline.send({
    method,
    path,
    route,
    idempotency: 'idempotent',
    auth: true,
    throwOnError: true,
    signal: opts?.signal,
    patienceMs: opts?.patienceMs,
    onRetry: opts?.onRetry,
    onRateHeaders: opts?.onRateHeaders,
  });
}

export async function listContacts(
  pipeline: RequestPipeline,
  filter: ContactListFilter & { limit?: number; cursor?: string },
  opts?: CallOptions,
): Promise<ContactPageResult> {
  const path = pagePath(filter, pipeline);
  const page = await contactPage(pipeline, path, opts);
  try {
    return { data: page.data, nextCursor: page.nextCursor() };
  } catch (err) {
    if (!(err instanceof IncompleteListingError)) throw err;
    return { data: page.data, nextCursor: null, invalidCursor: err };
  }
}

/** One page of contacts; its next cursor read when asked (it may be one the client does not understand). */
async function contactPage(
  pipeline: RequestPipeline,
  path: string,
  opts?: CallOptions,
): Promise<{ data: Contact[]; nextCursor(): string | null }> {
  const res = await sendIdempotent(pipeline, 'GET', path, 'GET /v1/contacts', opts);
  const data = extractList<Contact>(res.body);
  if (data === undefined) {
    throw new IncompleteListingError(
      'invalid_page',
      `the listing is incomplete: the service answered a page of contacts that is not a list (expected "data", "contacts" or an array; got ${describeNonList(res.body)})`,
    );
  }
  return { data, nextCursor: () => extractNextCursor(res.body, res.headers) };
}

function pagePath(filter: ContactListFilter & { limit?: number; cursor?: string }, pipeline: RequestPipeline): string {
  const { cursor, limit, ...rest } = filter;
  if (cursor && isCursorUrl(cursor)) return pipeline.sameOriginPath(cursor);
  return `/v1/contacts${queryString({ ...rest, limit, cursor })}`;
}

/**
 * Remembers the next-page cursors of one listing: a cursor given twice would make it loop forever
 * (a service repeating its last page), so it is an error, not the end.
 */
export class CursorGuard {
  private readonly seen = new Set<string>();
  /** Throws IncompleteListingError when `cursor` was given before; `listed` counts what was listed so far. */
  check(cursor: string, listed: number): void {
    if (this.seen.has(cursor)) {
      throw new IncompleteListingError(
        'repeated_cursor',
        `the listing is incomplete: the service gave the same next-page cursor twice (it would repeat pages forever), after ${listed} contact${listed === 1 ? '' : 's'}`,
      );
    }
    this.seen.add(cursor);
  }

  /** Throws the page's cursor the client does not understand (with what was listed before it), if any. */
  checkPage(page: ContactPageResult, listed: number): void {
    const err = page.invalidCursor;
    if (err) throw new IncompleteListingError(err.code, `${err.message}, after ${listed} contact${listed === 1 ? '' : 's'}`);
  }
}

/**
 * Every page of a listing, one at a time; a page that is no list, a repeated cursor or one that is
 * not a string fails it (IncompleteListingError) after the pages before.
 */
export async function* paginateContacts(
  pipeline: RequestPipeline,
  filter: ContactListFilter,
  opts?: CallOptions & { pageSize?: number },
): AsyncIterable<Contact[]> {
  let cursor: string | undefined;
  const guard = new CursorGuard();
  let listed = 0;
  for (;;) {
    const page = await listContacts(pipeline, { ...filter, limit: opts?.pageSize, cursor }, opts);
    listed += page.data.length;
    // The page first: a cursor that cannot be followed fails the listing after what it holds.
    if (page.data.length > 0) yield page.data;
    guard.checkPage(page, listed);
    const next = page.nextCursor;
    if (!next) return;
    guard.check(next, listed);
    cursor = next;
  }
}

export async function getContact(pipeline: RequestPipeline, id: string, opts?: CallOptions): Promise<Contact> {
  const res = await sendIdempotent(pipeline, 'GET', `/v1/contacts/${encodeURIComponent(id)}`, 'GET /v1/contacts/{id}', opts);
  return unwrapObject<Contact>(res.body);
}

export function createContact(pipeline: RequestPipeline, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
  return pipeline.sendJson<Contact>('POST', '/v1/contacts', 'POST /v1/contacts', body, 'non_idempotent', opts, undefined, (answer) =>
    createdContactMismatch(body, answer.bytes, answer.body),
  );
}

export function patchContact(pipeline: RequestPipeline, id: string, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
  return pipeline.sendJson<Contact>(
    'PATCH',
    `/v1/contacts/${encodeURIComponent(id)}`,
    'PATCH /v1/contacts/{id}',
    body,
    'non_idempotent',
    opts,
    undefined,
    (answer) => contactIdMismatch(id, answer.body()),
  );
}

export function unsubscribeContactLegacy(pipeline: RequestPipeline, id: string, opts?: CallOptions): Promise<ApiResult<Contact>> {
  return pipeline.sendJson<Contact>(
    'POST',
    `/v1/contacts/${encodeURIComponent(id)}/unsubscribe`,
    'POST /v1/contacts/{id}/unsubscribe',
    {},
    'non_idempotent',
    opts,
    undefined,
    (answer) => contactIdMismatch(id, answer.body()),
  );
}

export async function deleteContact(pipeline: RequestPipeline, id: string, opts?: CallOptions): Promise<void> {
  // 200, 202 and 204 all mean done (open-points: client tolerance).
  await sendIdempotent(pipeline, 'DELETE', `/v1/contacts/${encodeURIComponent(id)}`, 'DELETE /v1/contacts/{id}', opts);
}
