/**
 * One connection of the HTTP/1.1 pool (pool.ts): a socket carrying one request at a time, reading
 * its answer as the bytes arrive (wire.ts), then handing itself back to its owner or dropping out.
 */
import type { Socket } from 'node:net';
import { ChunkedDecoder, H1_CODES, H1Error, MAX_HEAD_BYTES, markSent, parseResponseHead, type ResponseHead } from './wire.js';

/** 1xx answers taken before the final one, at most (a server sending them forever is not answering). */
const MAX_INFORMATIONAL = 16;

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

/** What a connection needs of its pool. */
export interface ConnectionOwner {
  readonly options: H1PoolOptions;
  /** The answer is complete and the connection may carry another request. */
  release(conn: Connection): void;
  /** The connection is gone (failed, closed, dropped). */
  remove(conn: Connection): void;
}

export class Connection {
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
  private informational = 0;
  keepAliveMs: number;

  /** `sharedReads`: the socket reads into the pool's one buffer (net's onread) and calls onData itself. */
  constructor(
    private readonly pool: ConnectionOwner,
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
    this.informational = 0;
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

  /**
   * Fails the request in flight (if any) and drops the connection. The error is marked with
   * whether the request's bytes may have reached the server, from the connection's phase rather
   * than the error's code: before the connection (and its TLS handshake) was up, nothing was
   * sent; after, the request was written, whatever failed (a reset, a corrupt TLS record, a kernel
   * timeout). `mark: false` for a reason that is not the transport's (an abort).
   */
  fail(err: Error, mark = true): void {
    if (mark) markSent(err, this.connected);
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
      if (end < 0 ? buf.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES) {
        throw new H1Error(H1_CODES.badResponse, 'malformed HTTP answer (head too large)');
      }
      if (end < 0) {
        this.pending = shared ? Buffer.from(buf) : buf;
        return;
      }
      const parsed = parseResponseHead(buf.toString('latin1', 0, end), job.noBody);
      buf = buf.subarray(end + 4);
      if (parsed.status < 200) {
        // 1xx (103 Early Hints, a 100 nobody asked for) precede the answer; 101 would switch protocols.
        if (parsed.status === 101) throw new H1Error(H1_CODES.badResponse, 'malformed HTTP answer (unexpected protocol switch)');
        if (++this.informational > MAX_INFORMATIONAL)
          throw new H1Error(H1_CODES.badResponse, 'malformed HTTP answer (too many 1xx answers)');
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
      // From here on the wait is for the body, however long the head took to come.
      this.deadline = Date.now() + this.pool.options.bodyTimeoutMs;
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
