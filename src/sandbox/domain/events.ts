/** Custom events and the flows keyed on them (spec "POST /v1/events", open-points "Events"). */
import { rfc3339ToMs } from '../../contract/formats.js';
import type { EventInput } from '../../contract/types.js';
import { newId } from '../ids.js';
import { getBusiness } from './auth.js';
import { findByEmail, findByPhone, findContact, insertContact } from './contacts.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { notFound, ServiceError } from './errors.js';
import { recordSideEffect } from './outbox.js';

const DEDUPE_WINDOW_MS = 24 * 60 * 60 * 1000;

export function createFlow(d: Domain, businessId: string, eventType: string, name: string) {
  getBusiness(d, businessId);
  if (eventType.length < 1 || eventType.length > 255)
    throw new ServiceError(400, 'invalid_request', 'event_type must be 1 to 255 characters');
  const id = newId('flow');
  const now = d.now();
  d.db.run(
    'INSERT INTO flows (id, business_id, event_type, name, created_at) VALUES (?, ?, ?, ?, ?)',
    id,
    businessId,
    eventType,
    name,
    now,
  );
  return { id, business_id: businessId, event_type: eventType, name, created_at: iso(now) };
}

/** Accepts an event: identifies (or creates) the contact, stores it, runs the flows keyed on its type. */
export function sendEvent(d: Domain, businessId: string, e: EventInput): { id: string; duplicate: boolean } {
  return d.db.transaction(() => {
    const now = d.now();
    if (e.event_id !== undefined) {
      const prev = d.db.get<{ id: string }>(
        'SELECT id FROM events WHERE business_id = ? AND client_event_id = ? AND received_at > ? ORDER BY received_at LIMIT 1',
        businessId,
        e.event_id,
        now - DEDUPE_WINDOW_MS,
      );
      if (prev) return { id: prev.id, duplicate: true };
    }
    let contactId: string;
    if (e.contact_id !== undefined) {
      const c = findContact(d, businessId, e.contact_id);
      if (!c) throw notFound(`contact ${e.contact_id}`);
      contactId = c.id;
    } else {
      const found = e.email !== undefined ? findByEmail(d, businessId, e.email) : findByPhone(d, businessId, e.phone as string);
      if (found) contactId = found.id;
      else {
        const phoneFree = e.phone !== undefined && (e.email === undefined || findByPhone(d, businessId, e.phone) === undefined);
        contactId = insertContact(d, businessId, { email: e.email ?? null, phone: phoneFree ? e.phone : null }).id;
      }
    }
    const id = newId('ev');
    d.db.run(
      'INSERT INTO events (id, business_id, event_type, contact_id, properties, occurred_at, client_event_id, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      id,
      businessId,
      e.event_type,
      contactId,
      e.properties === undefined ? null : JSON.stringify(e.properties),
      e.occurred_at !== undefined ? new Date(rfc3339ToMs(e.occurred_at)).toISOString() : iso(now),
      e.event_id ?? null,
      now,
    );
    const flows = d.db.all<{ id: string }>(
      'SELECT id FROM flows WHERE business_id = ? AND event_type = ? ORDER BY created_at',
      businessId,
      e.event_type,
    );
    for (const _flow of flows) recordSideEffect(d, businessId, 'flow_run', { contact_id: contactId, event_id: id, trigger: e.event_type });
    return { id, duplicate: false };
  });
}
