/**
 * What one service request did: the records it created, changed or deleted and the side effects
 * it caused, noted by the domain functions while the request's handler runs (handlers are
 * synchronous, so one journal is open at a time). The request log keeps it with the request.
 */
/** Whatever carries the open journal (the Domain). */
interface Domain {
  journal?: Journal;
}

/** Who a record is about, by the contact's e-mail or phone (as they were at the write). */
export interface Person {
  contact_id: string;
  email: string | null;
  phone: string | null;
}

export interface RecordEffect {
  type: 'contact' | 'order' | 'event';
  action: 'created' | 'updated' | 'deleted';
  /** The contact id, the shop's order id, or the event id. */
  id: string;
  business_id: string;
  person: Person | null;
}

export interface SideEffectNote {
  seq: number;
  type: string;
  contact_id: string | null;
  order_id: string | null;
  event_id: string | null;
  flow_id: string | null;
  trigger: string | null;
}

export interface Journal {
  requestId: string;
  records: RecordEffect[];
  sideEffects: SideEffectNote[];
}

/** Opens a journal for the request about to be handled; its id goes into every row it writes. */
export function openJournal(d: Domain, requestId: string): Journal {
  const j: Journal = { requestId, records: [], sideEffects: [] };
  d.journal = j;
  return j;
}

/** Closes the open journal; `failed`: the handler threw, so its writes were rolled back. */
export function closeJournal(d: Domain, failed: boolean): Journal | undefined {
  const j = d.journal;
  d.journal = undefined;
  if (j && failed) {
    j.records.length = 0;
    j.sideEffects.length = 0;
  }
  return j;
}

/** The id of the request being handled (null outside a service request: admin writes, imports of snapshots). */
export function currentRequestId(d: Domain): string | null {
  return d.journal?.requestId ?? null;
}

export function noteRecord(d: Domain, effect: RecordEffect): void {
  d.journal?.records.push(effect);
}

export function noteSideEffect(d: Domain, note: SideEffectNote): void {
  d.journal?.sideEffects.push(note);
}

/** A person from a contact row's fields. */
export function personOf(c: { id: string; email: string | null; phone: string | null }): Person {
  return { contact_id: c.id, email: c.email, phone: c.phone };
}
