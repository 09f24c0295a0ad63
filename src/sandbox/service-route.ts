/**
 * What every service route (/v1/*) does around its handler: injected faults, the content type,
 * the bearer token and its scope, and the write batch; then the handler's answer is sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { ServerDeps } from './deps.js';
import { authenticate, type Principal } from './domain/auth.js';
import { ServiceError } from './domain/errors.js';
import { closeJournal, type Journal, openJournal } from './domain/journal.js';
import { faultAt, faultsBefore, rateKey } from './fault-answers.js';
import type { FaultDecision } from './faults.js';
import { sendJson } from './http.js';
import { routeSpec } from './routes.js';

/** What a handler gets: the request (typed per route) and who is calling. */
export interface Call<RG extends RouteGenericInterface> {
  req: FastifyRequest<RG>;
  principal: Principal;
}

/** What a handler answers: a status, a body of the route's reply type, extra headers. */
export interface Answer<T> {
  status: number;
  body?: T;
  headers?: Record<string, string>;
}

export type Handler<RG extends RouteGenericInterface> = (call: Call<RG>) => Answer<RG['Reply']>;

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

export function isJsonType(ct: string | undefined): boolean {
  if (!ct) return false;
  const essence = ct.split(';', 1)[0]?.trim().toLowerCase();
  return essence === 'application/json';
}

/** The caller of a request, or the 401/403 it gets. */
function principalFor(deps: ServerDeps, req: FastifyRequest, scope: string): Principal {
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
  return principal;
}

interface Caller {
  /** Undefined until the token is accepted. */
  principal?: Principal;
  decision: FaultDecision | undefined;
  /** What the handler did (absent until it ran, and for reads). */
  journal?: Journal;
}

/** Who is calling, per request, from the onRequest hook to the handler. */
const callers = new WeakMap<FastifyRequest, Caller>();

/** Who made a service request, once its token was accepted (for the request log). */
export function principalOf(req: FastifyRequest): Principal | undefined {
  return callers.get(req)?.principal;
}

/** What a request's handler wrote and caused, once it ran (for the request log). */
export function journalOf(req: FastifyRequest): Journal | undefined {
  return callers.get(req)?.journal;
}

/**
 * The injected fault a request got, and whether its write was applied as the sandbox knows it
 * (null for a read, or a fault answered before the handler could write).
 */
export function faultOf(req: FastifyRequest): { kind: FaultDecision['kind']; writeApplied: boolean | null } | undefined {
  const decision = callers.get(req)?.decision;
  if (!decision || decision.kind === 'none') return undefined;
  const writes = req.method !== 'GET' && req.method !== 'HEAD';
  if (decision.kind === 'error' || decision.kind === 'reset')
    return { kind: decision.kind, writeApplied: writes ? decision.afterWrite : null };
  return { kind: decision.kind, writeApplied: writes ? false : null };
}

/** Runs the handler with the request's journal open: the domain notes its writes and side effects there. */
function handleJournaled<RG extends RouteGenericInterface>(
  deps: ServerDeps,
  caller: Caller,
  handler: Handler<RG>,
  call: Call<RG>,
): Answer<RG['Reply']> {
  openJournal(deps.domain, call.req.id);
  let failed = true;
  try {
    const answer = handler(call);
    failed = false;
    return answer;
  } finally {
    caller.journal = closeJournal(deps.domain, failed);
  }
}

/** A body sent to a JSON route must say it is JSON: 415 otherwise. */
function checkJsonBody(req: FastifyRequest): void {
  if (req.body === undefined || isJsonType(req.headers['content-type'])) return;
  throw new ServiceError(
    415,
    'unsupported_media_type',
    `send the body as application/json, not ${req.headers['content-type'] ?? 'without a content type'}`,
  );
}

/** Sends a handler's answer: its status, headers and JSON body (none with 204). */
function sendAnswer(reply: FastifyReply, answer: Answer<unknown>): FastifyReply {
  if (answer.status !== 204) return sendJson(reply, answer.status, answer.body, answer.headers);
  if (answer.headers) reply.headers(answer.headers);
  return reply.code(204).send();
}

/** Registers the service operation `operationId` (method, path and scope from routes.ts) with its handler. */
export function serviceRoute<RG extends RouteGenericInterface>(
  app: FastifyInstance,
  deps: ServerDeps,
  operationId: string,
  handler: Handler<RG>,
): void {
  const spec = routeSpec(operationId);
  const scope = spec.scope as string;
  const contentType = spec.body?.contentType;
  const writes = spec.method !== 'GET';
  // fastify's route generics only declare the shapes (nothing checks them at run time), so the
  // request is declared here, once, with the shapes the route's handler states.
  app.route({
    method: spec.method,
    url: spec.url,
    // Faults, then the token and its scope, before the body is read: a request without a valid
    // token gets its 401 whatever its body (spec, Authentication rule 4).
    onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
      // Kept before the token is checked, so a refused request still tells its fault.
      const caller: Caller = { decision: undefined };
      callers.set(req, caller);
      if (deps.faults.active) {
        caller.decision = await faultsBefore(deps, req, reply, rateKey(req));
        if (reply.sent) return reply;
      }
      caller.principal = principalFor(deps, req, scope);
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const caller = callers.get(req) as Caller;
      const decision = caller.decision;
      const principal = caller.principal as Principal;
      if (contentType === 'application/json') checkJsonBody(req);
      if (faultAt(decision, false, req, reply)) return reply;
      if (writes) deps.domain.db.beginBatch();
      const call = { req: req as FastifyRequest<RG>, principal };
      const answer = writes ? handleJournaled(deps, caller, handler, call) : handler(call);
      if (writes) await deps.domain.db.flushed();
      if (faultAt(decision, true, req, reply)) return reply;
      return sendAnswer(reply, answer);
    },
  });
}
