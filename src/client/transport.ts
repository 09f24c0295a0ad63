/**
 * One HTTP exchange on an undici Pool through `dispatch`, collecting the body into one string.
 * `pool.request()` wraps every answer in a Readable stream and its promise machinery; on the
 * importer's and the bulk sender's hot path that wrapper cost more CPU than the rest of the
 * client together, and bodies here are small JSON documents read whole anyway. The handler uses
 * undici's native callbacks (onConnect/onHeaders/onData/onComplete/onError): the newer
 * controller-style ones are adapted to these through a wrapper object per request.
 *
 * Headers come back raw (name, value, name, value …): most answers on the hot path need none of
 * them, so `headerObject` builds the object only for whoever asks (client.ts does it lazily).
 * Aborting: a bulk run passes one signal to thousands of requests; each registering and
 * removing its own listener on it (an AbortSignal.any, even) cost more than the rest of the
 * exchange's bookkeeping, so every signal gets one listener that aborts the exchanges in flight.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher, Pool } from 'undici';

export type RawHeaders = Buffer[] | string[];

export interface Exchange {
  status: number;
  rawHeaders: RawHeaders;
  /** The body's bytes, decoded by whoever reads it (bodyText): most answers on the hot path are never read. */
  bytes: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** The body of an exchange as UTF-8 text. */
export function bodyText(bytes: Buffer): string {
  return bytes.length === 0 ? '' : bytes.toString('utf8');
}

export interface ExchangeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

const NO_HEADERS: RawHeaders = [];

/** Raw header pairs (name, value buffers) to a lower-cased object; repeated names become arrays. */
export function headerObject(raw: RawHeaders | null): IncomingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  if (!raw) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer | string).toString('latin1').toLowerCase();
    const value = (raw[i + 1] as Buffer | string).toString('latin1');
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out as IncomingHttpHeaders;
}

/** Whether a header (lower-case `name`) is present, without building the header object. */
export function hasRawHeader(raw: RawHeaders, name: string): boolean {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const n = raw[i] as Buffer | string;
    if (n.length === name.length && n.toString('latin1').toLowerCase() === name) return true;
  }
  return false;
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

/** One exchange: the undici handler and, when a signal is given, its abort entry. */
class Handler implements InFlight {
  private abortExchange: ((reason?: unknown) => void) | undefined;
  private settled = false;
  private status = 0;
  private rawHeaders: RawHeaders = NO_HEADERS;
  private chunk: Buffer | undefined;
  private chunks: Buffer[] | undefined;
  watch: Watch | undefined;

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
    this.abortExchange?.(reason);
    if (this.done()) this.reject(reason);
  }

  onConnect(abort: (reason?: unknown) => void): void {
    this.abortExchange = abort;
    if (this.signal?.aborted) abort(this.signal.reason);
  }

  onHeaders(statusCode: number, rawHeaders: RawHeaders | null): boolean {
    this.status = statusCode;
    this.rawHeaders = rawHeaders ?? NO_HEADERS;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.chunk === undefined) this.chunk = chunk;
    else if (this.chunks === undefined) this.chunks = [this.chunk, chunk];
    else this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (!this.done()) return;
    const bytes = this.chunks ? Buffer.concat(this.chunks) : (this.chunk ?? EMPTY);
    this.resolve({ status: this.status, rawHeaders: this.rawHeaders, bytes });
  }

  onError(err: Error): void {
    if (this.done()) this.reject(err);
  }
}

/** Sends one request and resolves with the status, raw headers and body bytes; rejects with undici's errors. */
export function exchange(pool: Pool, req: ExchangeRequest): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const signal = req.signal;
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const handler = new Handler(resolve, reject, signal);
    if (signal) handler.watch = watch(signal, handler);
    pool.dispatch(
      { method: req.method as Dispatcher.HttpMethod, path: req.path, headers: req.headers, body: req.body },
      handler as unknown as Dispatcher.DispatchHandler,
    );
  });
}
