/**
 * The order upsert (spec "POST /v1/orders/placed", open-points "Orders"): find-or-create of the
 * contact, omitted optional fields keeping stored values, statistics, side effects, integration
 * attribution. Runs as one SQLite transaction, so concurrent first calls yield exactly one create.
 */
import { currencyDecimals } from '../../contract/currency.js';
import { addDecimals, orderDateToUtc } from '../../contract/formats.js';
import type { ValidOrder } from '../../contract/orders.js';
import type { Order } from '../../contract/types.js';
import { findByPhone, findContact, insertContact } from './contacts.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { runOrderFlows } from './flows.js';
import { resolveIntegration } from './integrations.js';
import { currentRequestId, noteOrder, noteSideEffect } from './journal.js';
import { recordSideEffect, sideEffectNote } from './outbox.js';

export interface OrderRow {
  seq: number;
  business_id: string;
  order_id: string;
  total: string;
  currency: string;
  order_date: string;
  order_ts: number;
  email: string | null;
  phone: string | null;
  accepts_email_marketing: number | null;
  accepts_sms_marketing: number | null;
  initial_sync: number | null;
  line_items: string | null;
  contact_id: string | null;
  integration_id: string | null;
  created_at: number;
  updated_at: number;
}

const bool = (v: number | null): boolean | null => (v === null ? null : v === 1);
const bit = (v: boolean | undefined | null): number | null => (v === undefined || v === null ? null : v ? 1 : 0);

