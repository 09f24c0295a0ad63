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
import { isIP, connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Connection, type ConnectionOwner, H1Job, type H1PoolOptions, type H1Request, type H1Sink } from './connection.js';
import { H1_CODES, H1Error, markSent, requestHead } from './wire.js';

export { H1Job, type H1PoolOptions, type H1Request, type H1Sink };

/** A request the closed pool never sent. */
const closedError = () => markSent(new H1Error(H1_CODES.poolClosed, 'the client is closed'), false);

export class H1Pool implements ConnectionOwner {
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
  /** What close() returns, every time it is called. */
  private closing: Promise<void> | undefined;

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
      sink.onH1Error(closedError());
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
    } else if (job.conn !== null) job.conn.fail(reason, false);
  }

  /** Waits for the requests under way, then closes every connection; later requests fail. */
  close(): Promise<void> {
    if (this.closing !== undefined) return this.closing;
    this.closed = true;
    if (this.busy() === 0) {
      this.shutdown();
      this.closing = Promise.resolve();
    } else {
      this.closing = new Promise((resolve) => {
        this.onDrained = () => {
          this.shutdown();
          resolve();
        };
      });
    }
    return this.closing;
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
    for (const job of this.queue.splice(0)) job.sink.onH1Error(closedError());
    for (const conn of [...this.conns]) conn.fail(closedError(), false);
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
