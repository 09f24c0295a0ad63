/**
 * How long one call waits in silence: with no HTTP answer at all (a service or proxy that takes the
 * connection and never answers, a network that drops everything), a list, a get or a single write
 * gives up after `patienceMs` (60 s by default) instead of going through every attempt's own
 * timeouts (which added up to eight minutes), and says so every 10 s while it waits. Any answer,
 * even a 503, ends the silence; a wait the service asked for (Retry-After) is not silence. A bulk
 * run passes `Infinity`: its outage gate has its own patience (`--max-outage`).
 */

import { NetworkError } from './errors.js';
import { routePath, type SendRequest } from './pipeline-types.js';
import type { ApiResult } from './types.js';

/** The default patience of a call: a minute without any answer. */
export const DEFAULT_PATIENCE_MS = 60_000;
/** How often a call still waiting says so. */
const NOTICE_EVERY_MS = 10_000;

export interface AnswerWaitOptions {
  patienceMs: number;
  /** The service (or proxy) named in the notices: `https://api.example.com`. */
  where: string;
  /** The caller's own signal (Ctrl-C): the wait's signal aborts with it too. */
  outer?: AbortSignal;
  /** Where "still waiting" goes (the CLI shows it to a person only). */
  notice?: (message: string) => void;
}

/** One call's watch over the silence; `signal` aborts when the patience runs out (then `expired`). */
export class AnswerWait {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private silentMs = 0;
  private expiredFlag = false;

  constructor(private readonly opts: AnswerWaitOptions) {
    this.signal = opts.outer ? AbortSignal.any([opts.outer, this.controller.signal]) : this.controller.signal;
    this.watch();
  }

  /** Whether the call gave up for want of an answer (and not for Ctrl-C). */
  get expired(): boolean {
    return this.expiredFlag;
  }

  /** The whole patience, in seconds, for messages. */
  get seconds(): number {
    return Math.round(this.opts.patienceMs / 1000);
  }

  /** An answer came: a new silence starts from now. */
  answered(): void {
    this.stop();
    this.watch();
  }

  /** The service asked for a wait: it is not silence. */
  pause(): void {
    this.stop();
  }

  /** The asked-for wait is over: the silence is counted again, from now. */
  resume(): void {
    this.stop();
    this.watch();
  }

  /** The call ended. */
  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    this.timer = undefined;
    this.ticker = undefined;
  }

  private watch(): void {
    this.silentMs = 0;
    this.timer = setTimeout(() => {
      this.expiredFlag = true;
      this.stop();
      this.controller.abort(new DOMException(`no answer after ${this.seconds} s`, 'TimeoutError'));
    }, this.opts.patienceMs);
    this.timer.unref?.();
    if (this.opts.notice === undefined || this.opts.patienceMs <= NOTICE_EVERY_MS) return;
    this.ticker = setInterval(() => {
      this.silentMs += NOTICE_EVERY_MS;
      this.opts.notice?.(
        `no answer from ${this.opts.where} after ${this.silentMs / 1000} s; waiting up to ${this.seconds} s (Ctrl-C to stop)…`,
      );
    }, NOTICE_EVERY_MS);
    this.ticker.unref?.();
  }
}

/**
 * Runs `attempts` (the pipeline's retry loop) under the call's patience: when it runs out, the
 * call fails as a timeout naming `where` (a non-idempotent write: "may have applied").
 */
export async function sendPatiently(
  req: SendRequest,
  patienceMs: number,
  watch: { where: string; notice?: (message: string) => void },
  attempts: (req: SendRequest, wait?: AnswerWait) => Promise<ApiResult<unknown>>,
): Promise<ApiResult<unknown>> {
  if (!Number.isFinite(patienceMs)) return attempts(req);
  const wait = new AnswerWait({ patienceMs, where: watch.where, outer: req.signal, notice: watch.notice });
  try {
    return await attempts({ ...req, signal: wait.signal }, wait);
  } catch (err) {
    if (!wait.expired || req.signal?.aborted) throw err;
    const maybe = req.idempotency === 'non_idempotent' ? '; the service may have applied it' : '';
    throw new NetworkError(`${req.route}: no answer from ${watch.where} after ${wait.seconds} s${maybe}`, {
      kind: 'timeout',
      sent: req.idempotency === 'non_idempotent',
      method: req.method,
      path: routePath(req),
      cause: err,
    });
  } finally {
    wait.stop();
  }
}
