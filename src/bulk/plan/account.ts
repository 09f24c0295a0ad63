/**
 * What the account holds, read for a plan (docs/importer.md, "Planning an import"): the contacts
 * the file's e-mails and phones name, with their consent. Two ways to read it, chosen by the
 * counts: every page of `GET /v1/contacts` (250 contacts a request), or one filtered look-up per
 * identity (`?email=` / `?phone=`). The account's size is not known beforehand, so the reader
 * starts with pages and switches to look-ups once it has sent as many page requests as the
 * look-ups would cost: never more than twice the requests of the better choice.
 */
import { ApiError } from '../../client/errors.js';
import type { ApiClient, CallOptions } from '../../client/types.js';
import type { EmailConsent, SmsConsent } from '../../contract/consent.js';
import type { Contact } from '../../contract/types.js';

/** The part of a contact a plan needs. */
export interface KnownContact {
  id: string;
  email: string | null;
  phone: string | null;
  email_consent: EmailConsent;
  sms_consent: SmsConsent;
}

/** The contacts read, found by e-mail (lower-case) and phone (E.164). */
export interface AccountIndex {
  byEmail: Map<string, KnownContact>;
  byPhone: Map<string, KnownContact>;
}

export function emptyAccount(): AccountIndex {
  return { byEmail: new Map(), byPhone: new Map() };
}

export function addContact(index: AccountIndex, c: Contact | KnownContact): void {
  const k: KnownContact = { id: c.id, email: c.email, phone: c.phone, email_consent: c.email_consent, sms_consent: c.sms_consent };
  if (k.email) index.byEmail.set(k.email.toLowerCase(), k);
  if (k.phone) index.byPhone.set(k.phone, k);
}

export type ReadMethod = 'pages' | 'lookups';

/** How the account was read: said in the plan. */
export interface AccountRead {
  method: ReadMethod;
  pages: number;
  lookups: number;
  /** Contacts seen on the pages read (all of them when `method` is pages) plus those found by look-up. */
  contactsSeen: number;
}

export interface ReadAccountOptions {
  /** `auto` (default): pages until they cost as much as the look-ups would, then look-ups. */
  method?: ReadMethod | 'auto';
  signal?: AbortSignal;
  onRetry?: CallOptions['onRetry'];
  /** Called after each request with the counts so far (progress on a large account). */
  onProgress?: (read: AccountRead) => void;
  pageSize?: number;
  lookupConcurrency?: number;
}

export const PAGE_SIZE = 250;
const LOOKUP_CONCURRENCY = 8;

/**
 * Reads the contacts that the identities name (every contact, when all pages are read). Throws
 * the client's errors (a missing `contacts_read` scope is an exit 3 for the caller).
 */
export interface Identities {
  emails: ReadonlySet<string>;
  phones: ReadonlySet<string>;
}

/**
 * The file's people as the reader needs them: how many e-mails and phones it names (what the
 * look-ups would cost at most), and the distinct ones, worked out only when look-ups are made.
 */
export interface FileIdentities {
  count: number;
  distinct(): Identities;
}

export function identitiesOf(ids: Identities): FileIdentities {
  return { count: ids.emails.size + ids.phones.size, distinct: () => ids };
}

