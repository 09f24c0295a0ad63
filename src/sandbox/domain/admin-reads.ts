/**
 * The admin API's read side, for the dashboard (open-points "Admin API for the dashboard"):
 * businesses, contacts, orders and events newest first and paged, and the credentials without
 * any secret. Plain functions over the database.
 */
import { type ContactRow, contactView } from './contacts.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { type OrderRow, orderView } from './orders.js';

/** One page, newest first: `before` is the position to continue before, or null on the last page. */
export interface Page<T> {
  data: T[];
  next: number | null;
}

function page<R extends { pos: number }, T>(rows: R[], limit: number, view: (r: R) => T): Page<T> {
  const kept = rows.slice(0, limit);
  return { data: kept.map(view), next: rows.length > limit ? (kept[kept.length - 1] as R).pos : null };
}

const split = (s: string): string[] => (s === '' ? [] : s.split(' '));

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
  limit: number;
}

export function adminListContacts(d: Domain, businessId: string, q: AdminContactQuery) {
  const like = q.q === undefined ? null : `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = d.db.all<ContactRow & { pos: number }>(
    `SELECT *, seq AS pos FROM contacts WHERE business_id = @biz AND (@before IS NULL OR seq < @before)
       AND (@ec IS NULL OR email_consent = @ec) AND (@sc IS NULL OR sms_consent = @sc)
       AND (@like IS NULL OR email LIKE @like ESCAPE '\\' OR phone LIKE @like ESCAPE '\\')
     ORDER BY seq DESC LIMIT @limit`,
    {
      biz: businessId,
      before: q.before ?? null,
      ec: q.email_consent ?? null,
      sc: q.sms_consent ?? null,
      like,
      limit: q.limit + 1,
    },
  );
  return page(rows, q.limit, contactView);
}

export function adminListOrders(d: Domain, businessId: string, q: { contact_id?: string; before?: number; limit: number }) {
  const rows = d.db.all<OrderRow & { pos: number }>(
    `SELECT *, seq AS pos FROM orders WHERE business_id = @biz AND (@before IS NULL OR seq < @before)
       AND (@contact IS NULL OR contact_id = @contact) ORDER BY seq DESC LIMIT @limit`,
    { biz: businessId, before: q.before ?? null, contact: q.contact_id ?? null, limit: q.limit + 1 },
  );
  return page(rows, q.limit, (r) => ({ ...orderView(r), business_id: r.business_id }));
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
}

export function adminListEvents(d: Domain, businessId: string, q: { event_type?: string; before?: number; limit: number }) {
  const rows = d.db.all<EventRow>(
    `SELECT rowid AS pos, * FROM events WHERE business_id = @biz AND (@before IS NULL OR rowid < @before)
       AND (@type IS NULL OR event_type = @type) ORDER BY rowid DESC LIMIT @limit`,
    { biz: businessId, before: q.before ?? null, type: q.event_type ?? null, limit: q.limit + 1 },
  );
  return page(rows, q.limit, (r) => ({
    id: r.id,
    event_type: r.event_type,
    contact_id: r.contact_id,
    properties: r.properties === null ? null : JSON.parse(r.properties),
    occurred_at: r.occurred_at,
    event_id: r.client_event_id,
    received_at: iso(r.received_at),
  }));
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
