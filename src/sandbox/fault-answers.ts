/** The answers of injected faults, shared by the guarded service routes and the token route. */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from './deps.js';
import { ServiceError } from './domain/errors.js';
import type { FaultDecision } from './faults.js';
import { sendError } from './http.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Who a request counts against for the rate limit: its Authorization header, else its address. */
export function rateKey(req: FastifyRequest): string {
  const h = req.headers.authorization;
  return h ? createHash('sha256').update(h).digest('base64') : `ip:${req.ip}`;
}

/** Applies latency, 503 and 429 faults; returns the decision for the later 500/reset faults. */
export async function faultsBefore(deps: ServerDeps, reply: FastifyReply, key: string): Promise<FaultDecision> {
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
