/**
 * The API client's public surface. Commands and the importer code against this interface;
 * client/ implements it on undici (transport.ts). Knows nothing of terminals.
 */

import type { Operation } from '../contract/scopes.js';
import type { Contact, ContactListFilter, ContactWrite, EventAccepted, EventInput, Order, OrderInput } from '../contract/types.js';
import type { IncompleteListingError } from './errors.js';
import type { HeaderBag } from './response.js';

/** Where the client reports what it does; the CLI wires this to --debug and warnings. */
export interface ClientLogger {
  /** HTTP trace lines (method, URL, status, duration, attempt, request id), already redacted. */
  debug(message: string): void;
  /** Things the user should know (deprecations, fewer scopes granted). */
  warn(message: string): void;
  /**
   * What the client is doing while a person waits and nothing needs doing (retrying a connection
   * that could not be made); the CLI shows it in human mode only.
   */
  notice?(message: string): void;
}

export interface RetryInfo {
  /** The attempt that just failed (1-based). */
  attempt: number;
  method: string;
  path: string;
  status?: number;
  /** Network failure kind when there was no HTTP answer. */
  error?: string;
  /**
   * How long the client waits before the next attempt. `onRetry` may lower a client-paced wait
   * (a backoff, not one the service asked for): a bulk run waiting out an outage probes the
   * service at least every few seconds, whatever the backoff has grown to.
   */
  delayMs: number;
  /** True when the wait came from the service (Retry-After / RateLimit-Reset). */
  serverDirected: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * How long to wait with no answer at all before giving up (default: the client's, 60 s). A bulk
   * run passes Infinity: its outage gate waits out silence with its own patience (--max-outage).
   */
  patienceMs?: number;
  /** Called before each retry wait: the importer lowers its concurrency on 429s through this. */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Called with an answer's headers (every attempt's) when they carry rate-limit headers
   * (`RateLimit-Remaining` or `X-RateLimit-Remaining`): a bulk run paces itself on them.
   */
  onRateHeaders?: (headers: HeaderBag) => void;
  /**
   * The caller knows that sending this write again is harmless (a repeated contact create answers
   * 409, a repeated PATCH writes the same values): retry it after an answer that may follow an
   * applied write (500/502/504, a connection lost after sending), like an idempotent request.
   * `uncertain` (on the result, or on the ApiError) still says an earlier attempt may have applied.
   */
  repeatable?: boolean;
}

/**
 * A successful answer. `body`, `headers` and `requestId` may be getters worked out on first
 * access (the client's LazyResult: an import reads only `status`), so copy fields by name or
 * through JSON.stringify (toJSON), not with a spread.
 */
export interface ApiResult<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  requestId?: string;
  /** Number of attempts made (1 = no retry). */
  attempts: number;
  /**
   * An earlier attempt of this request ended without a definite answer (connection lost after
   * sending, timeout, 500/502/504): the service may have applied it before this answer.
   */
  uncertain: boolean;
  /**
   * A string field of the answer's object: read from the answer's bytes when it occurs there once
   * (answer-identity.ts soleStringField: no parse), else from `body`. The pipeline's answers have
   * it; an import reads a created contact's `id` with it.
   */
  stringField?(name: string): string | undefined;
}

export interface ContactPageResult {
  data: Contact[];
  nextCursor: string | null;
  /**
   * The page named a next page with a cursor the client does not understand (a number, an
   * object): the listing cannot go on past this page (CursorGuard.checkPage throws it).
   */
  invalidCursor?: IncompleteListingError;
}

export interface RawRequest {
  method: string;
  /** Path relative to the base URL, with or without a query string. */
  path: string;
  query?: Record<string, string | string[] | undefined>;
  /** A JSON value to send, or a raw string/Buffer with `contentType`. */
  body?: unknown;
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiClient {
  readonly baseUrl: string;

  listContacts(filter: ContactListFilter & { limit?: number; cursor?: string }, opts?: CallOptions): Promise<ContactPageResult>;
  /** Walks every page lazily, one page at a time (never holds more than one page). */
  paginateContacts(filter: ContactListFilter, opts?: CallOptions & { pageSize?: number }): AsyncIterable<Contact[]>;
  getContact(id: string, opts?: CallOptions): Promise<Contact>;
  /** 201 created, or 200 when the service lifted a merchant suppression (open-points). */
  createContact(body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>>;
  patchContact(id: string, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>>;
  /** The deprecated POST /v1/contacts/{id}/unsubscribe; the client warns about the deprecation. */
  unsubscribeContactLegacy(id: string, opts?: CallOptions): Promise<ApiResult<Contact>>;
  deleteContact(id: string, opts?: CallOptions): Promise<void>;

  /** Idempotent upsert: status 201 (created) or 200 (updated); retried by the idempotent policy. */
  upsertOrder(order: OrderInput, opts?: CallOptions & { integrationToken?: string }): Promise<ApiResult<Order>>;

  /** Not idempotent: retried only when the event certainly was not processed (429, 503, refused). */
  sendEvent(event: EventInput, opts?: CallOptions): Promise<ApiResult<EventAccepted>>;

  /** A raw authenticated request (svc api). Resolves for every HTTP status; throws only without an answer. */
  request(req: RawRequest): Promise<ApiResult<unknown>>;

  /**
   * Fails with MissingScopeError before any request when the cached granted scopes are known and
   * lack what the operation needs (API tokens, whose scopes are unknown, pass).
   */
  ensureScope(operation: Operation): Promise<void>;

  /**
   * Resolves true once any request of this client has had an HTTP answer from the address (any
   * status: a retried 429 or 503, the token request's, the route probe's). Sends nothing itself.
   */
  serviceAnswered(): Promise<boolean>;

  close(): Promise<void>;
}
