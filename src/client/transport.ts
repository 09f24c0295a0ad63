/**
 * One HTTP exchange on the client's connection pool (h1/pool.ts), collecting the body's bytes:
 * bodies here are small JSON documents read whole anyway.
 *
 * The handler is the only object this module allocates per exchange; it is also what the promise
 * resolves with.
 *
 * Aborting: a bulk run passes one signal to thousands of requests; each registering and
 * removing its own listener on it (an AbortSignal.any, even) cost more than the rest of the
 * exchange's bookkeeping, so every signal gets one listener that aborts the exchanges in flight.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { H1Job, H1Pool, H1Request, H1Sink } from './h1/pool.js';
import { hasHeader, headersOf, type ResponseHead } from './h1/wire.js';

export interface Exchange {
  readonly status: number;
  /** Lower-cased names; a repeated header is an array. Parsed from the head on first access. */
  readonly headers: IncomingHttpHeaders;
  /** The body's bytes, decoded by whoever reads it (bodyText): most answers on the hot path are never read. */
  readonly bytes: Buffer;
  /** Whether the answer has a header of this (lower-case) name, without parsing the headers. */
  hasHeader(name: string): boolean;
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

/** One exchange: the pool's sink, its abort entry when a signal is given, and (once complete) its result. */
class ExchangeHandler implements H1Sink, InFlight, Exchange {
  status = 0;
  bytes: Buffer = EMPTY;
  private head = '';
  private parsedHeaders: IncomingHttpHeaders | undefined;
  watch: Watch | undefined;
  job: H1Job | undefined;
  settled = false;

  constructor(
    private readonly pool: H1Pool,
    private readonly resolve: (x: Exchange) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  private done(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.watch?.inFlight.delete(this);
    return true;
  }

  onAbort(reason: unknown): void {
    // Abort the exchange wherever it is: out of the queue, or its connection dropped.
    if (!this.done()) return;
    this.reject(reason);
    if (this.job !== undefined) this.pool.abort(this.job, reason instanceof Error ? reason : new Error(String(reason)));
  }

  get headers(): IncomingHttpHeaders {
    if (this.parsedHeaders === undefined) this.parsedHeaders = this.head === '' ? NO_HEADERS : headersOf(this.head);
    return this.parsedHeaders;
  }

  hasHeader(name: string): boolean {
    return this.head !== '' && hasHeader(this.head, name);
  }

  onH1Response(head: ResponseHead, bytes: Buffer): void {
    if (!this.done()) return;
    this.status = head.status;
    this.head = head.text;
    this.bytes = bytes;
    this.resolve(this);
  }

  onH1Error(err: Error): void {
    if (this.done()) this.reject(err);
  }
}

/**
 * Sends one request and resolves with the status, headers and body bytes; rejects with the pool's
 * or the socket's errors (h1/wire.ts's codes, Node's), or the signal's reason when aborted.
 */
export function exchange(pool: H1Pool, request: H1Request, signal: AbortSignal | undefined): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const handler = new ExchangeHandler(pool, resolve, reject);
    handler.job = pool.dispatch(request, handler);
    if (signal && !handler.settled) handler.watch = watch(signal, handler);
  });
}