export function orderView(row: OrderRow): Order {
  return {
    order_id: row.order_id,
    total: row.total,
    currency: row.currency,
    order_date: row.order_date,
    email: row.email,
    phone: row.phone,
    accepts_email_marketing: bool(row.accepts_email_marketing),
    accepts_sms_marketing: bool(row.accepts_sms_marketing),
    initial_sync: bool(row.initial_sync),
    line_items: row.line_items === null ? null : JSON.parse(row.line_items),
    contact_id: row.contact_id,
    integration_id: row.integration_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function findOrder(d: Domain, businessId: string, orderId: string): OrderRow | undefined {
  return d.db.get<OrderRow>('SELECT * FROM orders WHERE business_id = ? AND order_id = ?', businessId, orderId);
}

/** By email when the order has one, else by phone; a new contact when nothing matches. */
/** The few contact columns the upsert needs (a narrow read: this is the hot path). */
interface StatsRow {
  seq: number;
  id: string;
  business_id: string;
  email: string | null;
  total_spent: string;
  last_order_at: number | null;
}

const STATS_COLUMNS = 'seq, id, business_id, email, total_spent, last_order_at';
const MAX_CACHED_ROWS = 100_000;

const cacheKey = (businessId: string, email: string) => `stats\n${businessId}\n${email}`;

/**
 * The statistics row of the contact with this email, from the row cache when it is there (the
 * cache holds the very object later updated by adjustStats, so it always matches the database).
 */
function statsByEmail(d: Domain, businessId: string, email: string): StatsRow | undefined {
  const key = cacheKey(businessId, email);
  const cached = d.db.rowCache.get(key) as StatsRow | undefined;
  if (cached) return cached;
  const row = d.db.get<StatsRow>(`SELECT ${STATS_COLUMNS} FROM contacts WHERE business_id = ? AND email = ?`, businessId, email);
  if (row) {
    if (d.db.rowCache.size >= MAX_CACHED_ROWS) d.db.rowCache.clear();
    d.db.rowCache.set(key, row);
  }
  return row;
}

/** After a statistics write: the cached row is brought up to date when it is this object, else dropped. */
function noteStats(d: Domain, contact: StatsRow, totalSpent: string, lastOrderAt: number | null | undefined): void {
  if (contact.email === null) return;
  const key = cacheKey(contact.business_id, contact.email);
  const cached = d.db.rowCache.get(key);
  if (cached === undefined) return;
  if (cached === contact && lastOrderAt !== undefined) {
    contact.total_spent = totalSpent;
    contact.last_order_at = lastOrderAt;
  } else d.db.rowCache.delete(key);
}

/**
 * By email when the order has one, else by phone; a new contact when nothing matches.
 * `emailMissed`: the email was already looked up and has no contact.
 */
function matchContact(
  d: Domain,
  businessId: string,
  o: { email: string | null; phone: string | null; aem: number | null; asm: number | null },
  emailMissed = false,
): StatsRow {
  const found =
    o.email !== null
      ? emailMissed
        ? undefined
        : statsByEmail(d, businessId, o.email)
      : o.phone !== null
        ? d.db.get<StatsRow>(`SELECT ${STATS_COLUMNS} FROM contacts WHERE business_id = ? AND phone = ?`, businessId, o.phone)
        : undefined;
  if (found) return found;
  const phoneFree = o.phone !== null && (o.email === null || findByPhone(d, businessId, o.phone) === undefined);
  return insertContact(d, businessId, {
    email: o.email,
    phone: phoneFree ? o.phone : null,
    email_consent: o.aem === 1 ? 'subscribed' : 'never_subscribed',
    sms_consent: o.asm === 1 && phoneFree ? 'single_opt_in' : 'never_subscribed',
  });
}

const SAFE_DIGITS = 15;

/** a + sign·b for canonical decimal strings; plain numbers while exact, BigInt (addDecimals) beyond. */
export function addAmounts(a: string | undefined, b: string, decimals: number, sign: 1 | -1): string {
  const x = a ?? '0';
  if (x.length + decimals < SAFE_DIGITS && b.length < SAFE_DIGITS) {
    const scale = 10 ** decimals;
    const minor = Math.round(Number(x) * scale) + sign * Math.round(Number(b) * scale);
    const neg = minor < 0;
    const digits = String(Math.abs(minor)).padStart(decimals + 1, '0');
    const body = decimals > 0 ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
    return neg ? `-${body}` : body;
  }
  return addDecimals(a ?? addDecimals('0', '0', decimals), b, decimals, sign);
}

/**
 * Adjusts a contact's statistics. `lastOrderTs` is the newest order date when it is known
 * without a query (a create, or an update that did not move the date back); otherwise the
 * newest date is read back from the contact's orders.
 */
function adjustStats(
  d: Domain,
  contact: StatsRow,
  countDelta: number,
  changes: Array<[currency: string, amount: string, sign: 1 | -1]>,
  lastOrderTs: number | undefined,
): void {
  const spent = JSON.parse(contact.total_spent) as Record<string, string>;
  for (const [currency, amount, sign] of changes) {
    const decimals = currencyDecimals(currency);
    spent[currency] = addAmounts(spent[currency], amount, decimals, sign);
  }
  const totalSpent = JSON.stringify(spent);
  if (lastOrderTs !== undefined) {
    const last = contact.last_order_at === null ? lastOrderTs : Math.max(contact.last_order_at, lastOrderTs);
    d.db.run(
      'UPDATE contacts SET orders_count = orders_count + ?, total_spent = ?, updated_at = ?, last_order_at = ? WHERE seq = ?',
      countDelta,
      totalSpent,
      d.now(),
      last,
      contact.seq,
    );
    noteStats(d, contact, totalSpent, last);
    return;
  }
  noteStats(d, contact, totalSpent, undefined);
  d.db.ensureOrdersByContact();
  d.db.run(
    `UPDATE contacts SET orders_count = orders_count + ?, total_spent = ?, updated_at = ?,
       last_order_at = (SELECT MAX(order_ts) FROM orders WHERE business_id = ? AND contact_id = ?) WHERE id = ?`,
    countDelta,
    JSON.stringify(spent),
    d.now(),
    contact.business_id,
    contact.id,
    contact.id,
  );
}

/** True when another order of the contact is newer than `ts`, so its newest date stays as stored. */
function olderThanNewest(ts: number, contact: StatsRow): boolean {
  return contact.last_order_at !== null && ts < contact.last_order_at;
}

export interface UpsertResult {
  created: boolean;
  order: OrderRow;
}

const INSERT_ORDER = `INSERT INTO orders (total, currency, order_date, order_ts, email, phone, accepts_email_marketing, accepts_sms_marketing,
    initial_sync, line_items, contact_id, integration_id, updated_at, created_at, business_id, order_id, request_id, last_request_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** One order being placed: its input and what was worked out from it once. */
interface Placing {
  d: Domain;
  businessId: string;
  input: ValidOrder;
  integrationId: string | null;
  now: number;
  orderDate: string;
  orderTs: number;
}

export function upsertOrder(d: Domain, businessId: string, input: ValidOrder, integrationHeader: string | undefined): UpsertResult {
  return d.db.transaction(() => {
    const integrationId = resolveIntegration(d, businessId, integrationHeader);
    const now = d.now();
    const orderDate = orderDateToUtc(input.order_date);
    const p: Placing = { d, businessId, input, integrationId, now, orderDate, orderTs: Date.parse(orderDate) };
    // A stored contact with the order's email is the order's contact whether the order is new or
    // not (rule 4 matches by email first). Then a new order needs no look-up of a stored one:
    // the insert is tried and the unique key (business_id, order_id) says whether it existed.
    const buyer = input.email !== undefined ? statsByEmail(d, businessId, input.email) : undefined;
    if (buyer) {
      const fresh = mergedOrder(input, undefined);
      const inserted = d.db.run(`${INSERT_ORDER} ON CONFLICT (business_id, order_id) DO NOTHING`, ...insertParams(p, fresh, buyer));
      if (inserted.changes === 1) return created(p, fresh, buyer);
    }
    const prev = findOrder(d, businessId, input.order_id);
    const merged = mergedOrder(input, prev);
    const contact = buyer ?? matchContact(d, businessId, merged, input.email !== undefined);
    if (prev === undefined) {
      d.db.run(INSERT_ORDER, ...insertParams(p, merged, contact));
      return created(p, merged, contact);
    }
    return updated(p, prev, merged, contact);
  });
}

/** A field of the order: the input's when given, else the stored one (an omitted field keeps it). */
function kept<T, C>(value: T | undefined, stored: C | null | undefined, toColumn: (v: T) => C | null): C | null {
  return value !== undefined ? toColumn(value) : (stored ?? null);
}

/** The order's fields: the input's, and for those it omits, the stored order's (`prev`). */
function mergedOrder(input: ValidOrder, prev: OrderRow | undefined): Merged {
  return {
    email: input.email ?? prev?.email ?? null,
    phone: input.phone ?? prev?.phone ?? null,
    aem: kept(input.accepts_email_marketing, prev?.accepts_email_marketing, bit),
    asm: kept(input.accepts_sms_marketing, prev?.accepts_sms_marketing, bit),
    initialSync: kept(input.initial_sync, prev?.initial_sync, bit),
    lineItems: kept(input.line_items, prev?.line_items, (items) => JSON.stringify(items)),
  };
}

/** The columns the insert and the update both write, in the order of INSERT_ORDER and of UPDATE_ORDER. */
function orderParams(p: Placing, merged: Merged, contact: StatsRow): unknown[] {
  const { input } = p;
  return [
    input.total,
    input.currency,
    p.orderDate,
    p.orderTs,
    merged.email,
    merged.phone,
    merged.aem,
    merged.asm,
    merged.initialSync,
    merged.lineItems,
    contact.id,
    p.integrationId,
    p.now,
  ];
}

/** The parameters of INSERT_ORDER. */
function insertParams(p: Placing, merged: Merged, contact: StatsRow): unknown[] {
  const request = currentRequestId(p.d);
  return [...orderParams(p, merged, contact), p.now, p.businessId, p.input.order_id, request, request];
}

const UPDATE_ORDER = `UPDATE orders SET total = ?, currency = ?, order_date = ?, order_ts = ?, email = ?, phone = ?, accepts_email_marketing = ?,
     accepts_sms_marketing = ?, initial_sync = ?, line_items = ?, contact_id = ?, integration_id = ?, updated_at = ?,
     last_request_id = ?
   WHERE seq = ?`;

/** An order that existed: its row rewritten, the statistics moved, and unless initial_sync, its side effects. */
function updated(p: Placing, prev: OrderRow, merged: Merged, contact: StatsRow): UpsertResult {
  const { d, businessId, input } = p;
  d.db.run(UPDATE_ORDER, ...orderParams(p, merged, contact), currentRequestId(d), prev.seq);
  noteOrder(d, 'updated', businessId, input.order_id, contact, merged);
  moveStats(p, prev, contact);
  if (merged.initialSync !== 1) {
    recordSideEffect(d, businessId, 'flow_trigger', { contact_id: contact.id, order_id: input.order_id, trigger: 'order_updated' });
    runOrderFlows(d, businessId, 'order_updated', contact.id, input.order_id);
  }
  return { created: false, order: orderRow(p, merged, contact, prev.created_at) };
}

/** The statistics after an update: the same contact's total changes, or the order moves from one contact to another. */
function moveStats(p: Placing, prev: OrderRow, contact: StatsRow): void {
  const { d, input, orderTs } = p;
  if (prev.contact_id === contact.id) {
    adjustStats(
      d,
      contact,
      0,
      [
        [prev.currency, prev.total, -1],
        [input.currency, input.total, 1],
      ],
      // The newest date is known unless this was the contact's newest order and moved back.
      orderTs >= prev.order_ts || olderThanNewest(prev.order_ts, contact) ? orderTs : undefined,
    );
    return;
  }
  const old = prev.contact_id !== null ? findContact(d, p.businessId, prev.contact_id) : undefined;
  if (old)
    adjustStats(
      d,
      old,
      -1,
      [[prev.currency, prev.total, -1]],
      olderThanNewest(prev.order_ts, old) ? (old.last_order_at as number) : undefined,
    );
  adjustStats(d, contact, 1, [[input.currency, input.total, 1]], orderTs);
}

interface Merged {
  email: string | null;
  phone: string | null;
  aem: number | null;
  asm: number | null;
  initialSync: number | null;
  lineItems: string | null;
}

/** After the insert of a new order: the buyer's statistics and, unless initial_sync, the side effects. */
function created(p: Placing, merged: Merged, contact: StatsRow): UpsertResult {
  const { d, businessId, input, now } = p;
  adjustStats(d, contact, 1, [[input.currency, input.total, 1]], p.orderTs);
  noteOrder(d, 'created', businessId, input.order_id, contact, merged);
  if (merged.initialSync !== 1) {
    // Both side effects of a create in one statement (this is the hot path).
    const r = d.db.run(
      `INSERT INTO outbox (type, business_id, contact_id, order_id, trigger, created_at, request_id)
       VALUES ('flow_trigger', @biz, @contact, @order, 'order_placed', @now, @req), ('revenue_attribution', @biz, @contact, @order, NULL, @now, @req)`,
      { biz: businessId, contact: contact.id, order: input.order_id, now, req: currentRequestId(d) },
    );
    if (d.journal) {
      const last = Number(r.lastInsertRowid);
      const ref = { contact_id: contact.id, order_id: input.order_id };
      noteSideEffect(d, sideEffectNote(last - 1, 'flow_trigger', { ...ref, trigger: 'order_placed' }));
      noteSideEffect(d, sideEffectNote(last, 'revenue_attribution', ref));
    }
    runOrderFlows(d, businessId, 'order_placed', contact.id, input.order_id);
  }
  return { created: true, order: orderRow(p, merged, contact, now) };
}

function orderRow(p: Placing, merged: Merged, contact: StatsRow, createdAt: number): OrderRow {
  const { input } = p;
  return {
    seq: 0,
    business_id: p.businessId,
    order_id: input.order_id,
    total: input.total,
    currency: input.currency,
    order_date: p.orderDate,
    order_ts: p.orderTs,
    email: merged.email,
    phone: merged.phone,
    accepts_email_marketing: merged.aem,
    accepts_sms_marketing: merged.asm,
    initial_sync: merged.initialSync,
    line_items: merged.lineItems,
    contact_id: contact.id,
    integration_id: p.integrationId,
    created_at: createdAt,
    updated_at: p.now,
  };
}
