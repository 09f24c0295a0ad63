/**
 * The admin API's reads for the dashboard (open-points "Admin API for the dashboard"), and the
 * live outbox as server-sent events. Registered inside the admin plugin: loopback clients only.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { FieldError } from '../../contract/errors.js';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import type { ServerDeps } from '../deps.js';
import {
  adminContactView,
  adminListContacts,
  adminListEvents,
  adminListOrders,
  eventTypesSeen,
  listApiTokens,
  listApps,
  listBusinesses,
  listIntegrations,
} from '../domain/admin-reads.js';
import { getContact } from '../domain/contacts.js';
import { type Domain, iso } from '../domain/context.js';
import { invalidRequest } from '../domain/errors.js';
import { listSideEffects, SIDE_EFFECT_TYPES } from '../domain/outbox.js';
import { type AdminRoute, adminListQuery, adminRouter, checkConsentValues, pageBody } from './admin-route.js';

/** How often a live stream looks for new side effects, and how often it sends a comment to keep proxies from timing out. */
const STREAM_POLL_MS = 150;
const STREAM_KEEPALIVE_MS = 15_000;

function businessOnly(query: unknown): string {
  return adminListQuery(query, []).business_id;
}

/** When a credential was last used (since the sandbox started), by which request, and where its requests are listed. */
function lastUseOf(deps: ServerDeps, id: string) {
  const use = deps.requestLog?.lastUse.get(id);
  return {
    last_used_at: use ? iso(use.at) : null,
    last_request_id: use?.requestId ?? null,
    requests: `/_sandbox/requests?credential=${encodeURIComponent(id)}`,
  };
}

/** The businesses, and the lists (and a contact) of the dashboard's pages. */
function registerRecordReads(route: AdminRoute, d: Domain): void {
  route('GET', '/businesses', () => ({ status: 200, body: { data: listBusinesses(d) } }));
  route('GET', '/contacts', (req) => {
    const q = adminListQuery(req.query, ['email_consent', 'sms_consent', 'q']);
    const { email_consent, sms_consent } = q.values;
    checkConsentValues(email_consent, sms_consent);
    const search = q.values.q?.trim();
    const page = adminListContacts(d, q.business_id, {
      email_consent,
      sms_consent,
      q: search === '' ? undefined : search,
      before: q.before,
      after: q.after,
      limit: q.limit,
    });
    return { status: 200, body: pageBody(page) };
  });
  route('GET', '/contacts/:id', (req) => {
    const biz = businessOnly(req.query);
    const id = (req.params as { id: string }).id;
    return { status: 200, body: { ...adminContactView(getContact(d, biz, id)), business_id: biz } };
  });
  route('GET', '/orders', (req) => {
    const q = adminListQuery(req.query, ['contact_id', 'q']);
    const search = q.values.q?.trim() || undefined;
    return {
      status: 200,
      body: pageBody(
        adminListOrders(d, q.business_id, { contact_id: q.values.contact_id, q: search, before: q.before, after: q.after, limit: q.limit }),
      ),
    };
  });
  route('GET', '/events', (req) => {
    const q = adminListQuery(req.query, ['event_type', 'q']);
    const search = q.values.q?.trim() || undefined;
    const page = adminListEvents(d, q.business_id, {
      event_type: q.values.event_type,
      q: search,
      before: q.before,
      after: q.after,
      limit: q.limit,
    });
    // The event types seen in the business, for the page's filter.
    return { status: 200, body: { ...pageBody(page), event_types: eventTypesSeen(d, q.business_id) } };
  });
}

/** API tokens and OAuth applications (each with its last use), Custom Integrations. */
function registerCredentialReads(route: AdminRoute, deps: ServerDeps): void {
  const d = deps.domain;
  route('GET', '/api-tokens', (req) => ({
    status: 200,
    body: { data: listApiTokens(d, businessOnly(req.query)).map((t) => ({ ...t, ...lastUseOf(deps, t.id) })) },
  }));
  route('GET', '/apps', (req) => ({
    status: 200,
    body: { data: listApps(d, businessOnly(req.query)).map((a) => ({ ...a, ...lastUseOf(deps, a.client_id) })) },
  }));
  route('GET', '/integrations', (req) => ({ status: 200, body: { data: listIntegrations(d, businessOnly(req.query)) } }));
}

