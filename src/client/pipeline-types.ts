/**
 * What the request pipeline (pipeline.ts) takes: its options, one request, the answer check, and
 * the default limits of an attempt.
 */
import type { Credentials } from './auth.js';
import type { ProxySettings } from './proxy.js';
import type { Idempotency, RetryOptions } from './retry.js';
import type { CallOptions, ClientLogger, RetryInfo } from './types.js';

export interface PipelineOptions {
  baseUrl: string;
  credentials: Credentials;
  logger: ClientLogger;
  /** Emit the HTTP trace through logger.debug (formatting costs nothing when off). */
  debug?: boolean;
  maxRetryWaitMs?: number;
  retry?: Partial<RetryOptions>;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Keep-alive connections to the service (the importer runs up to 64 requests at once). */
  connections?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** The longest answer accepted (default 64 MiB: a page of contacts is far below). */
  maxResponseBytes?: number;
  /** The longest one attempt may take, answer included (default 120 s). */
  requestTimeoutMs?: number;
  /** How long a call waits with no answer at all before it gives up (patience.ts; default 60 s). */
  patienceMs?: number;
  /** The run's proxy variables (proxy.ts); absent for direct connections (the embedded sandbox). */
  proxy?: ProxySettings;
  userAgent?: string;
  /** Every secret the client learns (client secret, tokens) is announced here for redaction. */
  onSecret?: (secret: string) => void;
}

export interface SendRequest {
  method: string;
  /** Path with query, relative to the base URL (or absolute, for a next-page URL of the same origin). */
  path: string;
  /** Route template for messages and the once-per-route deprecation warning. */
  route: string;
  body?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** X-Service-Integration-Token for order requests (its header object is cached like the others). */
  integrationToken?: string;
  idempotency: Idempotency;
  /** Send the bearer token (false for the token request itself). */
  auth: boolean;
  /** Throw ApiError on a status ≥ 400 (false for `svc api`). */
  throwOnError: boolean;
  signal?: AbortSignal;
  /** This call's patience with silence (patience.ts); Infinity for none (a bulk run's own patience rules). */
  patienceMs?: number;
  onRetry?: (info: RetryInfo) => void;
  /** The answer's rate-limit headers, when it carries them (the bulk engine paces to them). */
  onRateHeaders?: CallOptions['onRateHeaders'];
  /** The answer is one object, bare or wrapped ({"data": {...}}): unwrap it (sendJson). */
  unwrap?: boolean;
  /**
   * Whether a successful answer belongs to this request (answer-identity.ts): the reason it does
   * not, or undefined. A mismatch drops the connections and fails the request (kind `protocol`).
   */
  verify?: AnswerCheck;
}

/** Checks that an answer belongs to its request: why not, or undefined (answer-identity.ts). */
export type AnswerCheck = (answer: { bytes: Buffer; body: () => unknown }) => string | undefined;

/** The default limits of an attempt. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

/** The path part of a route ("POST /v1/contacts" → "/v1/contacts"). */
export function routePath(req: Pick<SendRequest, 'route'>): string {
  return req.route.slice(req.route.indexOf(' ') + 1);
}
