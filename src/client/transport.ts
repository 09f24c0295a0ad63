/**
 * The client's transport: undici (loaded on the first request, so that a command that sends
 * nothing never loads it), one dispatcher per client, one exchange per request through
 * `Dispatcher.dispatch` and undici 7's controller-style handler, the body's bytes collected whole
 * (bodies here are small JSON documents read whole anyway).
 *
 * The dispatcher: a Pool to the service's origin, or, when a proxy applies (proxy.ts), undici's
 * EnvHttpProxyAgent given the run's HTTP(S)_PROXY/NO_PROXY (CONNECT for https:, absolute-form for
 * http:, as curl does). What undici does not bound, the handler does: the answer's size (also from
 * its Content-Length, before any byte of a 1 GB body is read) and a total deadline per attempt
 * (one coarse timer per transport, not a timer per request), so a server that trickles bytes
 * cannot hold a request forever.
 *
 * Whether a failed request may have reached the service comes from its phase: undici calls
 * onRequestStart once the connection (TLS and proxy tunnel included) is up, just before writing
 * the request; an error before that was not sent, an error after may have been applied.
 *
 * Aborting: a bulk run passes one signal to thousands of requests; each registering and
 * removing its own listener on it cost more than the rest of the exchange's bookkeeping, so every
 * signal gets one listener that aborts the exchanges in flight.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { InFlight } from './in-flight.js';
import type { ProxySettings } from './proxy.js';

export interface Exchange {
  readonly status: number;
  /** Lower-cased names; a repeated header is an array. */
  readonly headers: IncomingHttpHeaders;
  /** The body's bytes, decoded by whoever reads it (bodyText): most answers on the hot path are never read. */
  readonly bytes: Buffer;
  /** Whether the answer has a header of this (lower-case) name. */
  hasHeader(name: string): boolean;
}

export interface ExchangeRequest {
  method: string;
  /** Path and query, as sent (already percent-encoded). */
  path: string;
  /** Reused objects: undici reads them, never keeps them. */
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface TransportOptions {
  /** Keep-alive connections at most (each carries one request at a time). */
  connections: number;
  connectTimeoutMs: number;
  /** From the request written to the answer's complete head. */
  headersTimeoutMs: number;
  /** Between two reads of the answer's body. */
  bodyTimeoutMs: number;
  /** The longest answer accepted, in bytes. */
  maxResponseBytes: number;
  /** The longest one attempt may take, from its dispatch to its answer's last byte. */
  deadlineMs: number;
  /** The run's proxy variables; undefined (or none set) for direct connections. */
  proxy?: ProxySettings;
}

/** The transport's own failures (undici's and Node's keep their codes). */
export const TRANSPORT_CODES = {
  tooLarge: 'SVC_RESPONSE_TOO_LARGE',
  deadline: 'SVC_DEADLINE',
  closed: 'SVC_CLIENT_CLOSED',
} as const;

export class TransportError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/**
 * A failed exchange: the error undici (or Node, or the handler) gave, and whether the request had
 * started (its connection was up and it was being written) when it failed.
 */
export class ExchangeFailure extends Error {
  readonly code: string | undefined;
  constructor(
    readonly error: unknown,
    readonly started: boolean,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = 'ExchangeFailure';
    const e = error as { code?: unknown; errors?: Array<{ code?: unknown }>; cause?: { code?: unknown } } | null;
    const code = e?.code ?? e?.errors?.[0]?.code ?? e?.cause?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

const EMPTY = Buffer.alloc(0);
/** How long closing the client waits for requests still under way before it destroys their connections. */
const CLOSE_GRACE_MS = 2_000;

/** The body of an exchange as UTF-8 text. */
export function bodyText(bytes: Buffer): string {
  return bytes.length === 0 ? '' : bytes.toString('utf8');
}

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
/** undici, loaded once on first use (its index is some 0.15 s of CPU: only commands that send pay it). */
export function loadUndici(): Promise<Undici> {
  undici ??= import('undici');
  return undici;
}

/** The exchanges in flight under one signal, aborted together by its single listener. */
interface Watch {
  inFlight: InFlight<ExchangeHandler>;
}
const watches = new WeakMap<AbortSignal, Watch>();

function watch(signal: AbortSignal, entry: ExchangeHandler): Watch {
  let w = watches.get(signal);
  if (!w) {
    const created: Watch = { inFlight: new InFlight<ExchangeHandler>() };
    w = created;
    watches.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const e of created.inFlight.entries()) e.cancel(signal.reason, false);
      },
      { once: true },
    );
  }
  entry.watchSlot = w.inFlight.add(entry);
  return w;
}

