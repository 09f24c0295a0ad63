/**
 * Raw servers for transport tests: a TCP server that reads each HTTP request (head and
 * Content-Length body) and answers with exactly the bytes a test gives (as real servers do, and as
 * broken ones do), a self-signed certificate for TLS tests, and a forward proxy (absolute-form
 * requests and CONNECT tunnels) that records what went through it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Cleanup = () => Promise<void> | void;

export interface RawRequest {
  head: string;
  body: string;
  /** 1-based count of requests this server has read (all connections). */
  n: number;
  socket: Socket;
}

export interface RawServer {
  origin: string;
  port: number;
  connections(): number;
  requests(): number;
  close(): Promise<void>;
}

/**
 * Answers each request with the pieces `answer` returns (each a separate write, 5 ms apart), or
 * nothing when it returns null (the test writes on `socket` itself).
 */
export async function rawServer(answer: (req: RawRequest) => Array<string | Buffer> | null, cleanups: Cleanup[]): Promise<RawServer> {
  const sockets = new Set<Socket>();
  let requests = 0;
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', async (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.toString('latin1', 0, end);
        const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        const body = buf.toString('utf8', end + 4, end + 4 + len);
        buf = buf.subarray(end + 4 + len);
        const pieces = answer({ head, body, n: ++requests, socket });
        if (pieces === null) continue;
        for (const [i, p] of pieces.entries()) {
          if (i > 0) await new Promise((r) => setTimeout(r, 5));
          if (!socket.destroyed) socket.write(p);
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
    return closing;
  };
  cleanups.push(close);
  return { origin: `http://127.0.0.1:${port}`, port, connections: () => connections, requests: () => requests, close };
}

/** A 200 answer with a JSON body (and extra header lines). */
export const ok = (body = '{"ok":true}', extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** A self-signed certificate for localhost (and 127.0.0.1) in a temporary folder; the caller removes it. */
export function selfSignedCert(): { dir: string; key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { dir, key, cert };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface ForwardProxy {
  url: string;
  port: number;
  /** What went through: `GET http://host/path` for absolute-form requests, `CONNECT host:port` for tunnels. */
  seen: string[];
  /** The Proxy-Authorization headers received. */
  auth: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * A forward proxy as companies run them: absolute-form requests relayed to the origin, CONNECT
 * opening a tunnel. With `requireAuth`, a request without that Proxy-Authorization gets 407.
 */
export async function forwardProxy(cleanups: Cleanup[], requireAuth?: string): Promise<ForwardProxy> {
  const seen: string[] = [];
  const auth: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      const [requestLine = '', ...lines] = head.split('\r\n');
      const [method = '', target = ''] = requestLine.split(' ');
      const proxyAuth = lines.find((l) => /^proxy-authorization:/i.test(l))?.replace(/^[^:]*:\s*/, '');
      seen.push(`${method} ${target}`);
      auth.push(proxyAuth);
      if (requireAuth !== undefined && proxyAuth !== requireAuth) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="p"\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      if (method === 'CONNECT') {
        client.off('data', onData);
        const [host = '', port = ''] = target.split(':');
        const up = netConnect(Number(port), host === 'localhost' ? '127.0.0.1' : host);
        up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
        up.on('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          const rest = buf.subarray(end + 4);
          if (rest.length) up.write(rest);
          client.pipe(up);
          up.pipe(client);
        });
        sockets.add(up);
        up.on('close', () => sockets.delete(up));
        return;
      }
      // Absolute-form: relay one request at a time with Node's client (the proxy's own connection).
      client.off('data', onData);
      const url = new URL(target);
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        const name = l.slice(0, i).toLowerCase();
        if (name !== 'proxy-authorization' && name !== 'proxy-connection') headers[name] = l.slice(i + 1).trim();
      }
      const len = Number(headers['content-length'] ?? 0);
      const relay = () => {
        const body = buf.subarray(end + 4, end + 4 + len);
        const rest = buf.subarray(end + 4 + len);
        buf = Buffer.alloc(0);
        const up = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const b = Buffer.concat(chunks);
            const out = [`HTTP/1.1 ${res.statusCode} ${res.statusMessage}`];
            for (const [k, v] of Object.entries(res.headers)) {
              if (k === 'transfer-encoding' || k === 'connection' || k === 'content-length' || k === 'keep-alive') continue;
              for (const one of Array.isArray(v) ? v : [v]) out.push(`${k}: ${one}`);
            }
            out.push(`content-length: ${b.length}`);
            client.write(`${out.join('\r\n')}\r\n\r\n`);
            client.write(b);
            client.on('data', onData);
            if (rest.length) onData(rest);
          });
        });
        up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n'));
        up.end(body);
      };
      if (buf.length >= end + 4 + len) relay();
      else {
        const more = (d2: Buffer) => {
          buf = Buffer.concat([buf, d2]);
          if (buf.length >= end + 4 + len) {
            client.off('data', more);
            relay();
          }
        };
        client.on('data', more);
      }
    };
    client.on('data', onData);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  cleanups.push(close);
  return { url: `http://127.0.0.1:${port}`, port, seen, auth, close };
}
