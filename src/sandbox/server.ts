/**
 * The sandbox's HTTP server: fastify with the logger off, one JSON parser that knows the
 * service's error codes, the service routes registered from routes.ts, the admin surface, and
 * fault injection around every service route.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { EMAIL_CONSENT_VALUES, SMS_CONSENT_VALUES } from '../contract/consent.js';
import { validateContactWrite } from '../contract/contacts.js';
import type { FieldError } from '../contract/errors.js';
import { validateEventInput } from '../contract/events.js';
import { isRfc3339DateTime, rfc3339ToMs } from '../contract/formats.js';
import { validateOrderInput } from '../contract/orders.js';
import { registerAdmin } from './admin.js';
import { authenticate, grantClientCredentials, type Principal } from './domain/auth.js';
import {
  contactView,
  createContact,
  deleteContact,
  getContact,
  listContacts,
  patchContact,
  unsubscribeContact,
} from './domain/contacts.js';
import type { Domain } from './domain/context.js';
import { invalidRequest, ServiceError } from './domain/errors.js';
import { sendEvent } from './domain/events.js';
import { orderView, upsertOrder } from './domain/orders.js';
import type { Faults } from './faults.js';
import { isLoopback, parseFormBody, parseJsonBody, sendError, sendJson } from './http.js';
import { openApiText } from './openapi-write.js';
import { ROUTES, type RouteSpec } from './routes.js';

export const BODY_LIMIT = 1024 * 1024;

export interface ServerDeps {
  domain: Domain;
  faults: Faults;
  /** The base URL clients use (known once listening), for Link headers. */
  baseUrl: () => string;
  /** Empties every table but biz_default, for POST /_sandbox/reset. */
  reset: () => void;
}

