/**
 * The request log: every request the sandbox answered, in a bounded ring (at most `maxEntries`
 * entries and `maxBytes` of bodies; the oldest go first). Entries are kept as received (bodies
 * unmasked, cut at 16 KiB) so recording costs a few object fields per request; masking and the
 * explanation are computed when an entry is read (view.ts).
 */

/** Bodies are cut at this many bytes. */
export const BODY_CAP = 16 * 1024;
export const DEFAULT_LOG_ENTRIES = 10_000;
export const DEFAULT_LOG_BYTES = 64 * 1024 * 1024;
/** What an entry costs besides its bodies (fields, strings, object headers), counted against maxBytes. */
const ENTRY_OVERHEAD = 400;

export type RequestKind = 'service' | 'token' | 'admin';

/** Who made a request, by name and kind: never a secret. */
export interface Credential {
  kind: 'api_token' | 'oauth_app' | 'unknown_token' | 'unknown_client' | 'none';
  /** The API token's id or the OAuth app's client id (neither is a secret). */
  id: string | null;
  name: string | null;
}

export interface LoggedRequest {
  seq: number;
  requestId: string;
  at: number;
  kind: RequestKind;
  businessId: string | null;
  credential: Credential;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  requestType: string | undefined;
  /** As received (a Buffer) or undefined; at most BODY_CAP bytes. */
  requestBody: Buffer | undefined;
  requestBytes: number;
  responseType: string | undefined;
  responseBody: string;
  responseBytes: number;
  /** Codes of the deprecated or removed usages found (deprecations.ts). */
  deprecations: string[];
  size: number;
}

export type NewEntry = Omit<LoggedRequest, 'seq' | 'size'>;

export interface RequestFilter {
  kind?: RequestKind | 'all';
  /** 4xx, 5xx… or an exact status. */
  statusClass?: number;
  status?: number;
  pathPrefix?: string;
  method?: string;
  /** A credential's id or name. */
  credential?: string;
  requestId?: string;
  businessId?: string;
  since?: number;
}

/** Does the entry pass the filter? (kind defaults to service and token requests, not admin calls) */
export function matches(e: LoggedRequest, f: RequestFilter): boolean {
  const kind = f.kind ?? 'api';
  if (kind === 'api' ? e.kind === 'admin' : kind !== 'all' && e.kind !== kind) return false;
  if (f.status !== undefined && e.status !== f.status) return false;
  if (f.statusClass !== undefined && Math.floor(e.status / 100) !== f.statusClass) return false;
  if (f.pathPrefix !== undefined && !e.path.startsWith(f.pathPrefix)) return false;
  if (f.method !== undefined && e.method !== f.method) return false;
  if (f.credential !== undefined && e.credential.id !== f.credential && e.credential.name !== f.credential) return false;
  if (f.requestId !== undefined && e.requestId !== f.requestId) return false;
  if (f.businessId !== undefined && e.businessId !== f.businessId) return false;
  if (f.since !== undefined && e.at < f.since) return false;
  return true;
}

export class RequestLog {
  private readonly slots: (LoggedRequest | undefined)[];
  /** Sequence number of the oldest entry kept, and of the next one. */
  private first = 1;
  private next = 1;
  private bytes = 0;
  private readonly listeners = new Set<(e: LoggedRequest) => void>();

  constructor(
    readonly maxEntries = DEFAULT_LOG_ENTRIES,
    readonly maxBytes = DEFAULT_LOG_BYTES,
  ) {
    this.slots = new Array(maxEntries);
  }

  get size(): number {
    return this.next - this.first;
  }

  /** The newest sequence number (0 when nothing was logged yet). */
  get latest(): number {
    return this.next - 1;
  }

  add(entry: NewEntry): LoggedRequest {
    const e = entry as LoggedRequest;
    if (this.next - this.first >= this.maxEntries) this.dropOldest();
    e.seq = this.next++;
    e.size = ENTRY_OVERHEAD + (e.requestBody?.length ?? 0) + e.responseBody.length * 2 + e.path.length * 2 + e.query.length * 2;
    this.slots[e.seq % this.maxEntries] = e;
    this.bytes += e.size;
    while (this.bytes > this.maxBytes && this.next - this.first > 1) this.dropOldest();
    for (const l of this.listeners) l(e);
    return e;
  }

  private dropOldest(): void {
    const i = this.first % this.maxEntries;
    const old = this.slots[i];
    if (old?.seq === this.first) {
      this.bytes -= old.size;
      this.slots[i] = undefined;
    }
    this.first++;
  }

  get(seq: number): LoggedRequest | undefined {
    if (seq < this.first || seq >= this.next) return undefined;
    const e = this.slots[seq % this.maxEntries];
    return e?.seq === seq ? e : undefined;
  }

  /** Newest first: up to `limit` entries matching `filter` with a sequence number below `before`. */
  page(filter: RequestFilter, limit: number, before?: number): { data: LoggedRequest[]; next: number | null } {
    const data: LoggedRequest[] = [];
    let seq = Math.min(before === undefined ? this.next - 1 : before - 1, this.next - 1);
    for (; seq >= this.first; seq--) {
      const e = this.get(seq);
      if (!e || !matches(e, filter)) continue;
      if (data.length === limit) return { data, next: (data[data.length - 1] as LoggedRequest).seq };
      data.push(e);
    }
    return { data, next: null };
  }

  /** Oldest first: the entries after `after` matching the filter (for streams catching up). */
  after(after: number, filter: RequestFilter): LoggedRequest[] {
    const out: LoggedRequest[] = [];
    for (let seq = Math.max(after + 1, this.first); seq < this.next; seq++) {
      const e = this.get(seq);
      if (e && matches(e, filter)) out.push(e);
    }
    return out;
  }

  /** The entry of a request id (the newest one wins; ids are unique within a run). */
  byRequestId(id: string): LoggedRequest | undefined {
    for (let seq = this.next - 1; seq >= this.first; seq--) {
      const e = this.get(seq);
      if (e?.requestId === id) return e;
    }
    return undefined;
  }

  /** Calls `listener` with every new entry until the returned function is called. */
  subscribe(listener: (e: LoggedRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.slots.fill(undefined);
    this.first = this.next;
    this.bytes = 0;
  }
}

/** How many entries of the log match the filter. */
export function countMatching(log: RequestLog, filter: RequestFilter): number {
  let n = 0;
  for (let seq = log.latest; seq > log.latest - log.size; seq--) {
    const e = log.get(seq);
    if (e && matches(e, filter)) n++;
  }
  return n;
}
