/**
 * The client's HTTP/1.1 connection pool: up to N keep-alive connections to one origin (http: or
 * https:), one request at a time on each (no pipelining), the others waiting in order.
 *
 * Why our own and not undici's Pool (which the client used until 2026-11-26): per request, undici
 * builds and validates a Request, parses the answer's head through llhttp's callbacks into header
 * buffers, and creates and clears a native keep-alive timer and an idle-socket check; measured in
 * one process on the same sandbox, a bare `Pool.dispatch` loop cost 37–48 µs of CPU per request and
 * this pool 16–21 µs (docs/performance.md, "Third round"). The per-request work here is one
 * string written, the answer's head found with one search and parsed, and two timestamps: timeouts
 * are checked by one coarse timer per pool, not a timer per request.
 *
 * What it does not do, because the service does not need it: pipelining, HTTP/2, proxies,
 * compression (no Accept-Encoding is sent), upgrades, 100-continue.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { ChunkedDecoder, H1_CODES, H1Error, MAX_HEAD_BYTES, parseResponseHead, type ResponseHead, requestHead } from './wire.js';

export interface H1PoolOptions {
  /** Connections at most (each carries one request at a time). */
  connections: number;
  connectTimeoutMs: number;
  /** From the request written to the answer's complete head. */
  headersTimeoutMs: number;
  /** Between two reads of the answer's body. */
  bodyTimeoutMs: number;
  /** How long an idle connection is kept when the server gives no Keep-Alive timeout. */
  keepAliveMs: number;
}

export interface H1Request {
  method: string;
  /** Path and query, as sent (already percent-encoded). */
  path: string;
  /** Reused objects are serialised once (wire.ts). */
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Who is told the outcome: exactly one of the two calls, once. */
export interface H1Sink {
  /** The answer's head (wire.ts: status, and the headers read from it when asked) and its body. */
  onH1Response(head: ResponseHead, bytes: Buffer): void;
  onH1Error(err: Error): void;
}

/** A request on its way: waiting for a connection, or on one. */
export class H1Job {
  conn: Connection | null = null;
  constructor(
    readonly sink: H1Sink,
    /** The head (and a string body) as one string, or the head's bytes and a Buffer body. */
    readonly wire: string | Buffer[],
    readonly noBody: boolean,
  ) {}
}

const EMPTY = Buffer.alloc(0);
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** A server's Keep-Alive timeout is not trusted to the last moment: this much earlier the connection is dropped instead. */
const KEEP_ALIVE_MARGIN_MS = 2000;

class Connection {
  readonly socket: Socket;
  job: H1Job | null = null;
  connected = false;
  /** When the current wait (connect, head, next body bytes) times out; when idle, when the connection expires. */
  deadline = 0;
  /** The answer's head, once it is complete. */
  head: ResponseHead | null = null;
  private pending: Buffer | null = null;
  private chunks: Buffer[] | null = null;
  private first: Buffer = EMPTY;
  private received = 0;
  private decoder: ChunkedDecoder | null = null;
  keepAliveMs: number;

  /** `sharedReads`: the socket reads into the pool's one buffer (net's onread) and calls onData itself. */
  constructor(
    private readonly pool: H1Pool,
    socket: Socket,
    sharedReads: boolean,
  ) {
    this.socket = socket;
    this.keepAliveMs = pool.options.keepAliveMs;
    socket.setNoDelay(true);
    if (!sharedReads) socket.on('data', (chunk: Buffer) => this.onData(chunk, false));
    socket.on('end', () => this.onEnd());
    socket.on('error', (err: Error) => this.fail(err));
    socket.on('close', () => this.fail(new H1Error(H1_CODES.closed, 'the connection closed before the answer was complete')));
  }

  onConnected(): void {
    this.connected = true;
    if (this.job !== null) this.deadline = Date.now() + this.pool.options.headersTimeoutMs;
  }

  start(job: H1Job): void {
    this.job = job;
    job.conn = this;
    this.head = null;
    this.pending = null;
    this.chunks = null;
    this.first = EMPTY;
    this.received = 0;
    this.decoder = null;
    this.socket.ref();
    const now = Date.now();
    this.deadline = now + (this.connected ? this.pool.options.headersTimeoutMs : this.pool.options.connectTimeoutMs);
    const { wire } = job;
    if (typeof wire === 'string') this.socket.write(wire);
    else {
      this.socket.cork();
      for (const part of wire) this.socket.write(part);
      this.socket.uncork();
    }
  }

  /** Fails the request in flight (if any) and drops the connection. */
  fail(err: Error): void {
    const job = this.job;
    this.job = null;
    if (job !== null) job.conn = null;
    this.pool.remove(this);
    if (!this.socket.destroyed) this.socket.destroy();
    if (job !== null) job.sink.onH1Error(err);
  }

