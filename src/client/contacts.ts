/** The contacts endpoints: list (one page, or every page lazily), get, create, patch, the legacy unsubscribe, delete. */
import type { Contact, ContactListFilter, ContactWrite } from '../contract/types.js';
import type { RequestPipeline } from './pipeline.js';
import { queryString } from './query.js';
import { extractList, extractNextCursor, isCursorUrl, unwrapObject } from './response.js';
import type { ApiResult, CallOptions, ContactPageResult } from './types.js';

export async function listContacts(
  pipeline: RequestPipeline,
  filter: ContactListFilter & { limit?: number; cursor?: string },
  opts?: CallOptions,
): Promise<ContactPageResult> {
  const { cursor, limit, ...rest } = filter;
  let path: string;
  if (cursor && isCursorUrl(cursor)) path = pipeline.sameOriginPath(cursor);
  else path = `/v1/contacts${queryString({ ...rest, limit, cursor })}`;
  const res = await pipeline.send({
    method: 'GET',
    path,
    route: 'GET /v1/contacts',
    idempotency: 'idempotent',
    auth: true,
    throwOnError: true,
    signal: opts?.signal,
    onRetry: opts?.onRetry,
    onRateHeaders: opts?.onRateHeaders,
  });
  return { data: extractList<Contact>(res.body), nextCursor: extractNextCursor(res.body, res.headers) };
}

/** Every page of a listing, one at a time; stops at a repeated cursor (a service looping on its last page). */
export async function* paginateContacts(
  pipeline: RequestPipeline,
  filter: ContactListFilter,
  opts?: CallOptions & { pageSize?: number },
): AsyncIterable<Contact[]> {
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (;;) {
    const page = await listContacts(pipeline, { ...filter, limit: opts?.pageSize, cursor }, opts);
    if (page.data.length > 0) yield page.data;
    if (!page.nextCursor || seen.has(page.nextCursor)) return;
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

export async function getContact(pipeline: RequestPipeline, id: string, opts?: CallOptions): Promise<Contact> {
  const res = await pipeline.send({
    method: 'GET',
    path: `/v1/contacts/${encodeURIComponent(id)}`,
    route: 'GET /v1/contacts/{id}',
    idempotency: 'idempotent',
    auth: true,
    throwOnError: true,
    signal: opts?.signal,
    onRetry: opts?.onRetry,
    onRateHeaders: opts?.onRateHeaders,
  });
  return unwrapObject<Contact>(res.body);
}

export function createContact(pipeline: RequestPipeline, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
  return pipeline.sendJson<Contact>('POST', '/v1/contacts', 'POST /v1/contacts', body, 'non_idempotent', opts);
}

export function patchContact(pipeline: RequestPipeline, id: string, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
  return pipeline.sendJson<Contact>(
    'PATCH',
    `/v1/contacts/${encodeURIComponent(id)}`,
    'PATCH /v1/contacts/{id}',
    body,
    'non_idempotent',
    opts,
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
  );
}

export async function deleteContact(pipeline: RequestPipeline, id: string, opts?: CallOptions): Promise<void> {
  // 200, 202 and 204 all mean done (open-points: client tolerance).
  await pipeline.send({
    method: 'DELETE',
    path: `/v1/contacts/${encodeURIComponent(id)}`,
    route: 'DELETE /v1/contacts/{id}',
    idempotency: 'idempotent',
    auth: true,
    throwOnError: true,
    signal: opts?.signal,
    onRetry: opts?.onRetry,
    onRateHeaders: opts?.onRateHeaders,
  });
}
