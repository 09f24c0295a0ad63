/**
 * Contacts and the consent state machine (spec "States and transitions", open-points "Contacts").
 * Plain functions over the database; HTTP knows nothing of these rules and these know nothing of HTTP.
 */
import { type EmailConsent, type SmsConsent, smsConsentNeedsPhone } from '../../contract/consent.js';
import type { Contact, ContactWrite } from '../../contract/types.js';
import { newId } from '../ids.js';
import type { Domain } from './context.js';
import { iso } from './context.js';
import { invalidRequest, notFound, ServiceError } from './errors.js';
import { currentRequestId, noteRecord, personOf } from './journal.js';
import { recordSideEffect } from './outbox.js';

export interface ContactRow {
  seq: number;
  id: string;
  business_id: string;
  email: string | null;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  email_consent: EmailConsent;
  sms_consent: SmsConsent;
  created_at: number;
  updated_at: number;
  orders_count: number;
  total_spent: string;
  last_order_at: number | null;
}

export function contactView(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    phone: row.phone,
    first_name: row.first_name,
    last_name: row.last_name,
    email_consent: row.email_consent,
    sms_consent: row.sms_consent,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    orders_count: row.orders_count,
    total_spent: JSON.parse(row.total_spent) as Record<string, string>,
    last_order_at: row.last_order_at === null ? null : iso(row.last_order_at),
  };
}

export function findContact(d: Domain, businessId: string, id: string): ContactRow | undefined {
  return d.db.get<ContactRow>('SELECT * FROM contacts WHERE id = ? AND business_id = ?', id, businessId);
}

export function findByEmail(d: Domain, businessId: string, email: string): ContactRow | undefined {
  return d.db.get<ContactRow>('SELECT * FROM contacts WHERE business_id = ? AND email = ?', businessId, email.toLowerCase());
}

export function findByPhone(d: Domain, businessId: string, phone: string): ContactRow | undefined {
  return d.db.get<ContactRow>('SELECT * FROM contacts WHERE business_id = ? AND phone = ?', businessId, phone);
}

export function getContact(d: Domain, businessId: string, id: string): ContactRow {
  const row = findContact(d, businessId, id);
  if (!row) throw notFound(`contact ${id}`);
  return row;
}

function complianceSuppressed(row: ContactRow): ServiceError {
  return new ServiceError(
    422,
    'compliance_suppressed',
    `contact ${row.id} is compliance-suppressed (set by the system); no write to it is allowed`,
    { id: row.id },
  );
}

function contactExists(id: string, by: string): ServiceError {
  return new ServiceError(409, 'contact_exists', `a contact with this ${by} already exists: ${id}`, { id });
}

export interface NewContact {
  email?: string | null;
  phone?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  email_consent?: EmailConsent;
  sms_consent?: SmsConsent;
}