/** One exchange: the undici handler, its abort entry, and (once complete) its result. */
class ExchangeHandler implements Dispatcher.DispatchHandler, Exchange {
  status = 0;
  headers: IncomingHttpHeaders = {};
  bytes: Buffer = EMPTY;
  watch: Watch | undefined;
  /** Its slots in the watch's and the transport's InFlight (-1: none). */
  watchSlot = -1;
  transportSlot = -1;
  /** When the attempt's deadline passes (the transport's sweeper checks it). */
  deadline = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private started = false;
  private settled = false;
  private received = 0;
  private chunks: Buffer[] | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly resolve: (x: Exchange) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  private done(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.watch?.inFlight.delete(this, this.watchSlot);
    this.transport.inFlight.delete(this, this.transportSlot);
    return true;
  }

  /**
   * Ends the exchange with `reason` wherever it is (waiting for a connection, or on one, which is
   * then dropped). `transport`: the reason is the transport's (deadline, size), not an abort.
   */
  cancel(reason: unknown, transport: boolean): void {
    if (!this.done()) return;
    this.controller?.abort(reason as Error);
    this.reject(transport ? new ExchangeFailure(reason, this.started) : reason);
  }

  hasHeader(name: string): boolean {
    return this.headers[name] !== undefined;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Settled while it waited for a connection (aborted, or past its deadline): never written.
    if (this.settled) controller.abort(new TransportError(TRANSPORT_CODES.closed, 'cancelled'));
    else this.started = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
    const length = headers['content-length'];
    if (length !== undefined && Number(length) > this.transport.maxResponseBytes) this.cancel(this.transport.tooLarge(), true);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.received += chunk.length;
    if (this.received > this.transport.maxResponseBytes) {
      this.cancel(this.transport.tooLarge(), true);
      return;
    }
    // One chunk (the usual small answer) is kept as is; only a second one starts a list.
    if (this.bytes === EMPTY) this.bytes = chunk;
    else if (this.chunks === undefined) this.chunks = [this.bytes, chunk];
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.done()) return;
    if (this.chunks !== undefined) this.bytes = Buffer.concat(this.chunks);
    this.transport.answered = true;
    this.resolve(this);
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.done()) this.reject(new ExchangeFailure(err, this.started));
  }
}

/** One origin's transport: its dispatcher (made on the first request), deadlines and limits. */
export class Transport {
  readonly inFlight = new InFlight<ExchangeHandler>();
  readonly maxResponseBytes: number;
  /** Some request got an answer through this transport (a proxy failing later is an outage, not a set-up error). */
  answered = false;
  private dispatcher: Dispatcher | undefined;
  private opening: Promise<Dispatcher> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  /** Dispatchers dropped (dropConnections) and the close each is going through. */
  private readonly retired: { dispatcher: Dispatcher; closing: Promise<void> }[] = [];

  constructor(
    readonly origin: string,
    private readonly options: TransportOptions,
    /** The proxy this origin is reached through (proxy.ts), undefined when direct. */
    readonly proxy: string | undefined,
  ) {
    this.maxResponseBytes = options.maxResponseBytes;
  }

  /** Sends one request; resolves with the answer, rejects with an ExchangeFailure or the signal's reason. */
  exchange(req: ExchangeRequest, signal: AbortSignal | undefined): Promise<Exchange> {
    const d = this.dispatcher;
    if (d !== undefined) return this.start(d, req, signal);
    return this.open().then((opened) => this.start(opened, req, signal));
  }

  tooLarge(): TransportError {
    return new TransportError(
      TRANSPORT_CODES.tooLarge,
      `the answer is larger than ${formatBytes(this.maxResponseBytes)}, the most the client accepts`,
    );
  }

