/**
 * The admin API's read side, for the dashboard (open-points "Admin API for the dashboard"):
 * businesses, contacts, orders and events newest first and paged, and the credentials without
 * any secret. Plain functions over the database.
 */
import { type ContactRow, contactView } from './contacts.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { notFound } from './errors.js';
import { type OrderRow, orderView } from './orders.js';
import { sideEffectsOfEvent } from './outbox.js';

/** One page, newest first: `before` is the position to continue before, or null on the last page. */
export interface Page<T> {
  data: T[];
  next: number | null;
  /** How many rows match the filters (every page together). */
  total: number;
  /** The position of the newest row matching the filters (0: none): a live page asks for rows `after` it. */
  latest: number;
}

function page<R extends { pos: number }, T>(
  rows: R[],
  limit: number,
  view: (r: R) => T,
  counted: { total: number; latest: number | null },
): Page<T> {
  const kept = rows.slice(0, limit);
  return {
    data: kept.map(view),
    next: rows.length > limit ? (kept[kept.length - 1] as R).pos : null,
    total: counted.total,
    latest: counted.latest ?? 0,
  };
}

const split = (s: string): string[] => (s === '' ? [] : s.split(' '));

/** The request that made a row and the last one that changed it (null: made before the log kept them, or by the admin API). */
interface Made {
  request_id?: string | null;
  last_request_id?: string | null;
}

/** A contact as the admin API shows it: the service's view, plus the requests that made and last changed it. */
export function adminContactView(row: ContactRow & Made) {
  return { ...contactView(row), request_id: row.request_id ?? null, last_request_id: row.last_request_id ?? null };
}

/** An order as the admin API shows it: the service's view, its business, and the requests that made and last changed it. */
export function adminOrderView(row: OrderRow & Made) {
  return {
    ...orderView(row),
    business_id: row.business_id,
    request_id: row.request_id ?? null,
    last_request_id: row.last_request_id ?? null,
  };
}

export function listBusinesses(d: Domain) {
  return d.db
    .all<{ id: string; name: string; available_scopes: string }>(
      'SELECT id, name, available_scopes FROM businesses ORDER BY created_at, id',
    )
    .map((b) => ({ id: b.id, name: b.name, available_scopes: split(b.available_scopes) }));
}

export interface AdminContactQuery {
  email_consent?: string;
  sms_consent?: string;
  /** Part of the e-mail address or phone number. */
  q?: string;
  before?: number;
  /** Only rows newer than this position (a live page's last one). */
  after?: number;
  limit: number;
}