/** Inserts a contact (no checks, no side effects); the caller has checked uniqueness. */
export function insertContact(d: Domain, businessId: string, c: NewContact): ContactRow {
  const id = newId('ct');
  const now = d.now();
  const r = d.db.run(
    `INSERT INTO contacts (id, business_id, email, phone, first_name, last_name, email_consent, sms_consent, created_at, updated_at,
       request_id, last_request_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    id,
    businessId,
    c.email ?? null,
    c.phone ?? null,
    c.first_name ?? null,
    c.last_name ?? null,
    c.email_consent ?? 'never_subscribed',
    c.sms_consent ?? 'never_subscribed',
    now,
    now,
    currentRequestId(d),
    currentRequestId(d),
  );
  noteRecord(d, {
    type: 'contact',
    action: 'created',
    id,
    business_id: businessId,
    person: { contact_id: id, email: c.email ?? null, phone: c.phone ?? null },
  });
  return {
    seq: Number(r.lastInsertRowid),
    id,
    business_id: businessId,
    email: c.email ?? null,
    phone: c.phone ?? null,
    first_name: c.first_name ?? null,
    last_name: c.last_name ?? null,
    email_consent: c.email_consent ?? 'never_subscribed',
    sms_consent: c.sms_consent ?? 'never_subscribed',
    created_at: now,
    updated_at: now,
    orders_count: 0,
    total_spent: '{}',
    last_order_at: null,
  };
}

function checkPhoneRequirement(write: ContactWrite, storedPhone: string | null): void {
  if (write.sms_consent !== undefined && smsConsentNeedsPhone(write.sms_consent) && !(write.phone ?? storedPhone)) {
    throw invalidRequest([{ field: 'phone', message: `is required for sms_consent ${write.sms_consent}; add a phone number (E.164)` }]);
  }
}

function wantsWelcomeSms(write: ContactWrite, before: SmsConsent | undefined): boolean {
  return write.sms_consent === 'subscribed' && before !== 'subscribed' && write.send_welcome_sms !== false;
}

/** A write that changes the email or phone to one another contact of the business has: 409. */
function checkUnique(d: Domain, row: ContactRow, write: ContactWrite): void {
  if (write.email !== undefined && write.email !== row.email) {
    const other = findByEmail(d, row.business_id, write.email);
    if (other && other.id !== row.id) throw contactExists(other.id, 'email');
  }
  if (write.phone !== undefined && write.phone !== row.phone) {
    const other = findByPhone(d, row.business_id, write.phone);
    if (other && other.id !== row.id) throw contactExists(other.id, 'phone');
  }
}

const writesConsent = (write: ContactWrite): boolean => write.email_consent !== undefined || write.sms_consent !== undefined;

/** The email consent after a write. Spec: a merchant-suppressed contact is unsuppressed first, then the written value applies. */
function emailConsentAfter(row: ContactRow, write: ContactWrite): EmailConsent {
  if (row.email_consent === 'suppressed' && writesConsent(write)) return write.email_consent ?? 'never_subscribed';
  return write.email_consent ?? row.email_consent;
}

/** Applies a validated write to a stored contact: suppression lifting, uniqueness, welcome SMS. */
function applyWrite(d: Domain, row: ContactRow, write: ContactWrite): ContactRow {
  if (row.email_consent === 'compliance_suppressed') throw complianceSuppressed(row);
  checkPhoneRequirement(write, row.phone);
  checkUnique(d, row, write);
  const emailConsent = emailConsentAfter(row, write);
  const smsConsent: SmsConsent = write.sms_consent ?? row.sms_consent;
  d.db.rowCache.clear(); // the order upsert's cached contact rows (an email may change)
  d.db.run(
    `UPDATE contacts SET email = ?, phone = ?, first_name = ?, last_name = ?, email_consent = ?, sms_consent = ?, updated_at = ?,
       last_request_id = ?
     WHERE id = ?`,
    write.email ?? row.email,
    write.phone ?? row.phone,
    write.first_name ?? row.first_name,
    write.last_name ?? row.last_name,
    emailConsent,
    smsConsent,
    d.now(),
    currentRequestId(d),
    row.id,
  );
  noteRecord(d, {
    type: 'contact',
    action: 'updated',
    id: row.id,
    business_id: row.business_id,
    person: { contact_id: row.id, email: write.email ?? row.email, phone: write.phone ?? row.phone },
  });
  if (wantsWelcomeSms(write, row.sms_consent)) recordSideEffect(d, row.business_id, 'welcome_sms', { contact_id: row.id });
  return findContact(d, row.business_id, row.id) as ContactRow;
}

/**
 * POST /v1/contacts matching a stored contact (`target`, by email or phone): the write applies when
 * it lifts a merchant suppression of that one contact; otherwise the contact exists (409).
 */
function liftSuppression(
  d: Domain,
  target: ContactRow,
  byEmail: ContactRow | undefined,
  byPhone: ContactRow | undefined,
  write: ContactWrite,
): ContactRow {
  const single = !byEmail || !byPhone || byEmail.id === byPhone.id;
  if (single && target.email_consent === 'suppressed' && writesConsent(write)) return applyWrite(d, target, write);
  throw contactExists(target.id, byEmail ? 'email' : 'phone');
}

/**
 * POST /v1/contacts. 201 with a new contact; 200 when an existing merchant-suppressed contact is
 * unsuppressed by a consent write (the spec's transition row); 409 or 422 otherwise.
 */
export function createContact(d: Domain, businessId: string, write: ContactWrite): { status: 200 | 201; contact: ContactRow } {
  return d.db.transaction(() => {
    const byEmail = write.email !== undefined ? findByEmail(d, businessId, write.email) : undefined;
    const byPhone = write.phone !== undefined ? findByPhone(d, businessId, write.phone) : undefined;
    const matches = [byEmail, byPhone].filter((r): r is ContactRow => r !== undefined);
    const suppressed = matches.find((r) => r.email_consent === 'compliance_suppressed');
    if (suppressed) throw complianceSuppressed(suppressed);
    const target = byEmail ?? byPhone;
    if (target) return { status: 200, contact: liftSuppression(d, target, byEmail, byPhone, write) };
    // The phone requirement is about the contact after the write: checked here for a new
    // contact, and by applyWrite (with the stored phone) when a suppression is lifted.
    checkPhoneRequirement(write, null);
    const row = insertContact(d, businessId, write);
    if (wantsWelcomeSms(write, undefined)) recordSideEffect(d, businessId, 'welcome_sms', { contact_id: row.id });
    return { status: 201, contact: row };
  });
}

export function patchContact(d: Domain, businessId: string, id: string, write: ContactWrite): ContactRow {
  return d.db.transaction(() => applyWrite(d, getContact(d, businessId, id), write));
}

/** The deprecated unsubscribe: email_consent becomes unsubscribed. */
export function unsubscribeContact(d: Domain, businessId: string, id: string): ContactRow {
  return patchContact(d, businessId, id, { email_consent: 'unsubscribed' });
}

/** DELETE: the contact goes; its orders stay (their contact_id unchanged). */
export function deleteContact(d: Domain, businessId: string, id: string): void {
  d.db.transaction(() => {
    const row = getContact(d, businessId, id);
    if (row.email_consent === 'compliance_suppressed') throw complianceSuppressed(row);
    d.db.rowCache.clear(); // the order upsert's cached contact rows
    d.db.run('DELETE FROM contacts WHERE id = ?', id);
    noteRecord(d, { type: 'contact', action: 'deleted', id, business_id: businessId, person: personOf(row) });
  });
}

export interface ContactQuery {
  email_consent?: string;
  sms_consent?: string;
  email?: string;
  phone?: string;
  /** Epoch ms. */
  updated_since?: number;
  /** Only contacts after this position (the cursor). */
  after: number;
  limit: number;
}

/** One page in creation order; `next` is the position to continue after, or null on the last page. */
export function listContacts(d: Domain, businessId: string, q: ContactQuery): { rows: ContactRow[]; next: number | null } {
  const rows = d.db.all<ContactRow>(
    `SELECT * FROM contacts WHERE business_id = @biz AND seq > @after
       AND (@ec IS NULL OR email_consent = @ec) AND (@sc IS NULL OR sms_consent = @sc)
       AND (@email IS NULL OR email = @email) AND (@phone IS NULL OR phone = @phone)
       AND (@since IS NULL OR updated_at >= @since)
     ORDER BY seq LIMIT @limit`,
    {
      biz: businessId,
      after: q.after,
      ec: q.email_consent ?? null,
      sc: q.sms_consent ?? null,
      email: q.email?.toLowerCase() ?? null,
      phone: q.phone ?? null,
      since: q.updated_since ?? null,
      limit: q.limit + 1,
    },
  );
  if (rows.length <= q.limit) return { rows, next: null };
  const page = rows.slice(0, q.limit);
  return { rows: page, next: (page[page.length - 1] as ContactRow).seq };
}

/** Admin: force any consent state, read-only ones included; no side effect. */
export function forceConsent(d: Domain, id: string, values: { email_consent?: EmailConsent; sms_consent?: SmsConsent }): ContactRow {
  const row = d.db.get<ContactRow>('SELECT * FROM contacts WHERE id = ?', id);
  if (!row) throw notFound(`contact ${id}`);
  d.db.rowCache.clear(); // the order upsert's cached contact rows
  d.db.run(
    'UPDATE contacts SET email_consent = ?, sms_consent = ?, updated_at = ? WHERE id = ?',
    values.email_consent ?? row.email_consent,
    values.sms_consent ?? row.sms_consent,
    d.now(),
    id,
  );
  return d.db.get<ContactRow>('SELECT * FROM contacts WHERE id = ?', id) as ContactRow;
}
