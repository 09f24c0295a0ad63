/**
 * The request log and the deprecations seen, on the admin API: GET /requests (filters, cursor
 * paging, newest first), GET /requests/stream (server-sent events), GET /requests/{request_id},
 * GET /deprecations. Registered inside the admin plugin: loopback clients only.
 */
import type { FastifyInstance } from 'fastify';
import type { FieldError } from '../../contract/errors.js';
import { isRfc3339DateTime, rfc3339ToMs } from '../../contract/formats.js';
import type { ServerDeps } from '../deps.js';
import { invalidRequest, ServiceError } from '../domain/errors.js';
import { decodeCursor, encodeCursor } from '../list-query.js';
import { countMatching, holds, type LoggedRequest, matches, type RequestFilter } from '../request-log/ring.js';
import { type PersonLookup, viewOf } from '../request-log/view.js';
import { adminRouter, knownValues, pageLimit } from './admin-route.js';

const FILTERS = ['status', 'path', 'method', 'credential', 'request_id', 'since', 'kind', 'business_id', 'search', 'replay_of'];
const KINDS = ['api', 'service', 'token', 'admin', 'all'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const STREAM_KEEPALIVE_MS = 15_000;

/** The filters whose value is checked: each sets its part of the filter, or says what it must be. */
const CHECKED_FILTERS: [string, (v: string) => Partial<RequestFilter> | string][] = [
  [
    'status',
    (v) => {
      if (/^[1-5]xx$/i.test(v)) return { statusClass: Number(v[0]) };
      if (/^[1-5]\d\d$/.test(v)) return { status: Number(v) };
      return 'must be a status (401) or a class (4xx)';
    },
  ],
  ['path', (v) => (v.startsWith('/') ? { pathPrefix: v } : 'must start with / (a path prefix such as /v1/orders)')],
  ['method', (v) => (METHODS.includes(v.toUpperCase()) ? { method: v.toUpperCase() } : `must be one of ${METHODS.join(', ')}`)],
  ['since', (v) => (isRfc3339DateTime(v) ? { since: rfc3339ToMs(v) } : 'must be an RFC 3339 date-time such as 2026-11-26T09:30:00Z')],
  ['kind', (v) => (KINDS.includes(v) ? { kind: v as RequestFilter['kind'] } : `must be one of ${KINDS.join(', ')}`)],
];

/** The filters taken as they are. */
function plainFilters(values: Record<string, string>): RequestFilter {
  const { credential, request_id, business_id, search, replay_of } = values;
  const filter: RequestFilter = {};
  if (search !== undefined && search.trim() !== '') {
    filter.search = search.trim().toLowerCase();
    filter.searchable = searchable;
  }
  if (replay_of !== undefined) filter.replayOf = replay_of;
  if (credential !== undefined) filter.credential = credential;
  if (request_id !== undefined) filter.requestId = request_id;
  if (business_id !== undefined) filter.businessId = business_id;
  return filter;
}

/** The filters of a request-log query (and of its stream), checked; throws a 400 naming every bad one. */
export function requestFilter(query: unknown, extra: readonly string[]): { filter: RequestFilter; values: Record<string, string> } {
  const errors: FieldError[] = [];
  const values = knownValues(query, [...FILTERS, ...extra], 'the request log', errors);
  const filter = plainFilters(values);
  for (const [name, check] of CHECKED_FILTERS) {
    const value = values[name];
    if (value === undefined) continue;
    const part = check(value);
    if (typeof part === 'string') errors.push({ field: name, message: part });
    else Object.assign(filter, part);
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return { filter, values };
}

/** Search matches what the admin API shows (masked bodies): a secret is never found by its value. */
function searchable(e: LoggedRequest, needle: string): boolean {
  if (!holds(e, needle)) return false;
  const v = viewOf(e);
  const texts = [v.request_id, v.path, v.query ?? '', v.request.body ?? '', v.response.body ?? ''];
  if (texts.some((t) => t.toLowerCase().includes(needle))) return true;
  return v.effects.records.some(
    (r) => r.id.toLowerCase().includes(needle) || r.person?.email?.toLowerCase().includes(needle) || r.person?.phone?.includes(needle),
  );
}

/** The person of a contact, as the store has it now (for side effects the request's own records do not name). */
export function peopleOf(deps: ServerDeps): PersonLookup {
  return (businessId, contactId) => {
    const c = deps.domain.db.get<{ id: string; email: string | null; phone: string | null }>(
      'SELECT id, email, phone FROM contacts WHERE business_id = ? AND id = ?',
      businessId,
      contactId,
    );
    return c ? { contact_id: c.id, email: c.email, phone: c.phone } : null;
  };
}

export function disabled(): ServiceError {
  return new ServiceError(404, 'not_found', 'the request log is off in this sandbox (started with --log-size 0)');
}

export function registerRequestLog(app: FastifyInstance, deps: ServerDeps): void {
  const route = adminRouter(app, deps);
  route('GET', '/requests', (req) => {
    const log = deps.requestLog;
    if (!log) throw disabled();
    const { filter, values } = requestFilter(req.query, ['limit', 'cursor']);
    const errors: FieldError[] = [];
    const limit = values.limit === undefined ? 25 : pageLimit(values.limit, errors);
    let before: number | undefined;
    if (values.cursor !== undefined) {
      before = decodeCursor(values.cursor);
      if (before === undefined) errors.push({ field: 'cursor', message: 'is not a cursor this list issued; pass next_cursor unchanged' });
    }
    if (errors.length > 0) throw invalidRequest(errors);
    const page = log.page(filter, limit, before);
    const people = peopleOf(deps);
    return {
      status: 200,
      body: {
        data: page.data.map((e) => viewOf(e, people)),
        next_cursor: page.next === null ? null : encodeCursor(page.next),
        total: countMatching(log, filter),
        latest_seq: log.latest,
        capacity: { entries: log.maxEntries, bytes: log.maxBytes },
      },
    };
  });
  route('GET', '/requests/:request_id', (req) => {
    const log = deps.requestLog;
    if (!log) throw disabled();
    const id = (req.params as { request_id: string }).request_id;
    const e = log.byRequestId(id);
    if (!e)
      throw new ServiceError(404, 'not_found', `request ${id} is not in the request log (it keeps the last ${log.maxEntries} requests)`);
    return { status: 200, body: viewOf(e, peopleOf(deps)) };
  });
  route('GET', '/deprecations', (req) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(q).filter((k) => k !== 'business_id');
    if (unknown.length > 0) throw invalidRequest(unknown.map((k) => ({ field: k, message: 'is not a parameter (business_id)' })));
    if (q.business_id !== undefined && typeof q.business_id !== 'string')
      throw invalidRequest([{ field: 'business_id', message: 'must be given once' }]);
    const data = deps.deprecations?.list(q.business_id as string | undefined) ?? [];
    return { status: 200, body: { data, total: data.length } };
  });

  // Each logged request as it is answered. Starts after `after` (or Last-Event-ID when the
  // browser reconnects; else after the newest entry): a page that listed up to seq N opens the
  // stream with after=N and misses nothing answered in between.
  app.get('/requests/stream', (req, reply) => {
    const log = deps.requestLog;
    if (!log) throw disabled();
    const { filter, values } = requestFilter(req.query, ['after']);
    const lastId = req.headers['last-event-id'];
    const start = typeof lastId === 'string' && /^\d{1,15}$/.test(lastId) ? lastId : values.after;
    if (start !== undefined && !/^\d{1,15}$/.test(start))
      throw invalidRequest([{ field: 'after', message: 'must be a sequence number (latest_seq of a page)' }]);
    const after = start === undefined ? log.latest : Number(start);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': live\n\n');
    const people = peopleOf(deps);
    const send = (e: LoggedRequest) => res.write(`id: ${e.seq}\ndata: ${JSON.stringify(viewOf(e, people))}\n\n`);
    // An entry is announced when its answer's last byte is out: one caught up here may be
    // announced just after, and is not sent twice.
    const caughtUp = new Set<number>();
    for (const e of log.after(after, filter)) {
      caughtUp.add(e.seq);
      send(e);
    }
    const unsubscribe = log.subscribe((e) => {
      if (e.seq > after && !caughtUp.delete(e.seq) && matches(e, filter)) send(e);
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), STREAM_KEEPALIVE_MS);
    res.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
    });
  });
}
