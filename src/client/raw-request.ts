/** A raw authenticated request (`svc api`): any method and path, every HTTP status resolved. */
import { stringifyJson } from '../contract/exact-json.js';
import { JSON_TYPE } from './headers.js';
import type { RequestPipeline } from './pipeline.js';
import { queryString } from './query.js';
import { isCursorUrl } from './response.js';
import type { Idempotency } from './retry.js';
import type { ApiResult, RawRequest } from './types.js';

/** Which retry policy a raw request gets: by method, and the order upsert by path. */
export function idempotencyOf(method: string, path: string): Idempotency {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD' || m === 'PUT' || m === 'DELETE' || m === 'OPTIONS') return 'idempotent';
  if (m === 'POST' && /^\/v1\/orders\/placed\/?(\?|$)/.test(path)) return 'idempotent';
  return 'non_idempotent';
}

export async function rawRequest(pipeline: RequestPipeline, req: RawRequest): Promise<ApiResult<unknown>> {
  const method = req.method.toUpperCase();
  let path = isCursorUrl(req.path) && !req.path.startsWith('/') ? pipeline.sameOriginPath(req.path) : req.path;
  if (!path.startsWith('/')) path = `/${path}`;
  if (req.query) {
    const q = queryString(req.query);
    if (q) path += path.includes('?') ? `&${q.slice(1)}` : q;
  }
  let body: string | Buffer | undefined;
  let contentType = req.contentType;
  if (req.rawBody !== undefined) body = req.rawBody;
  else if (req.body !== undefined) {
    body = stringifyJson(req.body);
    contentType ??= JSON_TYPE;
  }
  return pipeline.send({
    method,
    path,
    route: `${method} ${path.split('?')[0]}`,
    body,
    contentType,
    headers: req.headers,
    idempotency: idempotencyOf(method, path),
    auth: true,
    throwOnError: false,
    signal: req.signal,
  });
}