export async function readAccount(
  client: ApiClient,
  /** The file's e-mails and phones; a promise when the file is still being read (pages are read meanwhile). */
  fileIdentities: FileIdentities | Promise<FileIdentities>,
  opts: ReadAccountOptions = {},
): Promise<{ index: AccountIndex; read: AccountRead }> {
  const index = emptyAccount();
  let identities: FileIdentities | undefined = fileIdentities instanceof Promise ? undefined : fileIdentities;
  const known = fileIdentities instanceof Promise ? fileIdentities.then((i) => (identities = i)) : Promise.resolve(fileIdentities);
  // A failed file read is the caller's to report; here it only means: stop paging.
  known.catch(() => {});
  const lookupCost = () => (identities ? identities.count : Number.POSITIVE_INFINITY);
  const method = opts.method ?? 'auto';
  const read: AccountRead = { method: 'pages', pages: 0, lookups: 0, contactsSeen: 0 };
  const call: CallOptions = { signal: opts.signal, onRetry: opts.onRetry };
  if (method !== 'lookups') {
    let cursor: string | undefined;
    for (;;) {
      // While the file is still being read its identities are unknown: keep paging (both wait on I/O).
      if (method === 'auto' && read.pages >= lookupCost()) break;
      const page = await client.listContacts({ limit: opts.pageSize ?? PAGE_SIZE, cursor }, call);
      read.pages++;
      read.contactsSeen += page.data.length;
      for (const c of page.data) addContact(index, c);
      opts.onProgress?.(read);
      if (!page.nextCursor || page.nextCursor === cursor) {
        await known;
        return { index, read };
      }
      cursor = page.nextCursor;
    }
  }
  const ids = (await known).distinct();
  read.method = 'lookups';
  const todo: Array<{ email: string } | { phone: string }> = [];
  for (const email of ids.emails) if (!index.byEmail.has(email)) todo.push({ email });
  for (const phone of ids.phones) if (!index.byPhone.has(phone)) todo.push({ phone });
  let next = 0;
  const found = new Set<string>();
  const worker = async () => {
    while (next < todo.length) {
      const filter = todo[next++] as { email: string } | { phone: string };
      const page = await client.listContacts({ ...filter, limit: 1 }, call);
      read.lookups++;
      for (const c of page.data) {
        if (found.has(c.id)) continue;
        found.add(c.id);
        read.contactsSeen++;
        addContact(index, c);
      }
      opts.onProgress?.(read);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.lookupConcurrency ?? LOOKUP_CONCURRENCY, todo.length) }, worker));
  return { index, read };
}

/** The merchant-suppressed contacts (`GET /v1/contacts?email_consent=suppressed`, every page): the unsuppression guard's read. */
export async function readSuppressed(client: ApiClient, opts: { signal?: AbortSignal } = {}): Promise<AccountIndex> {
  const index = emptyAccount();
  for await (const page of client.paginateContacts({ email_consent: 'suppressed' }, { signal: opts.signal, pageSize: PAGE_SIZE })) {
    for (const c of page) addContact(index, c);
  }
  return index;
}

/**
 * The contacts of a list of ids (the `--ids-file` verbs' plan): every page while that costs no
 * more requests than one `GET /v1/contacts/{id}` per id would, else those look-ups for the ids not
 * yet seen. An id absent from the account maps to null.
 */
export async function readContactsById(
  client: ApiClient,
  ids: ReadonlySet<string>,
  opts: ReadAccountOptions = {},
): Promise<{ byId: Map<string, KnownContact | null>; read: AccountRead }> {
  const byId = new Map<string, KnownContact | null>();
  const method = opts.method ?? 'auto';
  const read: AccountRead = { method: 'pages', pages: 0, lookups: 0, contactsSeen: 0 };
  const call: CallOptions = { signal: opts.signal, onRetry: opts.onRetry };
  const known = (c: Contact): KnownContact => ({
    id: c.id,
    email: c.email,
    phone: c.phone,
    email_consent: c.email_consent,
    sms_consent: c.sms_consent,
  });
  if (method !== 'lookups') {
    let cursor: string | undefined;
    for (;;) {
      if (method === 'auto' && read.pages >= ids.size) break;
      const page = await client.listContacts({ limit: opts.pageSize ?? PAGE_SIZE, cursor }, call);
      read.pages++;
      read.contactsSeen += page.data.length;
      for (const c of page.data) if (ids.has(c.id)) byId.set(c.id, known(c));
      opts.onProgress?.(read);
      if (!page.nextCursor || page.nextCursor === cursor) {
        for (const id of ids) if (!byId.has(id)) byId.set(id, null);
        return { byId, read };
      }
      cursor = page.nextCursor;
    }
  }
  read.method = 'lookups';
  const todo = [...ids].filter((id) => !byId.has(id));
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const id = todo[next++] as string;
      try {
        const c = await client.getContact(id, call);
        read.contactsSeen++;
        byId.set(id, known(c));
      } catch (err) {
        if (!(err instanceof ApiError && err.kind === 'not_found')) throw err;
        byId.set(id, null);
      }
      read.lookups++;
      opts.onProgress?.(read);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.lookupConcurrency ?? LOOKUP_CONCURRENCY, todo.length) }, worker));
  return { byId, read };
}
