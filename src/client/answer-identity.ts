/**
 * Whether an answer belongs to its request. HTTP/1.1 pairs answers with requests by their order
 * on a connection only: a server (or a middlebox) that sends an answer nobody asked for, or one
 * before the request, shifts every later answer on that connection onto the wrong request. Where
 * the service echoes what identifies a request, the client checks it:
 * - an order upsert: the answer's `order_id` is the one sent;
 * - a contact create: its `email` (compared lower-cased) and `phone` (E.164, when one was sent
 *   as such) are the ones sent; a contact patch: its `id` is the one in the path;
 * - an event: the answer's `id` was not answered before in this run (AnswerLedger), unless both
 *   requests carried the same `event_id` (the sandbox's deduplication answers the first id again).
 * Only the answer's own (top-level) fields count: an answer that names the request in a nested
 * field is another request's answer. Each check returns why the answer does not match, or
 * undefined. Pure: no I/O.
 */

/** The object of an answer, bare or wrapped as {"data": {...}}. */
function objectOf(body: unknown): Record<string, unknown> | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const data = b.data;
  if (data && typeof data === 'object' && !Array.isArray(data) && !('id' in b) && !('order_id' in b))
    return data as Record<string, unknown>;
  return b;
}

function shown(v: unknown): string {
  return v === undefined ? 'none' : JSON.stringify(v);
}

/**
 * An order's answer: its own top-level `order_id` is the one sent (an answer naming the order only
 * in a nested field, or in another field's string, is another answer). The usual answer is read
 * from its text without parsing (`topLevelString`); any doubt is parsed (`body()`) and compared.
 */
export function orderAnswerMismatch(orderId: unknown, bytes: Buffer, body: () => unknown): string | undefined {
  const sent = String(orderId);
  if (topLevelString(bytes.toString('utf8'), 'order_id') === sent) return undefined;
  const answered = objectOf(body())?.order_id;
  if (answered !== undefined && answered !== null && typeof answered !== 'object' && String(answered) === sent) return undefined;
  return `sent order_id ${JSON.stringify(sent)}, answered ${shown(answered)}`;
}

/**
 * A string field of the answer's own object, read from its text without parsing: the value when
 * `"name":"` occurs once, with no other object opened before it (the field is the top-level
 * object's, not a nested one's) and no escape in the value; otherwise undefined (the caller
 * parses). A `{` inside an earlier string only sends the caller to the parser, never the other way.
 */
export function topLevelString(text: string, name: string): string | undefined {
  const key = `"${name}":"`;
  const at = text.indexOf(key);
  if (at < 0) return undefined;
  const open = text.indexOf('{');
  const second = text.indexOf('{', open + 1);
  if (open < 0 || open > at || (second >= 0 && second < at)) return undefined;
  return soleField(text, name);
}

/**
 * A string field of an answer read from its bytes, without parsing: the value when `"name":"`
 * occurs once in the answer and the value holds no escape; otherwise undefined (the caller parses).
 * Inside a JSON string every quote is escaped, so the sequence is the field's key; occurring once,
 * it is the only field of that name in the answer (the contact it describes, bare or wrapped).
 */
export function soleStringField(bytes: Buffer, name: string): string | undefined {
  // Searched as text: decoding a small answer once and V8's string search cost about half of
  // Buffer#indexOf's native calls (measured when it was written; history in git: git log -S "Round 5: contacts and presets" -- docs/performance.md).
  return soleField(bytes.toString('utf8'), name);
}

function soleField(text: string, name: string): string | undefined {
  const key = `"${name}":"`;
  const at = text.indexOf(key);
  if (at < 0 || text.indexOf(key, at + key.length) >= 0) return undefined;
  const start = at + key.length;
  const end = text.indexOf('"', start);
  if (end < 0) return undefined;
  const value = text.slice(start, end);
  return value.includes('\\') ? undefined : value;
}

const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * A contact create's answer: the e-mail (lower-cased) and the E.164 phone sent are the ones
 * answered. `bytes` first: an answer whose only `email` (and `phone`) field is exactly the value
 * sent matches without being parsed; otherwise the body is parsed (`body()`) and compared.
 */