/** The stream's filters (business_id, type) and its `after`, checked. */
function streamQuery(raw: Record<string, unknown>): { type: string | undefined; business_id: string; after: string | undefined } {
  const errors: FieldError[] = [];
  for (const k of Object.keys(raw))
    if (!['business_id', 'type', 'after'].includes(k)) errors.push({ field: k, message: 'is not a filter (business_id, type, after)' });
  if (raw.after !== undefined && !(typeof raw.after === 'string' && /^\d{1,15}$/.test(raw.after)))
    errors.push({ field: 'after', message: 'must be a sequence number (the last one the page shows)' });
  const type = raw.type;
  if (type !== undefined && !(typeof type === 'string' && (SIDE_EFFECT_TYPES as readonly string[]).includes(type)))
    errors.push({ field: 'type', message: `must be one of: ${SIDE_EFFECT_TYPES.join(', ')}` });
  if (raw.business_id !== undefined && typeof raw.business_id !== 'string')
    errors.push({ field: 'business_id', message: 'must be given once' });
  if (errors.length > 0) throw invalidRequest(errors);
  return {
    type: type as string | undefined,
    business_id: (raw.business_id as string | undefined) ?? DEFAULT_BUSINESS_ID,
    after: raw.after as string | undefined,
  };
}

const latestSeq = (d: Domain): number => d.db.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM outbox')?.seq ?? 0;

/**
 * Writes each new side effect to the stream every STREAM_POLL_MS, starting after `after`; a
 * comment now and then keeps proxies from closing a quiet stream. Returns the timer.
 */
function pollSideEffects(
  d: Domain,
  res: ServerResponse,
  filter: { type: string | undefined; business_id: string },
  after: number,
): ReturnType<typeof setInterval> {
  let sinceWrite = 0;
  return setInterval(() => {
    const fresh = listSideEffects(d, { ...filter, after });
    for (const e of fresh) res.write(`id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`);
    if (fresh.length > 0) {
      after = (fresh[fresh.length - 1] as { seq: number }).seq;
      sinceWrite = 0;
      return;
    }
    if (latestSeq(d) < after) {
      after = 0; // the sandbox was reset
      return;
    }
    sinceWrite += STREAM_POLL_MS;
    if (sinceWrite >= STREAM_KEEPALIVE_MS) {
      res.write(': keep-alive\n\n');
      sinceWrite = 0;
    }
  }, STREAM_POLL_MS);
}

/**
 * Each side effect as it is recorded, as in GET /outbox. Starts after the latest one (or after
 * Last-Event-ID when the browser reconnects); looks for new ones every STREAM_POLL_MS.
 */
function registerOutboxStream(app: FastifyInstance, d: Domain): void {
  app.get('/outbox/stream', (req, reply) => {
    const { after: given, ...filter } = streamQuery((req.query ?? {}) as Record<string, unknown>);
    const lastId = req.headers['last-event-id'];
    // After Last-Event-ID (a reconnect), else after `after` (the last side effect the page
    // showed: nothing recorded between its fetch and this stream is lost), else from now.
    const after =
      typeof lastId === 'string' && /^\d{1,15}$/.test(lastId) ? Number(lastId) : given !== undefined ? Number(given) : latestSeq(d);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': live\n\n');
    const timer = pollSideEffects(d, res, filter, after);
    res.on('close', () => clearInterval(timer));
  });
}

export function registerAdminReads(app: FastifyInstance, deps: ServerDeps): void {
  const route = adminRouter(app, deps);
  registerRecordReads(route, deps.domain);
  registerCredentialReads(route, deps);
  registerOutboxStream(app, deps.domain);
}
