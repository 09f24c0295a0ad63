/** Custom events (their flows: flows.ts) (spec "POST /v1/events", open-points "Events"). */
import { rfc3339ToMs } from '../../contract/formats.js';
import type { EventInput } from '../../contract/types.js';
import { newId } from '../ids.js';
import { findByEmail, findByPhone, findContact, insertContact } from './contacts.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { notFound } from './errors.js';
import { runEventFlows } from './flows.js';
import { currentRequestId, noteRecord, personOf } from './journal.js';

const DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The id of the same event (its event_id) received in the last 24 hours, if any. */
function duplicateOf(d: Domain, businessId: string, e: EventInput, now: number): string | undefined {
  if (e.event_id === undefined) return undefined;
  const prev = d.db.get<{ id: string }>(
    'SELECT id FROM events WHERE business_id = ? AND client_event_id = ? AND received_at > ? ORDER BY received_at LIMIT 1',
    businessId,
    e.event_id,
    now - DEDUPE_WINDOW_MS,
  );
  return prev?.id;
}

/**
 * The event's contact: the one named by contact_id (404 if none), else the one with its email
 * (or phone), else a new one (with the phone unless another contact has it).
 */
function eventContact(d: Domain, businessId: string, e: EventInput): string {
  if (e.contact_id !== undefined) {
    const c = findContact(d, businessId, e.contact_id);
    if (!c) throw notFound(`contact ${e.contact_id}`);
    return c.id;
  }
  const found = e.email !== undefined ? findByEmail(d, businessId, e.email) : findByPhone(d, businessId, e.phone as string);
  if (found) return found.id;
  const phoneFree = e.phone !== undefined && (e.email === undefined || findByPhone(d, businessId, e.phone) === undefined);
  return insertContact(d, businessId, { email: e.email ?? null, phone: phoneFree ? e.phone : null }).id;
}

/** Accepts an event: identifies (or creates) the contact, stores it, runs the flows keyed on its type. */
export function sendEvent(d: Domain, businessId: string, e: EventInput): { id: string; duplicate: boolean } {
  return d.db.transaction(() => {
    const now = d.now();
    const prev = duplicateOf(d, businessId, e, now);
    if (prev) return { id: prev, duplicate: true };
    const contactId = eventContact(d, businessId, e);
    const id = newId('ev');
    d.db.run(
      'INSERT INTO events (id, business_id, event_type, contact_id, properties, occurred_at, client_event_id, received_at, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      businessId,
      e.event_type,
      contactId,
      e.properties === undefined ? null : JSON.stringify(e.properties),
      e.occurred_at !== undefined ? new Date(rfc3339ToMs(e.occurred_at)).toISOString() : iso(now),
      e.event_id ?? null,
      now,
      currentRequestId(d),
    );
    if (d.journal) {
      const c = findContact(d, businessId, contactId);
      noteRecord(d, { type: 'event', action: 'created', id, business_id: businessId, person: c ? personOf(c) : null });
    }
    runEventFlows(d, businessId, e.event_type, contactId, id);
    return { id, duplicate: false };
  });
}
