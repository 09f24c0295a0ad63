/**
 * Sandbox flows: automations keyed on an event type (a custom event runs them) or on an order
 * (order_placed when an order is created, order_updated when it is updated; not with
 * initial_sync). Each run records a flow_run side effect naming the flow. Flows can be disabled
 * (they stay, and run nothing) and deleted.
 */
import { newId } from '../ids.js';
import { getBusiness } from './auth.js';
import type { Domain } from './context.js';
import { clearCaches, iso } from './context.js';
import { invalidRequest, ServiceError } from './errors.js';
import { recordSideEffect } from './outbox.js';

export const ORDER_TRIGGERS = ['order_placed', 'order_updated'] as const;
export type OrderTrigger = (typeof ORDER_TRIGGERS)[number];

interface FlowRow {
  id: string;
  business_id: string;
  event_type: string;
  name: string;
  created_at: number;
  trigger_type: 'event' | 'order';
  enabled: number;
}

export interface FlowView {
  id: string;
  business_id: string;
  name: string;
  /** `event` (keyed on event_type) or `order` (event_type is order_placed or order_updated). */
  trigger: 'event' | 'order';
  event_type: string;
  enabled: boolean;
  runs: number;
  last_run_at: string | null;
  created_at: string;
}

function view(r: FlowRow, runs: number, lastRun: number | null): FlowView {
  return {
    id: r.id,
    business_id: r.business_id,
    name: r.name,
    trigger: r.trigger_type,
    event_type: r.event_type,
    enabled: r.enabled === 1,
    runs,
    last_run_at: lastRun === null ? null : iso(lastRun),
    created_at: iso(r.created_at),
  };
}

/** A new flow on an event type, or on an order trigger (order_placed, order_updated). */
export function createFlow(d: Domain, businessId: string, key: { event_type?: string; order_trigger?: string }, name?: string) {
  getBusiness(d, businessId);
  if ((key.event_type === undefined) === (key.order_trigger === undefined))
    throw invalidRequest([{ field: 'event_type', message: 'give either event_type or order_trigger (order_placed, order_updated)' }]);
  let trigger: 'event' | 'order' = 'event';
  let eventType = key.event_type as string;
  if (key.order_trigger !== undefined) {
    if (!(ORDER_TRIGGERS as readonly string[]).includes(key.order_trigger))
      throw invalidRequest([{ field: 'order_trigger', message: `must be one of ${ORDER_TRIGGERS.join(', ')}` }]);
    trigger = 'order';
    eventType = key.order_trigger;
  } else if (eventType.length < 1 || eventType.length > 255)
    throw new ServiceError(400, 'invalid_request', 'event_type must be 1 to 255 characters');
  const id = newId('flow');
  const now = d.now();
  const flowName = name ?? (trigger === 'order' ? `Flow on ${eventType.replace('_', ' ')}` : `Flow on ${eventType}`);
  d.db.run(
    'INSERT INTO flows (id, business_id, event_type, name, created_at, trigger_type, enabled) VALUES (?, ?, ?, ?, ?, ?, 1)',
    id,
    businessId,
    eventType,
    flowName,
    now,
    trigger,
  );
  clearCaches(d);
  return { id, business_id: businessId, event_type: eventType, name: flowName, trigger, enabled: true, created_at: iso(now) };
}

/** The flows of a business, newest first, with their runs' count and last run. */
export function listFlows(d: Domain, businessId: string): FlowView[] {
  const rows = d.db.all<FlowRow & { runs: number; last_run: number | null }>(
    `SELECT f.*, (SELECT count(*) FROM outbox o WHERE o.flow_id = f.id) AS runs,
            (SELECT max(created_at) FROM outbox o WHERE o.flow_id = f.id) AS last_run
       FROM flows f WHERE f.business_id = ? ORDER BY f.created_at DESC, f.id`,
    businessId,
  );
  return rows.map((r) => view(r, r.runs, r.last_run));
}

function flowRow(d: Domain, id: string): FlowRow {
  const row = d.db.get<FlowRow>('SELECT * FROM flows WHERE id = ?', id);
  if (!row) throw new ServiceError(404, 'not_found', `flow ${id} not found`);
  return row;
}

/** Enables or disables a flow (and renames it when `name` is given). */
export function updateFlow(d: Domain, id: string, change: { enabled?: boolean; name?: string }): FlowView {
  flowRow(d, id);
  if (change.enabled !== undefined) d.db.run('UPDATE flows SET enabled = ? WHERE id = ?', change.enabled ? 1 : 0, id);
  if (change.name !== undefined) d.db.run('UPDATE flows SET name = ? WHERE id = ?', change.name, id);
  clearCaches(d);
  return showFlow(d, id);
}

/** One flow with its runs' count and last run (404 when unknown). */
export function showFlow(d: Domain, id: string): FlowView {
  const r = flowRow(d, id);
  const stats = d.db.get<{ runs: number; last_run: number | null }>(
    'SELECT count(*) AS runs, max(created_at) AS last_run FROM outbox WHERE flow_id = ?',
    id,
  ) ?? { runs: 0, last_run: null };
  return view(r, stats.runs, stats.last_run);
}

/** Deletes a flow; its runs stay in the outbox. */
export function deleteFlow(d: Domain, id: string): void {
  flowRow(d, id);
  d.db.run('DELETE FROM flows WHERE id = ?', id);
  clearCaches(d);
}

/** The enabled flows a trigger runs (an event type, or order_placed/order_updated for order flows); cached. */
function flowsOn(d: Domain, businessId: string, trigger: 'event' | 'order', key: string): { id: string }[] {
  const cacheKey = `${businessId}\u0000${trigger}\u0000${key}`;
  let flows = d.cache.flows.get(cacheKey);
  if (!flows) {
    flows = d.db.all<{ id: string }>(
      'SELECT id FROM flows WHERE business_id = ? AND event_type = ? AND trigger_type = ? AND enabled = 1 ORDER BY created_at, id',
      businessId,
      key,
      trigger,
    );
    if (d.cache.flows.size > 1000) d.cache.flows.clear();
    d.cache.flows.set(cacheKey, flows);
  }
  return flows;
}

/** Records a flow_run for each enabled flow keyed on the event's type. */
export function runEventFlows(d: Domain, businessId: string, eventType: string, contactId: string, eventId: string): void {
  for (const f of flowsOn(d, businessId, 'event', eventType))
    recordSideEffect(d, businessId, 'flow_run', { contact_id: contactId, event_id: eventId, trigger: eventType, flow_id: f.id });
}

/** Records a flow_run for each enabled flow on this order trigger. */
export function runOrderFlows(d: Domain, businessId: string, trigger: OrderTrigger, contactId: string, orderId: string): void {
  for (const f of flowsOn(d, businessId, 'order', trigger))
    recordSideEffect(d, businessId, 'flow_run', { contact_id: contactId, order_id: orderId, trigger, flow_id: f.id });
}
