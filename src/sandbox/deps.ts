/** What the sandbox's plugins and route modules are built from. */
import type { Domain } from './domain/context.js';
import type { Faults } from './faults.js';
import type { AdminSecurity } from './plugins/admin-guard.js';
import type { DeprecationTally } from './request-log/deprecations.js';
import type { RequestLog } from './request-log/ring.js';

export interface ServerDeps {
  domain: Domain;
  faults: Faults;
  /** The base URL clients use (known once listening), for Link headers. */
  baseUrl: () => string;
  /** Empties every table but biz_default, for POST /_sandbox/reset. */
  reset: () => void;
  /** The request log (absent when turned off with a size of 0) and the deprecated usages seen. */
  requestLog?: RequestLog;
  deprecations?: DeprecationTally;
  /** Who the admin API and the dashboard answer (Host names, admin token). */
  security: AdminSecurity;
  /** Sees every answer fastify sends (tests check them against the OpenAPI document). */
  onAnswer?: AnswerHook;
}

/** One answer, as sent: for checks outside the sandbox (the tests' OpenAPI conformance hook). */
export interface SentAnswer {
  method: string;
  /** The request path and query, as received. */
  url: string;
  status: number;
  contentType: string | undefined;
  body: string;
  /** Milliseconds from the request's arrival to this answer (fastify's reply.elapsedTime). */
  elapsedMs?: number;
}

export type AnswerHook = (answer: SentAnswer) => void;

/** The options every route plugin is registered with. */
export interface RouteOptions {
  deps: ServerDeps;
}
