/**
 * The request log: every request the sandbox answered, in a bounded ring (at most `maxEntries`
 * entries and `maxBytes` of bodies; the oldest go first). Entries are kept as received (bodies
 * unmasked, cut at 16 KiB) so recording costs a few object fields per request; masking and the
 * explanation are computed when an entry is read (view.ts).
 */

import type { IncomingHttpHeaders } from 'node:http';
import type { Journal } from '../domain/journal.js';

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
  /** The request's headers as received (kept for replay, curl and HAR; shown masked only). */
  headers?: IncomingHttpHeaders;
  /** What the request wrote and caused (service writes only). */
  effects?: Journal;
  /** The injected fault it got, and whether its write was applied (null: not a write). */
  fault?: { kind: string; writeApplied: boolean | null };
  /** The request id this one replays, and the ids of its own replays. */
  replayOf?: string;
  replays?: string[];
  size: number;
}

export type NewEntry = Omit<LoggedRequest, 'seq' | 'size' | 'replays'>;

/** When a credential was last used, and by which request. */
export interface LastUse {
  at: number;
  requestId: string;
}

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
  /** Lower-case text to find in the id, path, query, bodies or the people of the effects. */
  search?: string;
  replayOf?: string;
  /** How `search` is matched (the admin API matches masked text: a secret is never found). */
  searchable?: (e: LoggedRequest, needle: string) => boolean;
}

/** Does any of the entry's texts hold `needle` (lower case)? Bodies are searched as stored; see searchText. */
export function holds(e: LoggedRequest, needle: string): boolean {
  if (e.requestId.toLowerCase().includes(needle)) return true;
  if (e.path.toLowerCase().includes(needle) || e.query.toLowerCase().includes(needle)) return true;
  if (e.requestBody?.toString('utf8').toLowerCase().includes(needle)) return true;
  if (e.responseBody.toLowerCase().includes(needle)) return true;
  for (const r of e.effects?.records ?? []) {
    if (r.id.toLowerCase().includes(needle)) return true;
    const p = r.person;
    if (p && (p.email?.toLowerCase().includes(needle) || p.phone?.includes(needle))) return true;
  }
  return false;
}

/** Each filter's test: true when the entry passes it (a filter not set passes every entry). */
const FILTER_TESTS: ((e: LoggedRequest, f: RequestFilter) => boolean)[] = [
  (e, f) => {
    const kind = f.kind ?? 'api';
    return kind === 'api' ? e.kind !== 'admin' : kind === 'all' || e.kind === kind;
  },
  (e, f) => f.status === undefined || e.status === f.status,
  (e, f) => f.statusClass === undefined || Math.floor(e.status / 100) === f.statusClass,
  (e, f) => f.pathPrefix === undefined || e.path.startsWith(f.pathPrefix),
  (e, f) => f.method === undefined || e.method === f.method,
  (e, f) => f.credential === undefined || e.credential.id === f.credential || e.credential.name === f.credential,
  (e, f) => f.requestId === undefined || e.requestId === f.requestId,
  (e, f) => f.businessId === undefined || e.businessId === f.businessId,
  (e, f) => f.since === undefined || e.at >= f.since,
  (e, f) => f.replayOf === undefined || e.replayOf === f.replayOf,
  (e, f) => f.search === undefined || (f.searchable ?? holds)(e, f.search),
];

/** Does the entry pass the filter? (kind defaults to service and token requests, not admin calls) */
export function matches(e: LoggedRequest, f: RequestFilter): boolean {
  return FILTER_TESTS.every((test) => test(e, f));
}

export class RequestLog {
  private readonly slots: (LoggedRequest | undefined)[];
  /** Sequence number of the oldest entry kept, and of the next one. */
  private first = 1;
  private next = 1;
  private bytes = 0;
  private readonly listeners = new Set<(e: LoggedRequest) => void>();
  /** Credential id → its last use (since the sandbox started; survives clear()). */
  readonly lastUse = new Map<string, LastUse>();
  /** Replays under way: the one-time mark a replay carries → the request it replays. */
  private readonly pendingReplays = new Map<string, string>();

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

  /**
   * Keeps an entry. Listeners hear of it when `settle` gives its duration (the answer's last
   * byte is sent after the entry is made); `settled: true` tells them at once.
   */
  add(entry: NewEntry, settled = true): LoggedRequest {
    const e = entry as LoggedRequest;
    e.replays = undefined;
    if (this.next - this.first >= this.maxEntries) this.dropOldest();
    e.seq = this.next++;
    e.size = ENTRY_OVERHEAD + (e.requestBody?.length ?? 0) + e.responseBody.length * 2 + e.path.length * 2 + e.query.length * 2;
    this.slots[e.seq % this.maxEntries] = e;
    this.bytes += e.size;
    while (this.bytes > this.maxBytes && this.next - this.first > 1) this.dropOldest();
    const id = e.credential.id;
    if (id !== null && (e.credential.kind === 'api_token' || e.credential.kind === 'oauth_app'))
      this.lastUse.set(id, { at: e.at, requestId: e.requestId });
    if (e.replayOf !== undefined) {
      const original = this.byRequestId(e.replayOf);
      if (original) {
        original.replays ??= [];
        original.replays.push(e.requestId);
      }
    }
    if (settled) this.announce(e);
    return e;
  }

  /** The entry's final duration (its answer's last byte sent); listeners hear of it now. */
  settle(e: LoggedRequest, durationMs: number): void {
    e.durationMs = durationMs;
    this.announce(e);
  }

  private announce(e: LoggedRequest): void {
    for (const l of this.listeners) l(e);
  }

  /** A one-time mark for a replay of `requestId`: the replayed request carries it, add() links both. */
  markReplay(mark: string, requestId: string): void {
    this.pendingReplays.set(mark, requestId);
  }

  /** The request a replay mark stands for (once; undefined for an unknown mark). */
  takeReplay(mark: string): string | undefined {
    const id = this.pendingReplays.get(mark);
    this.pendingReplays.delete(mark);
    return id;
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
