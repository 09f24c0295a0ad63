/**
 * Whether a 404 is a row's answer ("no such contact") or the run's ("no such route": a base URL
 * ending in /v1 makes every path /v1/v1/…, a wrong path prefix). open-points gives both the code
 * `not_found` and the spec says nothing of the body, so the words cannot tell them apart; a route
 * that always exists can: `GET /v1/contacts` is a collection, it never answers 404 for a missing
 * record. On the first 404 that could be either, the client asks it once (`?limit=1`): any answer
 * but 404 (200, and 401 or 403 too, which come from a route the service knows) means the service
 * knows its routes and the 404 stays the request's own; a 404 means nothing is known under this
 * base URL, and every request of the run would get one. The verdict is kept for the client's life,
 * so an `--ids-file` delete of a thousand missing contacts asks once; a probe that got no answer
 * (network) decides nothing and is not kept.
 */
import { ApiError } from './errors.js';
import type { SendRequest } from './pipeline-types.js';
import type { ApiResult } from './types.js';

/** The service knows no route under the base URL: every request would answer 404 (exit 1 in the CLI). */
export class UnknownRouteError extends Error {
  readonly status = 404;
  readonly method: string;
  /** The path as sent, base URL's own path included (`/v1/v1/orders/placed`). */
  readonly sentPath: string;
  /** The base URL (origin and path prefix). */
  readonly baseUrl: string;
  /** The base URL's path ends in /v1: the likeliest mistake, named by the CLI's hint. */
  readonly doubledVersion: boolean;
  readonly requestId?: string;

  constructor(init: { method: string; sentPath: string; baseUrl: string; prefix: string; requestId?: string; cause: ApiError }) {
    super(`the service does not know ${init.method} ${init.sentPath} (HTTP 404: it knows no route under ${init.baseUrl})`, {
      cause: init.cause,
    });
    this.name = 'UnknownRouteError';
    this.method = init.method;
    this.sentPath = init.sentPath;
    this.baseUrl = init.baseUrl;
    this.doubledVersion = /\/v1$/i.test(init.prefix);
    this.requestId = init.requestId;
  }
}

/** The route asked: a collection, never a 404 for a missing record. */
export const PROBE_ROUTE = 'GET /v1/contacts';
export const PROBE_PATH = '/v1/contacts?limit=1';

/** The status of the probe's answer, or undefined when none came (a network failure). */
export type RouteProbe = (signal?: AbortSignal) => Promise<number | undefined>;

/** The probe through the pipeline's own send (token, retries; never throwing on a status). */
function probeThrough(send: (req: SendRequest) => Promise<ApiResult<unknown>>): RouteProbe {
  return (signal) =>
    send({ method: 'GET', path: PROBE_PATH, route: PROBE_ROUTE, idempotency: 'idempotent', auth: true, throwOnError: false, signal }).then(
      (res) => res.status,
      (err: unknown) => (err instanceof ApiError && err.status > 0 ? err.status : undefined),
    );
}

export class RouteCheck {
  /** true: the service knows its routes; false: it knows none under the base URL. */
  private verdict: boolean | undefined;
  /** The probe under way: requests answered 404 at the same moment share it. */
  private pending: Promise<boolean | undefined> | undefined;

  private readonly probe: RouteProbe;

  /** `send`: the pipeline's own (the probe gets the token, retries and trace of any request). */
  constructor(
    send: (req: SendRequest) => Promise<ApiResult<unknown>>,
    private readonly baseUrl: string,
    private readonly prefix: string,
  ) {
    this.probe = probeThrough(send);
  }

  /**
   * The error to throw for a 404 answer: `err` itself when it is the request's own answer (the
   * service knows its routes), an UnknownRouteError when the service knows no route here.
   */
  async explain404(err: ApiError, method: string, route: string, sentPath: string, signal?: AbortSignal): Promise<Error> {
    // The probe's own route answering 404 needs no second opinion: a collection always exists.
    const known = route === PROBE_ROUTE ? false : await this.routesKnown(signal);
    if (known !== false) return err;
    return new UnknownRouteError({
      method,
      sentPath: sentPath.split('?')[0] ?? sentPath,
      baseUrl: this.baseUrl,
      prefix: this.prefix,
      requestId: err.requestId,
      cause: err,
    });
  }

  private async routesKnown(signal?: AbortSignal): Promise<boolean | undefined> {
    if (this.verdict !== undefined) return this.verdict;
    if (this.pending === undefined) {
      this.pending = this.probe(signal)
        .then((status) => (status === undefined ? undefined : status !== 404))
        .catch(() => undefined)
        .then((verdict) => {
          this.verdict = verdict;
          this.pending = undefined;
          return verdict;
        });
    }
    return this.pending;
  }
}