  /** Bytes from the socket; `shared`: they sit in the pool's read buffer, overwritten by the next read (what is kept is copied). */
  onData(chunk: Buffer, shared: boolean): void {
    if (this.job === null) {
      // Bytes nobody asked for on an idle connection: it can no longer be trusted.
      this.fail(new H1Error(H1_CODES.badResponse, 'unexpected bytes on an idle connection'));
      return;
    }
    try {
      this.receive(chunk, shared);
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private onEnd(): void {
    const job = this.job;
    if (job !== null && this.head !== null && this.head.body === 'close') {
      this.complete(this.bytes(), EMPTY, false);
      return;
    }
    this.fail(new H1Error(H1_CODES.closed, 'the connection closed before the answer was complete'));
  }

  private receive(chunk: Buffer, sharedChunk: boolean): void {
    const job = this.job as H1Job;
    let buf = chunk;
    let shared = sharedChunk;
    let head = this.head;
    while (head === null) {
      if (this.pending !== null) {
        buf = Buffer.concat([this.pending, buf]);
        shared = false;
        this.pending = null;
      }
      const end = buf.indexOf(HEAD_END);
      if (end < 0) {
        if (buf.length > MAX_HEAD_BYTES) throw new H1Error(H1_CODES.badResponse, 'malformed HTTP answer (head too large)');
        this.pending = shared ? Buffer.from(buf) : buf;
        return;
      }
      const parsed = parseResponseHead(buf.toString('latin1', 0, end), job.noBody);
      buf = buf.subarray(end + 4);
      if (parsed.status < 200) {
        // 1xx (103 Early Hints, a 100 nobody asked for) precede the answer; 101 would switch protocols.
        if (parsed.status === 101) throw new H1Error(H1_CODES.badResponse, 'malformed HTTP answer (unexpected protocol switch)');
        if (buf.length === 0) return;
        continue;
      }
      head = parsed;
      this.head = parsed;
      if (parsed.keepAliveMs !== undefined) {
        this.keepAliveMs = Math.max(parsed.keepAliveMs - KEEP_ALIVE_MARGIN_MS, parsed.keepAliveMs / 2);
      }
      if (parsed.body === 'none') {
        this.complete(EMPTY, buf, parsed.keepAlive);
        return;
      }
      if (parsed.body === 'chunked') this.decoder = new ChunkedDecoder();
    }
    if (buf.length === 0) return;
    this.deadline = Date.now() + this.pool.options.bodyTimeoutMs;
    if (head.body === 'length') {
      const need = head.length - this.received;
      if (buf.length < need) {
        this.add(buf, shared);
        return;
      }
      this.add(buf.length === need ? buf : buf.subarray(0, need), shared);
      this.complete(this.bytes(), buf.subarray(need), head.keepAlive);
    } else if (head.body === 'chunked') {
      const parts: Buffer[] = [];
      const used = (this.decoder as ChunkedDecoder).push(buf, parts);
      for (const p of parts) this.add(p, shared);
      if (used >= 0) this.complete(this.bytes(), buf.subarray(used), head.keepAlive);
    } else {
      this.add(buf, shared);
    }
  }

  private add(view: Buffer, shared: boolean): void {
    const part = shared ? Buffer.from(view) : view;
    this.received += part.length;
    if (this.first === EMPTY && this.chunks === null) this.first = part;
    else if (this.chunks === null) this.chunks = [this.first, part];
    else this.chunks.push(part);
  }

  private bytes(): Buffer {
    return this.chunks === null ? this.first : Buffer.concat(this.chunks);
  }

  /** The answer is complete: the connection goes back to the pool (or is dropped), then the sink hears of it. */
  private complete(bytes: Buffer, rest: Buffer, keepAlive: boolean): void {
    const job = this.job as H1Job;
    const head = this.head as ResponseHead;
    this.job = null;
    job.conn = null;
    this.head = null;
    this.chunks = null;
    this.first = EMPTY;
    // More bytes than the answer: the server is not speaking one answer per request; drop it.
    if (keepAlive && rest.length === 0 && !this.socket.destroyed) this.pool.release(this);
    else {
      this.pool.remove(this);
      this.socket.destroy();
    }
    job.sink.onH1Response(head, bytes);
  }
}

export class H1Pool {
  readonly options: H1PoolOptions;
  private readonly https: boolean;
  private readonly hostname: string;
  private readonly port: number;
  /** The Host header (the URL's host: name and any non-default port). */
  private readonly host: string;
  private readonly conns = new Set<Connection>();
  /** Idle connections, the most recently used last (taken first: the least likely to have been closed by the server). */
  private readonly idle: Connection[] = [];
  private readonly queue: H1Job[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  /** Where plain TCP connections read (onread): 64 KiB, the size Node reads at a time. */
  private readonly readBuffer = Buffer.allocUnsafe(64 * 1024);
  private onDrained: (() => void) | undefined;

  constructor(origin: string, options: H1PoolOptions) {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    this.https = url.protocol === 'https:';
    this.hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port ? Number(url.port) : this.https ? 443 : 80;
    this.host = url.host;
    this.options = options;
  }

  /** Queues a request; throws H1Error (SVC_INVALID_REQUEST) at once for one that cannot be sent as built. */
  dispatch(req: H1Request, sink: H1Sink): H1Job {
    const body = req.body;
    const length = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    const head = requestHead(req.method, req.path, this.host, req.headers, length);
    let wire: string | Buffer[];
    if (head.ascii && (body === undefined || typeof body === 'string')) wire = body === undefined ? head.text : head.text + body;
    else {
      wire = [Buffer.from(head.text, 'latin1')];
      if (body !== undefined && length > 0) wire.push(typeof body === 'string' ? Buffer.from(body) : body);
    }
    const job = new H1Job(sink, wire, req.method === 'HEAD');
    if (this.closed) {
      sink.onH1Error(new H1Error(H1_CODES.poolClosed, 'the client is closed'));
      return job;
    }
    const conn = this.takeIdle();
    if (conn !== undefined) conn.start(job);
    else if (this.conns.size < this.options.connections) this.open(job);
    else this.queue.push(job);
    return job;
  }

  /** Aborts a request: out of the queue, or its connection dropped. */
  abort(job: H1Job, reason: Error): void {
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      job.sink.onH1Error(reason);
    } else if (job.conn !== null) job.conn.fail(reason);
  }

  /** Waits for the requests under way, then closes every connection; later requests fail. */
  close(): Promise<void> {
    this.closed = true;
    if (this.busy() === 0) {
      this.shutdown();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.onDrained = () => {
        this.shutdown();
        resolve();
      };
    });
  }

  /** Called by a connection whose answer is complete and which may carry another request. */
  release(conn: Connection): void {
    const next = this.queue.shift();
    if (next !== undefined) {
      conn.start(next);
      return;
    }
    conn.socket.unref();
    conn.deadline = Date.now() + conn.keepAliveMs;
    this.idle.push(conn);
    this.checkDrained();
  }

  /** Called by a connection that is gone (failed, closed, dropped): a waiting request gets a new one. */
  remove(conn: Connection): void {
    if (!this.conns.delete(conn)) return;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    const next = this.queue.shift();
    if (next !== undefined) this.open(next);
    if (this.conns.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    this.checkDrained();
  }

  private busy(): number {
    return this.conns.size - this.idle.length + this.queue.length;
  }

  private checkDrained(): void {
    if (this.onDrained !== undefined && this.busy() === 0) {
      const done = this.onDrained;
      this.onDrained = undefined;
      done();
    }
  }

  private shutdown(): void {
    for (const job of this.queue.splice(0)) job.sink.onH1Error(new H1Error(H1_CODES.poolClosed, 'the client is closed'));
    for (const conn of [...this.conns]) conn.fail(new H1Error(H1_CODES.poolClosed, 'the client is closed'));
  }

  private takeIdle(): Connection | undefined {
    const now = Date.now();
    for (;;) {
      const conn = this.idle.pop();
      if (conn === undefined) return undefined;
      if (conn.deadline > now && !conn.socket.destroyed && conn.socket.writable) return conn;
      this.conns.delete(conn);
      conn.socket.destroy();
    }
  }

  private open(job: H1Job): void {
    let conn: Connection | undefined;
    // Plain TCP reads into the pool's one buffer (no Buffer and no stream machinery per read; the
    // callbacks run one at a time, and what an answer keeps is copied). TLS sockets take no onread.
    const socket = this.https
      ? tlsConnect({
          host: this.hostname,
          port: this.port,
          servername: isIP(this.hostname) ? undefined : this.hostname,
          ALPNProtocols: ['http/1.1'],
        })
      : netConnect({
          host: this.hostname,
          port: this.port,
          onread: {
            buffer: this.readBuffer,
            callback: (n: number, buf: Uint8Array) => {
              conn?.onData((buf as Buffer).subarray(0, n), true);
              return true;
            },
          },
        });
    conn = new Connection(this, socket, !this.https);
    socket.once(this.https ? 'secureConnect' : 'connect', () => conn.onConnected());
    this.conns.add(conn);
    this.startSweeper();
    conn.start(job);
  }

  /** One coarse timer per pool checks every connection's deadline: no timer per request. */
  private startSweeper(): void {
    if (this.sweeper !== undefined) return;
    const o = this.options;
    const period = Math.max(10, Math.min(1000, o.connectTimeoutMs / 4, o.headersTimeoutMs / 4, o.bodyTimeoutMs / 4));
    this.sweeper = setInterval(() => this.sweep(), period);
    this.sweeper.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const conn of [...this.conns]) {
      if (conn.deadline > now) continue;
      if (conn.job === null) {
        // Idle past its keep-alive time.
        const i = this.idle.indexOf(conn);
        if (i >= 0) this.idle.splice(i, 1);
        this.conns.delete(conn);
        conn.socket.destroy();
        continue;
      }
      const o = this.options;
      const err = !conn.connected
        ? new H1Error(H1_CODES.connectTimeout, `connect timeout (${o.connectTimeoutMs} ms)`)
        : conn.head === null
          ? new H1Error(H1_CODES.headersTimeout, `no answer within ${o.headersTimeoutMs} ms`)
          : new H1Error(H1_CODES.bodyTimeout, `the answer's body stalled for ${o.bodyTimeoutMs} ms`);
      conn.fail(err);
    }
  }
}
