/** The answers of injected faults, shared by the guarded service routes and the token route. */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from './deps.js';
import { authenticate } from './domain/auth.js';
import { ServiceError } from './domain/errors.js';
import type { FaultDecision } from './faults.js';
import { sendError } from './http.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Who a request counts against for the rate limit: its Authorization header, else its address. */
export function rateKey(req: FastifyRequest): string {
  const h = req.headers.authorization;
  return h ? createHash('sha256').update(h).digest('base64') : `ip:${req.ip}`;
}

/**
 * Who a request counts against for `rate_limits`: its token (`key`), or with `per: "business"`
 * the business of its bearer token (a token the sandbox does not know counts on its own).
 */
function limitKey(deps: ServerDeps, req: FastifyRequest, key: string): string {
  if (deps.faults.limiter?.per !== 'business') return key;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(req.headers.authorization ?? '');
  const principal = m?.[1] ? authenticate(deps.domain, m[1]) : undefined;
  return principal ? `biz:${principal.businessId}` : key;
}

/** Applies rate limits, latency, 429 and 503 faults; returns the decision for the later 500/reset faults. */
export async function faultsBefore(deps: ServerDeps, req: FastifyRequest, reply: FastifyReply, key: string): Promise<FaultDecision> {
  const f = deps.faults;
  // The limits are checked as the request arrives (latency_ms stands for the time the service
  // takes): a request over a limit is answered at once, one let through holds its slot meanwhile.
  const limiter = f.limiter;
  if (limiter) {
    const verdict = limiter.check(limitKey(deps, req, key), `${req.method} ${req.routeOptions.url ?? req.url}`);
    if (verdict.headers) reply.headers(verdict.headers);
    if (!verdict.ok) {
      const wait = verdict.retryAfterSeconds;
      const what = verdict.reason === 'in_flight' ? 'too many requests in flight' : 'rate limit exceeded';
      sendError(reply, new ServiceError(429, 'rate_limited', `${what}; retry after ${wait} s`, {}, { 'retry-after': String(wait) }));
      return { kind: 'rate_limited', retryAfterSeconds: wait };
    }
    if (verdict.release) {
      const release = verdict.release;
      reply.raw.once('close', release);
    }
  }
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

/**
 * Carries out an injected 500 or connection reset due at this point (`afterWrite` false: before
 * the write, true: after it). Returns true when the request was answered (or dropped) here.
 */
export function faultAt(decision: FaultDecision | undefined, afterWrite: boolean, req: FastifyRequest, reply: FastifyReply): boolean {
  if (!decision || (decision.kind !== 'error' && decision.kind !== 'reset')) return false;
  if (!afterWrite && decision.afterWrite) return false;
  if (decision.kind === 'error') {
    sendError(
      reply,
      new ServiceError(500, 'internal_error', 'internal error (injected fault); the write may or may not have been applied'),
    );
  } else {
    reply.hijack();
    req.raw.socket.destroy();
  }
  return true;
}