export function adminListContacts(d: Domain, businessId: string, q: AdminContactQuery) {
  const like = q.q === undefined ? null : `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const where = `business_id = @biz AND (@ec IS NULL OR email_consent = @ec) AND (@sc IS NULL OR sms_consent = @sc)
       AND (@like IS NULL OR email LIKE @like ESCAPE '\\' OR phone LIKE @like ESCAPE '\\')`;
  const params = { biz: businessId, ec: q.email_consent ?? null, sc: q.sms_consent ?? null, like };
  const rows = d.db.all<ContactRow & { pos: number }>(
    `SELECT *, seq AS pos FROM contacts WHERE ${where} AND (@before IS NULL OR seq < @before) AND seq > @after
     ORDER BY seq DESC LIMIT @limit`,
    { ...params, before: q.before ?? null, after: q.after ?? 0, limit: q.limit + 1 },
  );
  const counted = d.db.get<{ total: number; latest: number | null }>(
    `SELECT count(*) AS total, max(seq) AS latest FROM contacts WHERE ${where}`,
    params,
  );
  return page(rows, q.limit, adminContactView, counted ?? { total: 0, latest: 0 });
}

/** A LIKE pattern for part of a value (any case), or null. */
const part = (v: string | undefined) => (v === undefined ? null : `%${v.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);

export function adminListOrders(
  d: Domain,
  businessId: string,
  q: { contact_id?: string; q?: string; before?: number; after?: number; limit: number },
) {
  const where = `business_id = @biz AND (@contact IS NULL OR contact_id = @contact) AND (@like IS NULL OR lower(order_id) LIKE @like ESCAPE '\\')`;
  const params = { biz: businessId, contact: q.contact_id ?? null, like: part(q.q) };
  const rows = d.db.all<OrderRow & { pos: number }>(
    `SELECT *, seq AS pos FROM orders WHERE ${where} AND (@before IS NULL OR seq < @before) AND seq > @after ORDER BY seq DESC LIMIT @limit`,
    { ...params, before: q.before ?? null, after: q.after ?? 0, limit: q.limit + 1 },
  );
  const counted = d.db.get<{ total: number; latest: number | null }>(
    `SELECT count(*) AS total, max(seq) AS latest FROM orders WHERE ${where}`,
    params,
  );
  return page(rows, q.limit, adminOrderView, counted ?? { total: 0, latest: 0 });
}

interface EventRow {
  pos: number;
  id: string;
  event_type: string;
  contact_id: string;
  properties: string | null;
  occurred_at: string;
  client_event_id: string | null;
  received_at: number;
  request_id: string | null;
}

/** One event with its contact named by e-mail or phone and the side effects it caused (404 when unknown). */
export function adminShowEvent(d: Domain, businessId: string, id: string) {
  const r = d.db.get<EventRow>('SELECT rowid AS pos, * FROM events WHERE business_id = ? AND id = ?', businessId, id);
  if (!r) throw notFound(`event ${id} in ${businessId}`);
  const c = d.db.get<{ id: string; email: string | null; phone: string | null }>(
    'SELECT id, email, phone FROM contacts WHERE business_id = ? AND id = ?',
    businessId,
    r.contact_id,
  );
  return {
    id: r.id,
    business_id: businessId,
    event_type: r.event_type,
    contact_id: r.contact_id,
    person: c ? { contact_id: c.id, email: c.email, phone: c.phone } : null,
    properties: r.properties === null ? null : JSON.parse(r.properties),
    occurred_at: r.occurred_at,
    event_id: r.client_event_id,
    received_at: iso(r.received_at),
    request_id: r.request_id,
    side_effects: sideEffectsOfEvent(d, id),
  };
}

/** The event types stored for the business, by name. */
export function eventTypesSeen(d: Domain, businessId: string): string[] {
  return d.db
    .all<{ t: string }>('SELECT DISTINCT event_type AS t FROM events WHERE business_id = ? ORDER BY t', businessId)
    .map((r) => r.t);
}

export function adminListEvents(
  d: Domain,
  businessId: string,
  q: { event_type?: string; q?: string; before?: number; after?: number; limit: number },
) {
  const where = `business_id = @biz AND (@type IS NULL OR event_type = @type)
       AND (@like IS NULL OR lower(id) LIKE @like ESCAPE '\\' OR lower(client_event_id) LIKE @like ESCAPE '\\')`;
  const params = { biz: businessId, type: q.event_type ?? null, like: part(q.q) };
  const rows = d.db.all<EventRow>(
    `SELECT rowid AS pos, * FROM events WHERE ${where} AND (@before IS NULL OR rowid < @before) AND rowid > @after ORDER BY rowid DESC LIMIT @limit`,
    { ...params, before: q.before ?? null, after: q.after ?? 0, limit: q.limit + 1 },
  );
  const counted = d.db.get<{ total: number; latest: number | null }>(
    `SELECT count(*) AS total, max(rowid) AS latest FROM events WHERE ${where}`,
    params,
  );
  return page(
    rows,
    q.limit,
    (r) => ({
      id: r.id,
      event_type: r.event_type,
      contact_id: r.contact_id,
      properties: r.properties === null ? null : JSON.parse(r.properties),
      occurred_at: r.occurred_at,
      event_id: r.client_event_id,
      received_at: iso(r.received_at),
      request_id: r.request_id,
    }),
    counted ?? { total: 0, latest: 0 },
  );
}

export function listApiTokens(d: Domain, businessId: string) {
  return d.db
    .all<{ id: string; name: string; scopes: string; created_at: number; revoked_at: number | null }>(
      'SELECT id, name, scopes, created_at, revoked_at FROM api_tokens WHERE business_id = ? ORDER BY created_at, id',
      businessId,
    )
    .map((t) => ({
      id: t.id,
      name: t.name,
      scopes: split(t.scopes),
      created_at: iso(t.created_at),
      revoked_at: t.revoked_at === null ? null : iso(t.revoked_at),
    }));
}

export function listApps(d: Domain, businessId: string) {
  return d.db
    .all<{ client_id: string; name: string; scopes: string; created_at: number }>(
      'SELECT client_id, name, scopes, created_at FROM apps WHERE business_id = ? ORDER BY created_at, client_id',
      businessId,
    )
    .map((a) => ({ client_id: a.client_id, name: a.name, scopes: split(a.scopes), created_at: iso(a.created_at) }));
}

export function listIntegrations(d: Domain, businessId: string) {
  return d.db
    .all<{ id: string; name: string; active: number; created_at: number }>(
      'SELECT id, name, active, created_at FROM integrations WHERE business_id = ? ORDER BY created_at, id',
      businessId,
    )
    .map((i) => ({ id: i.id, business_id: businessId, name: i.name, active: i.active === 1, created_at: iso(i.created_at) }));
}
