/**
 * The request log as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the format
 * browser devtools and HAR viewers import: oldest first, bodies and headers masked, with the
 * sandbox's own fields (request id, replay, effects) under `_` names as the format allows.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { MASK, maskForm } from './mask.js';
import type { LoggedRequest } from './ring.js';
import type { RequestView } from './view.js';

interface Pair {
  name: string;
  value: string;
}

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-service-integration-token)$/;

/** A header's value as the HAR shows it: a secret masked (the scheme of an Authorization kept). */
function shownValue(name: string, v: string): string {
  if (!SECRET_HEADER.test(name)) return v;
  return name === 'authorization' ? `${v.split(' ', 1)[0]} ${MASK}` : MASK;
}

function headersOf(h: IncomingHttpHeaders | undefined): Pair[] {
  const out: Pair[] = [];
  for (const [name, value] of Object.entries(h ?? {})) {
    if (value === undefined || name === 'x-sandbox-replay') continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: shownValue(name, v) });
  }
  return out;
}

function queryOf(query: string): Pair[] {
  if (query === '') return [];
  return maskForm(query)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      return eq < 0 ? { name: decode(pair), value: '' } : { name: decode(pair.slice(0, eq)), value: decode(pair.slice(eq + 1)) };
    });
}

/** One HAR entry from a logged request and its view (the view has the masked bodies). */
function entryOf(e: LoggedRequest, v: RequestView, baseUrl: string) {
  const time = Math.max(0, v.duration_ms);
  const request: Record<string, unknown> = {
    method: e.method,
    url: `${baseUrl}${e.path}${v.query === null ? '' : `?${v.query}`}`,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: headersOf(e.headers),
    queryString: queryOf(e.query),
    headersSize: -1,
    bodySize: v.request.body === null ? 0 : e.requestBytes,
  };
  if (v.request.body !== null) request.postData = { mimeType: v.request.content_type ?? 'application/octet-stream', text: v.request.body };
  const responseHeaders: Pair[] = [{ name: 'x-request-id', value: e.requestId }];
  if (v.response.content_type) responseHeaders.push({ name: 'content-type', value: v.response.content_type });
  return {
    startedDateTime: v.time,
    time,
    request,
    response: {
      status: e.status,
      statusText: STATUS_CODES[e.status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content: {
        size: e.responseBytes,
        mimeType: v.response.content_type ?? 'application/octet-stream',
        ...(v.response.body === null ? {} : { text: v.response.body }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: e.responseBytes,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    _requestId: e.requestId,
    _replayOf: v.replay_of,
    _credential: v.credential,
    _error: v.error,
    _effects: v.effects,
    _writeApplied: v.write_applied,
  };
}

/** A HAR 1.2 document of the entries (oldest first), with their views. */
export function harOf(entries: { entry: LoggedRequest; view: RequestView }[], baseUrl: string, version: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'svc sandbox', version },
      entries: entries.map(({ entry, view }) => entryOf(entry, view, baseUrl)),
    },
  };
}