interface Call {
  req: FastifyRequest;
  principal: Principal;
  body: unknown;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Handler = (call: Call) => Answer;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function unauthorized(message: string): ServiceError {
  return new ServiceError(401, 'unauthorized', message, {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
}

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

function bearerOf(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = BEARER.exec(h);
  return m ? m[1] : '';
}

function requireBody(body: unknown): Record<string, unknown> {
  if (body === undefined) throw invalidRequest([{ field: '(body)', message: 'is required: send a JSON object' }]);
  return body as Record<string, unknown>;
}

function validated<T>(r: { ok: true; value: T } | { ok: false; errors: FieldError[] }): T {
  if (!r.ok) throw invalidRequest(r.errors);
  return r.value;
}

const LIST_PARAMS = ['email_consent', 'sms_consent', 'email', 'phone', 'updated_since', 'limit', 'cursor'];
const REMOVED_PARAMS: Record<string, string> = { email_permission: 'email_consent', phone_permission: 'sms_consent' };

function encodeCursor(seq: number): string {
  return Buffer.from(`c1:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number | undefined {
  const m = /^c1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

function parseListQuery(query: Record<string, unknown>) {
  const errors: FieldError[] = [];
  const q: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (REMOVED_PARAMS[key]) errors.push({ field: key, message: `was removed; use ${REMOVED_PARAMS[key]} instead` });
    else if (!LIST_PARAMS.includes(key)) errors.push({ field: key, message: `is not a filter of this list (${LIST_PARAMS.join(', ')})` });
    else if (typeof value !== 'string') errors.push({ field: key, message: 'must be given once' });
    else q[key] = value;
  }
  if (q.email_consent !== undefined && !(EMAIL_CONSENT_VALUES as readonly string[]).includes(q.email_consent))
    errors.push({ field: 'email_consent', message: `must be one of: ${EMAIL_CONSENT_VALUES.join(', ')}` });
  if (q.sms_consent !== undefined && !(SMS_CONSENT_VALUES as readonly string[]).includes(q.sms_consent))
    errors.push({ field: 'sms_consent', message: `must be one of: ${SMS_CONSENT_VALUES.join(', ')}` });
  let since: number | undefined;
  if (q.updated_since !== undefined) {
    if (isRfc3339DateTime(q.updated_since)) since = rfc3339ToMs(q.updated_since);
    else errors.push({ field: 'updated_since', message: 'must be an RFC 3339 date-time like 2026-05-12T00:00:00Z' });
  }
  let limit = 50;
  if (q.limit !== undefined) {
    if (/^\d{1,3}$/.test(q.limit) && Number(q.limit) >= 1 && Number(q.limit) <= 250) limit = Number(q.limit);
    else errors.push({ field: 'limit', message: 'must be an integer from 1 to 250' });
  }
  let after = 0;
  if (q.cursor !== undefined) {
    const seq = decodeCursor(q.cursor);
    if (seq === undefined) errors.push({ field: 'cursor', message: 'is not a cursor this service issued; pass next_cursor unchanged' });
    else after = seq;
  }
  if (errors.length > 0) throw invalidRequest(errors);
  return {
    email_consent: q.email_consent,
    sms_consent: q.sms_consent,
    email: q.email,
    phone: q.phone,
    updated_since: since,
    limit,
    after,
    raw: q,
  };
}

function makeHandlers(deps: ServerDeps): Record<string, Handler> {
  const d = deps.domain;
  return {
    listContacts({ principal, query }) {
      const q = parseListQuery(query);
      const page = listContacts(d, principal.businessId, q);
      const next = page.next === null ? null : encodeCursor(page.next);
      const headers: Record<string, string> = {};
      if (next !== null) {
        const params = new URLSearchParams({ ...q.raw, cursor: next });
        headers.link = `<${deps.baseUrl()}/v1/contacts?${params.toString()}>; rel="next"`;
      }
      return { status: 200, body: { data: page.rows.map(contactView), next_cursor: next }, headers };
    },
    getContact({ principal, params }) {
      return { status: 200, body: contactView(getContact(d, principal.businessId, params.id as string)) };
    },
    createContact({ principal, body }) {
      const write = validated(validateContactWrite(requireBody(body), 'create'));
      const r = createContact(d, principal.businessId, write);
      return { status: r.status, body: contactView(r.contact) };
    },
    patchContact({ principal, body, params }) {
      const write = validated(validateContactWrite(requireBody(body), 'patch'));
      return { status: 200, body: contactView(patchContact(d, principal.businessId, params.id as string, write)) };
    },
    deleteContact({ principal, params }) {
      deleteContact(d, principal.businessId, params.id as string);
      return { status: 204 };
    },
    unsubscribeContact({ principal, body, params }) {
      if (body !== undefined) {
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw invalidRequest([{ field: '(body)', message: 'must be empty or {}' }]);
        const keys = Object.keys(body);
        if (keys.length > 0)
          throw invalidRequest(keys.map((k) => ({ field: k, message: 'is not accepted here; the body must be empty or {}' })));
      }
      const id = params.id as string;
      const row = unsubscribeContact(d, principal.businessId, id);
      return {
        status: 200,
        body: contactView(row),
        headers: { deprecation: 'true', link: `<${deps.baseUrl()}/v1/contacts/${encodeURIComponent(id)}>; rel="successor-version"` },
      };
    },
    upsertOrder({ principal, body, req }) {
      const order = validated(validateOrderInput(requireBody(body)));
      const header = req.headers['x-service-integration-token'];
      const r = upsertOrder(d, principal.businessId, order, typeof header === 'string' ? header : header?.join(', '));
      return { status: r.created ? 201 : 200, body: orderView(r.order) };
    },
    sendEvent({ principal, body }) {
      const event = validated(validateEventInput(requireBody(body)));
      const r = sendEvent(d, principal.businessId, event);
      return { status: 200, body: { status: 'accepted', id: r.id } };
    },
  };
}

function rateKey(req: FastifyRequest): string {
  const h = req.headers.authorization;
  return h ? createHash('sha256').update(h).digest('base64') : `ip:${req.ip}`;
}

/** Applies latency, 503 and 429 faults; returns the decision for the later 500/reset faults. */
async function faultsBefore(deps: ServerDeps, reply: FastifyReply, key: string) {
  const f = deps.faults;
  if (f.latencyMs > 0) await sleep(f.latencyMs);
  const decision = f.decide(key);
  if (decision.kind === 'unavailable') {
    sendError(
      reply,
      new ServiceError(
        503,
        'unavailable',
        'the service is unavailable (injected fault); the request was not processed, retry later',
        {},
        { 'retry-after': '1' },
      ),
    );
  } else if (decision.kind === 'rate_limited') {
    sendError(
      reply,
      new ServiceError(
        429,
        'rate_limited',
        `rate limit exceeded; retry after ${decision.retryAfterSeconds} s`,
        {},
        { 'retry-after': String(decision.retryAfterSeconds) },
      ),
    );
  }
  return decision;
}

function injected500(reply: FastifyReply): FastifyReply {
  return sendError(
    reply,
    new ServiceError(500, 'internal_error', 'internal error (injected fault); the write may or may not have been applied'),
  );
}

function destroy(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  req.raw.socket.destroy();
}

function serviceRoute(deps: ServerDeps, spec: RouteSpec, handler: Handler) {
  const scope = spec.scope as string;
  const contentType = spec.body?.contentType;
  const writes = spec.method !== 'GET';
  return async (req: FastifyRequest, reply: FastifyReply) => {
    let decision: Awaited<ReturnType<typeof faultsBefore>> | undefined;
    if (deps.faults.active) {
      decision = await faultsBefore(deps, reply, rateKey(req));
      if (reply.sent) return reply;
    }
    try {
      if (req.body !== undefined && contentType === 'application/json' && !isJsonType(req.headers['content-type'])) {
        throw new ServiceError(
          415,
          'unsupported_media_type',
          `send the body as application/json, not ${req.headers['content-type'] ?? 'without a content type'}`,
        );
      }
      const bearer = bearerOf(req);
      if (bearer === undefined) throw unauthorized('missing bearer token: send Authorization: Bearer <ACCESS_TOKEN>');
      if (bearer === '') throw unauthorized('malformed Authorization header: expected Bearer <ACCESS_TOKEN>');
      const principal = authenticate(deps.domain, bearer);
      if (!principal) throw unauthorized('the bearer token is expired, revoked or unknown; get a new one');
      if (!principal.scopes.has(scope)) {
        throw new ServiceError(
          403,
          'insufficient_scope',
          `this token lacks the scope ${scope}; enable it on the application (or token) and get a new token`,
          { required_scope: scope },
          { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
        );
      }
      if (decision && (decision.kind === 'error' || decision.kind === 'reset') && !decision.afterWrite) {
        if (decision.kind === 'error') return injected500(reply);
        return destroy(req, reply);
      }
      if (writes) deps.domain.db.beginBatch();
      const answer = handler({
        req,
        principal,
        body: req.body,
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
      });
      if (writes) await deps.domain.db.flushed();
      if (decision && (decision.kind === 'error' || decision.kind === 'reset')) {
        if (decision.kind === 'error') return injected500(reply);
        return destroy(req, reply);
      }
      if (answer.status === 204) {
        if (answer.headers) reply.headers(answer.headers);
        return reply.code(204).send();
      }
      return sendJson(reply, answer.status, answer.body, answer.headers);
    } catch (e) {
      if (e instanceof ServiceError) return sendError(reply, e);
      throw e;
    }
  };
}

function isJsonType(ct: string | undefined): boolean {
  if (!ct) return false;
  const essence = ct.split(';', 1)[0]?.trim().toLowerCase();
  return essence === 'application/json';
}

function tokenRoute(deps: ServerDeps) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const ct = req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
    const form = (ct === 'application/x-www-form-urlencoded' ? req.body : undefined) as Record<string, string | string[]> | undefined;
    let decision: Awaited<ReturnType<typeof faultsBefore>> | undefined;
    if (deps.faults.active) {
      const clientKey = typeof form?.client_id === 'string' ? `client:${form.client_id}` : rateKey(req);
      decision = await faultsBefore(deps, reply, clientKey);
      if (reply.sent) return reply;
    }
    reply.header('cache-control', 'no-store');
    try {
      if (!form) throw new ServiceError(400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded');
      const repeated = Object.keys(form).filter((k) => Array.isArray(form[k]));
      if (repeated.length > 0) throw new ServiceError(400, 'invalid_request', `parameter ${repeated.join(', ')} must be given once`);
      const f = form as Record<string, string>;
      let clientId = f.client_id;
      let clientSecret = f.client_secret;
      let viaBasic = false;
      const authz = req.headers.authorization;
      if (authz !== undefined) {
        const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authz);
        const decoded = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : '';
        const colon = decoded.indexOf(':');
        if (colon < 0)
          throw new ServiceError(400, 'invalid_request', 'malformed HTTP Basic credentials: expected base64(client_id:client_secret)');
        if (clientId !== undefined || clientSecret !== undefined)
          throw new ServiceError(400, 'invalid_request', 'send the client credentials either with HTTP Basic or as form fields, not both');
        const formDecode = (s: string) => {
          try {
            return decodeURIComponent(s.replace(/\+/g, ' '));
          } catch {
            return s;
          }
        };
        clientId = formDecode(decoded.slice(0, colon));
        clientSecret = formDecode(decoded.slice(colon + 1));
        viaBasic = true;
      }
      if (decision && (decision.kind === 'error' || decision.kind === 'reset') && !decision.afterWrite) {
        if (decision.kind === 'error') return injected500(reply);
        return destroy(req, reply);
      }
      deps.domain.db.beginBatch();
      const token = grantClientCredentials(
        deps.domain,
        { grant_type: f.grant_type, client_id: clientId, client_secret: clientSecret, scope: f.scope ?? f.scopes },
        viaBasic,
      );
      await deps.domain.db.flushed();
      if (decision && (decision.kind === 'error' || decision.kind === 'reset')) {
        if (decision.kind === 'error') return injected500(reply);
        return destroy(req, reply);
      }
      return sendJson(reply, 200, token, { pragma: 'no-cache' });
    } catch (e) {
      if (e instanceof ServiceError) return sendError(reply, e);
      throw e;
    }
  };
}

let counter = 0;
const bootId = randomUUID().slice(0, 8);

/** Builds (but does not start) the server. */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    // Every response carries X-Request-Id: set on the raw response before fastify sees the
    // request, so it also covers answers fastify gives on its own (503 while closing, routing
    // errors), at no per-request hook cost.
    serverFactory: (handler) =>
      createServer((req, res) => {
        const id = `req_${bootId}${(++counter).toString(36).padStart(8, '0')}`;
        (req as IncomingMessage & { svcRequestId?: string }).svcRequestId = id;
        res.setHeader('x-request-id', id);
        handler(req, res);
      }),
    genReqId: (req) => (req as IncomingMessage & { svcRequestId?: string }).svcRequestId ?? 'req_unknown',
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1024 },
    // Errors raised before routing (malformed or overlong paths) get the service's error body too.
    frameworkErrors: (error, req, reply) => {
      reply.header('x-request-id', req.id);
      const tooLong = (error as { code?: string }).code === 'FST_ERR_MAX_PARAM_LENGTH';
      sendError(
        reply,
        new ServiceError(
          400,
          'invalid_request',
          tooLong ? 'a path parameter is longer than 1024 characters' : 'the request path is malformed',
        ),
      );
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    if (req.url.split('?', 1)[0] !== '/oauth/token') {
      done(new ServiceError(415, 'unsupported_media_type', 'send the body as application/json'), undefined);
      return;
    }
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  app.setErrorHandler((error, req, reply) => {
    if (error instanceof ServiceError) return sendError(reply, error);
    const e = error as { code?: string; statusCode?: number; message: string };
    const isToken = req.url.startsWith('/oauth/token');
    switch (e.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, new ServiceError(413, 'payload_too_large', `the body is larger than ${BODY_LIMIT} bytes (1 MiB)`));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        if (isToken)
          return sendError(reply, new ServiceError(400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded'));
        return sendError(
          reply,
          new ServiceError(
            415,
            'unsupported_media_type',
            `send the body as application/json, not ${req.headers['content-type'] ?? 'without a content type'}`,
          ),
        );
      default:
        if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)
          return sendError(reply, new ServiceError(e.statusCode, 'invalid_request', e.message));
        return sendError(reply, new ServiceError(500, 'internal_error', 'internal error; the write may or may not have been applied'));
    }
  });

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, new ServiceError(404, 'not_found', `no route ${req.method} ${req.url.split('?')[0]}`)),
  );

  const handlers = makeHandlers(deps);
  for (const spec of ROUTES) {
    if (spec.operationId === 'requestToken') {
      app.route({ method: spec.method, url: spec.url, handler: tokenRoute(deps) });
      continue;
    }
    const handler = handlers[spec.operationId];
    if (!handler) throw new Error(`no handler for ${spec.operationId}`);
    app.route({ method: spec.method, url: spec.url, handler: serviceRoute(deps, spec, handler) });
  }

  let openapi: string | undefined;
  app.get('/openapi.json', (_req, reply) => {
    openapi ??= openApiText();
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(openapi);
  });

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', (req, reply, done) => {
        if (!isLoopback(req.socket.remoteAddress)) {
          sendError(reply, new ServiceError(404, 'not_found', 'the admin API answers on the loopback interface only'));
          return;
        }
        done();
      });
      registerAdmin(admin, deps);
    },
    { prefix: '/_sandbox' },
  );

  return app;
}