export function createdContactMismatch(sent: { email?: unknown; phone?: unknown }, bytes: Buffer, body: () => unknown): string | undefined {
  const email = typeof sent.email === 'string' && sent.email !== '' ? sent.email : undefined;
  const phone = typeof sent.phone === 'string' && E164.test(sent.phone) ? sent.phone : undefined;
  if ((email !== undefined || phone !== undefined) && answeredAsSent(bytes.toString('utf8'), email, phone)) return undefined;
  const c = objectOf(body());
  if (c === undefined) return 'the answer holds no contact';
  return emailMismatch(email, c.email) ?? phoneMismatch(phone, c.phone);
}

/** Whether the answer's only top-level `email` and `phone` are exactly those sent (read unparsed). */
function answeredAsSent(text: string, email: string | undefined, phone: string | undefined): boolean {
  return (
    (email === undefined || topLevelString(text, 'email') === email) && (phone === undefined || topLevelString(text, 'phone') === phone)
  );
}

function emailMismatch(email: string | undefined, answered: unknown): string | undefined {
  if (email === undefined) return undefined;
  if (typeof answered === 'string' && answered.toLowerCase() === email.toLowerCase()) return undefined;
  return `sent email ${JSON.stringify(email)}, answered ${shown(answered)}`;
}

function phoneMismatch(phone: string | undefined, answered: unknown): string | undefined {
  if (phone === undefined || answered === phone) return undefined;
  return `sent phone ${phone}, answered ${shown(answered)}`;
}

/** A contact's answer to a request naming it by id (PATCH /v1/contacts/{id}, the legacy unsubscribe). */
export function contactIdMismatch(id: string, body: unknown): string | undefined {
  const answered = objectOf(body)?.id;
  return answered === id ? undefined : `sent to contact ${JSON.stringify(id)}, answered for ${shown(answered)}`;
}

/** The `id` of an event's answer, read from its bytes without parsing when it has the usual shape. */
export function eventAnswerId(bytes: Buffer, body: () => unknown): string | undefined {
  const fast = topLevelString(bytes.toString('utf8'), 'id');
  if (fast !== undefined) return fast;
  const id = objectOf(body())?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * An event's answer without an id: accepted when it is empty or JSON (a service may answer 200
 * with no id), refused when it is text that is not JSON (a captive portal's or a proxy's page).
 */
export function eventAnswerShapeMismatch(body: unknown): string | undefined {
  if (typeof body !== 'string' || body.trim() === '') return undefined;
  return `the answer is not the service's (not JSON: ${JSON.stringify(body.slice(0, 40))})`;
}

/** 32-bit FNV-1a of a string's UTF-16 code units, from a given basis. */
function fnv(text: string, basis: number): number {
  let h = basis;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A 53-bit hash (never 0), exact in a double. */
function hash53(text: string): number {
  return fnv(text, 0x811c9dc5) * 2 ** 21 + (fnv(text, 0x050c5d1f) >>> 11) + 1;
}

/**
 * The event ids answered in a run, kept as 53-bit hashes in one open-addressing table (8 bytes a
 * slot, at most half full: about 16 MiB for a million events, not a Set of strings). Two different
 * ids share a hash with a probability of about n²/2⁵⁴ (5·10⁻⁵ for a million): such a pair would be
 * reported as a repeated answer, never the other way round.
 */
export class AnswerLedger {
  private slots = new Float64Array(1024);
  private count = 0;
  /** The hash of the `event_id` sent, for the answers of requests that carried one. */
  private readonly tags = new Map<number, number>();

  /**
   * Notes an event's answer `id` for a request that carried `eventId` (or none); returns why it
   * does not belong to its request (the id was answered before, and not for the same event_id).
   */
  note(id: string, eventId?: string): string | undefined {
    const key = hash53(id);
    const tag = eventId === undefined || eventId === '' ? 0 : fnv(eventId, 0x811c9dc5) + 1;
    const mask = this.slots.length - 1;
    let i = key % this.slots.length;
    for (;;) {
      const slot = this.slots[i] as number;
      if (slot === 0) break;
      if (slot === key) {
        const before = this.tags.get(key) ?? 0;
        if (tag !== 0 && before === tag) return undefined;
        return `the event id ${id} was already answered to another request of this run`;
      }
      i = (i + 1) & mask;
    }
    this.slots[i] = key;
    if (tag !== 0) this.tags.set(key, tag);
    if (++this.count * 2 > this.slots.length) this.grow();
    return undefined;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    const mask = this.slots.length - 1;
    for (const key of old) {
      if (key === 0) continue;
      let i = key % this.slots.length;
      while (this.slots[i] !== 0) i = (i + 1) & mask;
      this.slots[i] = key;
    }
  }
}
