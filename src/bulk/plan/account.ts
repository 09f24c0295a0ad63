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
  const k = knownOf(c);
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
  const read = emptyRead();
  // While the file is still being read its identities are unknown: keep paging (both wait on I/O).
  const budget = () => (identities ? identities.count : Number.POSITIVE_INFINITY);
  if (await readAllPages(client, read, opts, budget, (c) => addContact(index, c))) {
    await known;
    return { index, read };
  }
  const ids = (await known).distinct();
  read.method = 'lookups';
  const todo: Array<{ email: string } | { phone: string }> = [];
  for (const email of ids.emails) if (!index.byEmail.has(email)) todo.push({ email });
  for (const phone of ids.phones) if (!index.byPhone.has(phone)) todo.push({ phone });
  const found = new Set<string>();
  const call = callOptions(opts);
  await inParallel(todo, opts, async (filter) => {
    const page = await client.listContacts({ ...filter, limit: 1 }, call);
    read.lookups++;
    for (const c of page.data) {
      if (found.has(c.id)) continue;
      found.add(c.id);
      read.contactsSeen++;
      addContact(index, c);
    }
    opts.onProgress?.(read);
  });
  return { index, read };
}

function emptyRead(): AccountRead {
  return { method: 'pages', pages: 0, lookups: 0, contactsSeen: 0 };
}

function callOptions(opts: ReadAccountOptions): CallOptions {
  return { signal: opts.signal, onRetry: opts.onRetry };
}

/**
 * Reads pages of `GET /v1/contacts`, giving each contact to `onContact`: true once the last page
 * is read; false when, in `auto`, the pages read reach `budget()` (what the look-ups would cost)
 * first, or at once when the method is `lookups`.
 */
async function readAllPages(
  client: ApiClient,
  read: AccountRead,
  opts: ReadAccountOptions,
  budget: () => number,
  onContact: (c: Contact) => void,
): Promise<boolean> {
  const method = opts.method ?? 'auto';
  if (method === 'lookups') return false;
  const call = callOptions(opts);
  let cursor: string | undefined;
  for (;;) {
    if (method === 'auto' && read.pages >= budget()) return false;
    const page = await client.listContacts({ limit: opts.pageSize ?? PAGE_SIZE, cursor }, call);
    read.pages++;
    read.contactsSeen += page.data.length;
    for (const c of page.data) onContact(c);
    opts.onProgress?.(read);
    if (!page.nextCursor || page.nextCursor === cursor) return true;
    cursor = page.nextCursor;
  }
}

/** Runs `work` on every item, `opts.lookupConcurrency` (8) at a time. */
async function inParallel<T>(todo: readonly T[], opts: ReadAccountOptions, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < todo.length) await work(todo[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(opts.lookupConcurrency ?? LOOKUP_CONCURRENCY, todo.length) }, worker));
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
  const read = emptyRead();
  const onContact = (c: Contact) => {
    if (ids.has(c.id)) byId.set(c.id, knownOf(c));
  };
  if (await readAllPages(client, read, opts, () => ids.size, onContact)) {
    for (const id of ids) if (!byId.has(id)) byId.set(id, null);
    return { byId, read };
  }
  read.method = 'lookups';
  const call = callOptions(opts);
  await inParallel(
    [...ids].filter((id) => !byId.has(id)),
    opts,
    async (id) => {
      try {
        const c = await client.getContact(id, call);
        read.contactsSeen++;
        byId.set(id, knownOf(c));
      } catch (err) {
        if (!(err instanceof ApiError && err.kind === 'not_found')) throw err;
        byId.set(id, null);
      }
      read.lookups++;
      opts.onProgress?.(read);
    },
  );
  return { byId, read };
}

function knownOf(c: Contact | KnownContact): KnownContact {
  return { id: c.id, email: c.email, phone: c.phone, email_consent: c.email_consent, sms_consent: c.sms_consent };
}
