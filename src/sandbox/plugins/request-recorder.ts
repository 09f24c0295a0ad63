/**
 * Records every answered request in the request log (request-log/ring.ts): one onSend hook that
 * keeps references (the raw request body, the answer's text) and a few fields, so the service
 * pays little for it; masking and explanations are worked out when an entry is read.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authenticate } from '../domain/auth.js';
import type { Domain } from '../domain/context.js';
import { arrivalOf } from '../request-id.js';
import { type CredentialNames, type NamedCredential, NO_CREDENTIAL, UNKNOWN_TOKEN } from '../request-log/credentials.js';
import { type DeprecationTally, detectDeprecations } from '../request-log/deprecations.js';
import { REPLAY_HEADER } from '../request-log/replay-mark.js';
import { BODY_CAP, type LoggedRequest, type RequestKind, type RequestLog } from '../request-log/ring.js';
import { faultOf, journalOf, principalOf } from '../service-route.js';
import { rawBodyOf } from './body-parsers.js';

export interface RecorderOptions {
  log: RequestLog;
  tally: DeprecationTally;
  names: CredentialNames;
  domain: Domain;
}

/** Which kind of request a path is, or undefined for what is not logged (the log's own reads, the dashboard's files). */
export function kindOf(path: string): RequestKind | undefined {
  if (path.startsWith('/_sandbox/')) {
    if (
      path.startsWith('/_sandbox/requests') ||
      path === '/_sandbox/deprecations' ||
      path === '/_sandbox/openapi.json' ||
      path === '/_sandbox/info' ||
      path.endsWith('/stream')
    )
      return undefined;
    return 'admin';
  }
  if (path === '/oauth/token') return 'token';
  if (path === '/' || path === '/favicon.ico' || path.startsWith('/dashboard/')) return undefined;
  return 'service';
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

function clientIdOf(req: FastifyRequest): string | undefined {
  const form = req.body as Record<string, unknown> | undefined;
  if (form && typeof form.client_id === 'string') return form.client_id;
  const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
  } catch {
    return decoded.slice(0, colon);
  }
}

function whoCalled(o: RecorderOptions, req: FastifyRequest, kind: RequestKind): NamedCredential {
  if (kind === 'admin') return NO_CREDENTIAL;
  if (kind === 'token') {
    const clientId = clientIdOf(req);
    return clientId === undefined ? NO_CREDENTIAL : o.names.ofClient(clientId);
  }
  const principal = principalOf(req);
  if (principal) return o.names.ofToken(principal.tokenHash, principal.businessId);
  const header = req.headers.authorization;
  if (header === undefined) return NO_CREDENTIAL;
  // Refused before the token was checked (a fault, a routing error): look it up now.
  const bearer = BEARER.exec(header)?.[1];
  const p = bearer === undefined ? undefined : authenticate(o.domain, bearer);
  return p ? o.names.ofToken(p.tokenHash, p.businessId) : UNKNOWN_TOKEN;
}

function textOf(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8', 0, Math.min(payload.length, BODY_CAP));
  return '';
}

/** The bodies as logged (each cut at BODY_CAP) and their sizes in bytes. */
function bodiesOf(req: FastifyRequest, payload: unknown) {
  const raw = rawBodyOf(req);
  const text = textOf(payload);
  const contentLength = Number(req.headers['content-length']);
  return {
    requestBody: raw === undefined ? undefined : raw.length > BODY_CAP ? Buffer.from(raw.subarray(0, BODY_CAP)) : raw,
    requestBytes: raw?.length ?? (Number.isFinite(contentLength) ? contentLength : 0),
    responseBody: text.length > BODY_CAP ? text.slice(0, BODY_CAP) : text,
    responseBytes: typeof payload === 'string' ? Buffer.byteLength(payload) : Buffer.isBuffer(payload) ? payload.length : 0,
  };
}

/** What only a request to the service carries: the writes it made and the fault it met. */
function serviceParts(req: FastifyRequest, kind: RequestKind) {
  if (kind !== 'service') return { effects: undefined, fault: undefined };
  return { effects: journalOf(req), fault: faultOf(req) };
}

function record(o: RecorderOptions, req: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const url = req.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const kind = kindOf(path);
  if (kind === undefined) return;
  const { credential, businessId } = whoCalled(o, req, kind);
  const deprecations = kind === 'admin' ? [] : detectDeprecations(req.method, path, req.query, req.body);
  const arrived = arrivalOf(req.raw) ?? performance.now() - reply.elapsedTime;
  const at = o.domain.now() - (performance.now() - arrived);
  const responseType = reply.getHeader('content-type');
  const entry = o.log.add(
    {
      requestId: req.id,
      at,
      kind,
      businessId,
      credential,
      method: req.method,
      path,
      query: q < 0 ? '' : url.slice(q + 1),
      status: reply.statusCode,
      durationMs: performance.now() - arrived,
      requestType: req.headers['content-type'],
      responseType: typeof responseType === 'string' ? responseType : undefined,
      ...bodiesOf(req, payload),
      deprecations,
      headers: req.headers,
      ...serviceParts(req, kind),
      replayOf: replayOf(o, req),
    },
    false,
  );
  settleOnLastByte(o.log, entry, reply, arrived);
  if (deprecations.length > 0) o.tally.record(deprecations, at, entry.requestId, businessId, credential, `${req.method} ${url}`);
}

/** The original of a replay the admin API sent (its one-time mark), else undefined. */
function replayOf(o: RecorderOptions, req: FastifyRequest): string | undefined {
  const mark = req.headers[REPLAY_HEADER];
  return typeof mark === 'string' ? o.log.takeReplay(mark) : undefined;
}

/** The duration runs to the answer's last byte: given to the entry once the response is finished (or the connection closed). */
function settleOnLastByte(log: RequestLog, entry: LoggedRequest, reply: FastifyReply, arrived: number): void {
  const res = reply.raw;
  let done = false;
  const settle = () => {
    if (done) return;
    done = true;
    log.settle(entry, performance.now() - arrived);
  };
  res.once('finish', settle);
  res.once('close', settle);
}

const requestRecorder: FastifyPluginAsync<RecorderOptions> = async (app, o) => {
  app.addHook('onSend', async (req, reply, payload) => {
    record(o, req, reply, payload);
    return payload;
  });
};

export default fp(requestRecorder, { name: 'request-recorder' });
