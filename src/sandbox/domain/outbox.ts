/** The side-effect outbox: what the real service would have sent or triggered, recorded in order. */
import type { Domain } from './context.js';
import { iso } from './context.js';
import { currentRequestId, noteSideEffect, type SideEffectNote } from './journal.js';

export const SIDE_EFFECT_TYPES = ['welcome_sms', 'flow_trigger', 'flow_run', 'revenue_attribution'] as const;
export type SideEffectType = (typeof SIDE_EFFECT_TYPES)[number];

export interface SideEffectRef {
  contact_id?: string | null;
  order_id?: string | null;
  event_id?: string | null;
  trigger?: string | null;
  flow_id?: string | null;
}

export function recordSideEffect(d: Domain, businessId: string, type: SideEffectType, ref: SideEffectRef): void {
  const r = d.db.run(
    'INSERT INTO outbox (type, business_id, contact_id, order_id, event_id, trigger, created_at, flow_id, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    type,
    businessId,
    ref.contact_id ?? null,
    ref.order_id ?? null,
    ref.event_id ?? null,
    ref.trigger ?? null,
    d.now(),
    ref.flow_id ?? null,
    currentRequestId(d),
  );
  if (d.journal) noteSideEffect(d, sideEffectNote(Number(r.lastInsertRowid), type, ref));
}

/** A side effect as the request log notes it. */
export function sideEffectNote(seq: number, type: SideEffectType, ref: SideEffectRef): SideEffectNote {
  return {
    seq,
    type,
    contact_id: ref.contact_id ?? null,
    order_id: ref.order_id ?? null,
    event_id: ref.event_id ?? null,
    flow_id: ref.flow_id ?? null,
    trigger: ref.trigger ?? null,
  };
}

interface OutboxRow {
  seq: number;
  type: string;
  business_id: string;
  contact_id: string | null;
  order_id: string | null;
  event_id: string | null;
  trigger: string | null;
  created_at: number;
  flow_id: string | null;
  request_id: string | null;
}

export interface OutboxFilter {
  type?: string;
  business_id?: string;
  after?: number;
  contact_id?: string;
  /** The runs of one flow. */
  flow_id?: string;
  /** Only the N most recent (still listed oldest first). */
  limit?: number;
}

/** Every recorded side effect matching the filters, oldest first. */
const MATCHES = `(@type IS NULL OR type = @type) AND (@biz IS NULL OR business_id = @biz)
       AND (@contact IS NULL OR contact_id = @contact) AND (@flow IS NULL OR flow_id = @flow)`;

const matchParams = (filter: OutboxFilter) => ({
  type: filter.type ?? null,
  biz: filter.business_id ?? null,
  contact: filter.contact_id ?? null,
  flow: filter.flow_id ?? null,
});

/** How many side effects match the filter's type, business, contact and flow (every one, whatever `after` and `limit`). */
export function countSideEffects(d: Domain, filter: OutboxFilter): number {
  return d.db.get<{ n: number }>(`SELECT count(*) AS n FROM outbox WHERE ${MATCHES}`, matchParams(filter))?.n ?? 0;
}

/** The side effects an event caused (its flow runs), oldest first. */
export function sideEffectsOfEvent(d: Domain, eventId: string) {
  return d.db.all<OutboxRow>('SELECT * FROM outbox WHERE event_id = ? ORDER BY seq', eventId).map(outboxView);
}

export function listSideEffects(d: Domain, filter: OutboxFilter) {
  const rows = d.db.all<OutboxRow>(`SELECT * FROM outbox WHERE seq > @after AND ${MATCHES} ORDER BY seq DESC LIMIT @limit`, {
    ...matchParams(filter),
    after: filter.after ?? 0,
    limit: filter.limit ?? -1,
  });
  rows.reverse();
  return rows.map(outboxView);
}

function outboxView(r: OutboxRow): Record<string, unknown> {
  const out: Record<string, unknown> = { seq: r.seq, type: r.type, business_id: r.business_id };
  if (r.contact_id !== null) out.contact_id = r.contact_id;
  if (r.order_id !== null) out.order_id = r.order_id;
  if (r.event_id !== null) out.event_id = r.event_id;
  if (r.trigger !== null) out.trigger = r.trigger;
  if (r.flow_id !== null) out.flow_id = r.flow_id;
  if (r.request_id !== null) out.request_id = r.request_id;
  out.created_at = iso(r.created_at);
  return out;
}