  /**
   * Drops the connections: requests from now on go out on new ones, those in flight finish on
   * theirs, which are then closed (an answer that did not belong to its request leaves a
   * connection that can no longer be trusted).
   */
  dropConnections(): void {
    const old = this.dispatcher;
    if (old === undefined) return;
    this.dispatcher = undefined;
    this.opening = undefined;
    this.retired.push({ dispatcher: old, closing: old.close().catch(() => undefined) });
  }

  /**
   * Waits for the requests under way, then closes every connection; later requests fail. What is
   * still open after CLOSE_GRACE_MS is destroyed: a request given up on (Ctrl-C, the patience with
   * a silent proxy) can leave a proxy's CONNECT pending that no abort reaches, and a graceful
   * close would wait for it forever.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const d = this.dispatcher ?? (this.opening ? await this.opening.catch(() => undefined) : undefined);
    this.dispatcher = undefined;
    const every = [...this.retired, ...(d ? [{ dispatcher: d, closing: d.close().catch(() => undefined) }] : [])];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
    });
    const ended = await Promise.race([Promise.all(every.map((r) => r.closing)), late]);
    clearTimeout(timer);
    if (ended === 'late') await Promise.all(every.map((r) => r.dispatcher.destroy().catch(() => undefined)));
  }

  private start(d: Dispatcher, req: ExchangeRequest, signal: AbortSignal | undefined): Promise<Exchange> {
    return new Promise<Exchange>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const handler = new ExchangeHandler(this, resolve, reject);
      handler.deadline = Date.now() + this.options.deadlineMs;
      handler.transportSlot = this.inFlight.add(handler);
      if (signal) handler.watch = watch(signal, handler);
      d.dispatch(
        {
          origin: this.origin,
          method: req.method as Dispatcher.HttpMethod,
          path: req.path,
          headers: req.headers,
          body: req.body,
        },
        handler,
      );
    });
  }

  private open(): Promise<Dispatcher> {
    if (this.closed) return Promise.reject(new ExchangeFailure(new TransportError(TRANSPORT_CODES.closed, 'the client is closed'), false));
    this.opening ??= loadUndici().then((u) => {
      const o = this.options;
      const common = {
        connections: o.connections,
        pipelining: 1,
        // Without a Keep-Alive timeout from the server, an idle connection is kept 4 s (undici's
        // default): a server that closes idle connections sooner than the client reuses them turns
        // a request into a reset, and a non-idempotent one into "may have been applied".
        keepAliveTimeout: 4_000,
        connect: { timeout: o.connectTimeoutMs },
        headersTimeout: o.headersTimeoutMs,
        bodyTimeout: o.bodyTimeoutMs,
        maxResponseSize: o.maxResponseBytes,
      };
      const d: Dispatcher =
        this.proxy !== undefined && o.proxy !== undefined
          ? new u.EnvHttpProxyAgent({
              ...common,
              httpProxy: o.proxy.httpProxy ?? '',
              httpsProxy: o.proxy.httpsProxy ?? '',
              noProxy: o.proxy.noProxy ?? '',
              // http: through the proxy as curl sends it (absolute-form), https: through CONNECT.
              proxyTunnel: false,
            })
          : new u.Pool(this.origin, common);
      if (this.closed) {
        void d.close();
        throw new ExchangeFailure(new TransportError(TRANSPORT_CODES.closed, 'the client is closed'), false);
      }
      this.dispatcher = d;
      this.startSweeper();
      return d;
    });
    return this.opening;
  }

  /** One coarse timer per transport checks every exchange's deadline: no timer per request. */
  private startSweeper(): void {
    if (this.sweeper !== undefined) return;
    const period = Math.max(10, Math.min(1000, this.options.deadlineMs / 4));
    this.sweeper = setInterval(() => {
      if (this.inFlight.size === 0) return;
      const now = Date.now();
      for (const h of this.inFlight.entries()) {
        if (h.deadline <= now) {
          h.cancel(new TransportError(TRANSPORT_CODES.deadline, `no complete answer within ${formatMs(this.options.deadlineMs)}`), true);
        }
      }
    }, period);
    this.sweeper.unref();
  }
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
