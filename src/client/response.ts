/**
 * Reading answers tolerantly (open-points.md "client tolerance"): error bodies in the service's
 * and in the OAuth shape or not JSON at all, lists under several names, next-page cursors in
 * several places, single objects bare or wrapped.
 */
import type { FieldError } from '../contract/errors.js';
import { type ApiErrorInit, IncompleteListingError } from './errors.js';

/** Response headers as the pool gives them (lower-case names; repeated headers as arrays, as in Node). */
export type HeaderBag = Record<string, string | string[] | undefined>;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The first value of a header (lower-case name), if present. */
export function firstHeader(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  409: 'conflict',
  413: 'payload too large',
  415: 'unsupported media type',
  422: 'unprocessable entity',
  429: 'too many requests',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

function fieldErrors(v: unknown): FieldError[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: FieldError[] = [];
  for (const d of v) {
    if (d && typeof d === 'object') {
      const o = d as Record<string, unknown>;
      out.push({ field: String(o.field ?? o.path ?? o.name ?? ''), message: String(o.message ?? o.reason ?? '') });
    }
  }
  return out.length ? out : undefined;
}

/**
 * Builds the ApiError fields from an error answer: `{"error": {code, message, id, request_id,
 * details, required_scope}}`, the OAuth `{"error": "invalid_client", "error_description": …}`,
 * or anything else (the status becomes the code, the start of the text the message).
 */
export function parseErrorBody(status: number, body: unknown, text: string, headers: HeaderBag): ApiErrorInit {
  const headerRequestId = firstHeader(headers, 'x-request-id');
  const fallbackMessage = STATUS_TEXT[status] ?? `HTTP ${status}`;
  const b = plainObject(body);
  const fromBody = b === undefined ? undefined : errorFromObject(status, b, headerRequestId, fallbackMessage);
  if (fromBody !== undefined) return fromBody;
  const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 200);
  return {
    status,
    code: String(status),
    message: snippet && !snippet.startsWith('<') ? snippet : fallbackMessage,
    requestId: headerRequestId,
  };
}

function plainObject(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The error of a JSON object answer, in one of the three shapes parseErrorBody reads; undefined for another object. */
function errorFromObject(
  status: number,
  b: Record<string, unknown>,
  headerRequestId: string | undefined,
  fallbackMessage: string,
): ApiErrorInit | undefined {
  const e = b.error;
  const o = plainObject(e);
  if (o !== undefined) {
    return {
      status,
      code: str(o.code) ?? String(status),
      message: str(o.message) ?? fallbackMessage,
      id: str(o.id),
      requestId: str(o.request_id) ?? headerRequestId,
      requiredScope: str(o.required_scope),
      details: fieldErrors(o.details),
    };
  }
  if (typeof e === 'string') {
    return {
      status,
      code: e,
      message: str(b.error_description) ?? str(b.message) ?? e.replace(/_/g, ' '),
      requestId: str(b.request_id) ?? headerRequestId,
    };
  }
  if (typeof b.message !== 'string' && typeof b.code !== 'string') return undefined;
  return {
    status,
    code: str(b.code) ?? String(status),
    message: str(b.message) ?? fallbackMessage,
    requestId: headerRequestId,
    details: fieldErrors(b.details ?? b.errors),
  };
}

/** A single object, bare or wrapped as `{"data": {...}}`. */
export function unwrapObject<T>(body: unknown): T {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const data = (body as Record<string, unknown>).data;
    if (data && typeof data === 'object' && !Array.isArray(data) && !('id' in (body as object))) return data as T;
  }
  return body as T;
}

/**
 * The items of a list answer: `data`, `contacts`, or a bare array (open-points "client
 * tolerance"); undefined for anything else (`{}`, `{"data": null}`, a text that is not JSON, a
 * truncated body), which is no page and must not be read as an empty last one.
 */
export function extractList<T>(body: unknown): T[] | undefined {
  if (Array.isArray(body)) return body as T[];
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (Array.isArray(b.data)) return b.data as T[];
    if (Array.isArray(b.contacts)) return b.contacts as T[];
  }
  return undefined;
}

/** What a body that is no list looks like, for the error (never more than a short start of it). */
export function describeNonList(body: unknown): string {
  if (body === undefined) return 'an empty body';
  if (typeof body === 'string')
    return `a body that is not JSON (or was cut short): ${JSON.stringify(body.slice(0, 40))}${body.length > 40 ? '…' : ''}`;
  const text = JSON.stringify(body);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function at(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const k of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** The URL of a `Link` header's `rel="next"`, if any. */
export function linkNext(link: string | string[] | undefined): string | undefined {
  if (!link) return undefined;
  const text = Array.isArray(link) ? link.join(',') : link;
  for (const part of text.split(/,(?=\s*<)/)) {
    const m = /<([^>]*)>(.*)/.exec(part.trim());
    if (m && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?/i.test(m[2] ?? '')) return m[1];
  }
  return undefined;
}

/** Where a next-page cursor may be, in the order they are read (open-points.md). */
const CURSOR_PLACES: ReadonlyArray<readonly string[]> = [
  ['next_cursor'],
  ['next'],
  ['links', 'next'],
  ['meta', 'next_cursor'],
  ['paging', 'cursors', 'after'],
  ['paging', 'next'],
];

/**
 * The next page: `next_cursor`, `next`, `links.next`, `meta.next_cursor`, `paging.cursors.after`,
 * else the `Link` header's rel="next". Null on the last page (each absent, null or ""). The value
 * is either an opaque cursor or a URL (absolute or starting with "/"), which the client then
 * follows as is. A cursor of another type (a number, an object, a boolean) is not understood:
 * IncompleteListingError naming it, rather than a list that ends short without a word.
 */
export function extractNextCursor(body: unknown, headers: HeaderBag): string | null {
  for (const place of CURSOR_PLACES) {
    const c = at(body, ...place);
    if (c === undefined || c === null || c === '') continue;
    if (typeof c === 'string') return c;
    const shown = JSON.stringify(c) ?? String(c);
    throw new IncompleteListingError(
      'invalid_cursor',
      `the listing is incomplete: the next-page cursor ${place.join('.')} is ${Array.isArray(c) ? 'an array' : typeof c === 'object' ? 'an object' : `a ${typeof c}`} (${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}), not a string svc can send back`,
    );
  }
  return linkNext(headers.link) ?? null;
}

/** True when a cursor is a URL to follow rather than an opaque token. */
export function isCursorUrl(cursor: string): boolean {
  return cursor.startsWith('/') || /^https?:\/\//i.test(cursor);
}

/** The successor named by a `Link` header (rel="successor-version" or "alternate"), and the `Sunset` date. */
export function deprecationNotice(headers: HeaderBag): { successor?: string; sunset?: string } {
  const link = headers.link;
  const text = Array.isArray(link) ? link.join(',') : (link ?? '');
  let successor: string | undefined;
  for (const part of text.split(/,(?=\s*<)/)) {
    const m = /<([^>]*)>(.*)/.exec(part.trim());
    if (m && /rel\s*=\s*"?[^"]*(successor-version|latest-version|alternate)/i.test(m[2] ?? '')) {
      successor = m[1];
      break;
    }
  }
  return { successor, sunset: firstHeader(headers, 'sunset') };
}
