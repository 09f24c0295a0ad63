/**
 * One HTTP exchange on an undici Pool through `dispatch`, collecting the body's bytes.
 * `pool.request()` wraps every answer in a Readable stream and its promise machinery; on the
 * importer's and the bulk sender's hot path that wrapper cost more CPU than the rest of the
 * client together, and bodies here are small JSON documents read whole anyway.
 *
 * The handler is written on undici 7's controller API (onRequestStart … onResponseError). undici
 * adapts it to its internal callbacks with one wrapper and one controller object per request and
 * parses the response headers into an object before onResponseStart: that object is what the
 * answer carries (no second parse here). The handler itself is the only object this module
 * allocates per exchange; it is also what the promise resolves with.
 *
 * Aborting: a bulk run passes one signal to thousands of requests; each registering and
 * removing its own listener on it (an AbortSignal.any, even) cost more than the rest of the
 * exchange's bookkeeping, so every signal gets one listener that aborts the exchanges in flight.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher, Pool } from 'undici';

export interface Exchange {
  readonly status: number;
  /** Lower-cased names; a repeated header is an array. */
  readonly headers: IncomingHttpHeaders;
  /** The body's bytes, decoded by whoever reads it (bodyText): most answers on the hot path are never read. */
  readonly bytes: Buffer;
}

const EMPTY = Buffer.alloc(0);
const NO_HEADERS: IncomingHttpHeaders = Object.freeze({}) as IncomingHttpHeaders;

/** The body of an exchange as UTF-8 text. */
export function bodyText(bytes: Buffer): string {
  return bytes.length === 0 ? '' : bytes.toString('utf8');
}

/** The exchanges in flight under one signal, aborted together by its single listener. */
interface Watch {
  inFlight: Set<InFlight>;
}
interface InFlight {
  onAbort(reason: unknown): void;
}
const watches = new WeakMap<AbortSignal, Watch>();

function watch(signal: AbortSignal, entry: InFlight): Watch {
  let w = watches.get(signal);
  if (!w) {
    const created: Watch = { inFlight: new Set() };
    w = created;
    watches.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of [...created.inFlight]) e.onAbort(signal.reason);
        created.inFlight.clear();
      },
      { once: true },
    );
  }
  w.inFlight.add(entry);
  return w;
}

/** One exchange: the undici handler, its abort entry when a signal is given, and (once complete) its result. */
class ExchangeHandler implements Dispatcher.DispatchHandler, InFlight, Exchange {
  status = 0;
  headers: IncomingHttpHeaders = NO_HEADERS;
  bytes: Buffer = EMPTY;
  watch: Watch | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private chunks: Buffer[] | undefined;

  constructor(
    private readonly resolve: (x: Exchange) => void,
    private readonly reject: (err: unknown) => void,
    private readonly signal: AbortSignal | undefined,
  ) {}

  private done(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.watch?.inFlight.delete(this);
    return true;
  }

  onAbort(reason: unknown): void {
    // Like pool.request(): abort the exchange wherever it is; before it starts, abort it at start.
    this.controller?.abort(reason as Error);
    if (this.done()) this.reject(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    // One chunk (the usual small answer) is kept as is; only a second one starts a list.
    if (this.bytes === EMPTY) this.bytes = chunk;
    else if (this.chunks === undefined) this.chunks = [this.bytes, chunk];
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.done()) return;
    if (this.chunks !== undefined) this.bytes = Buffer.concat(this.chunks);
    this.resolve(this);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.done()) this.reject(err);
  }
}

/**
 * Sends one request (`request` goes to undici as is: no copy per request) and resolves with the
 * status, headers and body bytes; rejects with undici's errors, or the signal's reason when aborted.
 */
export function exchange(pool: Pool, request: Dispatcher.DispatchOptions, signal: AbortSignal | undefined): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const handler = new ExchangeHandler(resolve, reject, signal);
    if (signal) handler.watch = watch(signal, handler);
    pool.dispatch(request, handler);
  });
}
