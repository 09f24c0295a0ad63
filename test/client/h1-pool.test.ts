/**
 * The client's HTTP/1.1 pool (src/client/h1/pool.ts) against raw TCP servers that answer as real
 * servers do (and as broken ones do): keep-alive and its limits, connection counts, timeouts,
 * aborts, malformed answers, TLS. The whole client suite runs on the same pool against the sandbox.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { H1Pool, type H1PoolOptions } from '../../src/client/h1/pool.js';
import { H1_CODES } from '../../src/client/h1/wire.js';
import { classifyNetworkError } from '../../src/client/network.js';
import { exchange } from '../../src/client/transport.js';

// The pool as a plain ES module, for the child processes below (no TypeScript loader there).
const bundleDir = mkdtempSync(join(tmpdir(), 'svc-h1-'));
const poolModule = join(bundleDir, 'pool.mjs');
beforeAll(async () => {
  await build({
    entryPoints: [new URL('../../src/client/h1/pool.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: poolModule,
    logLevel: 'warning',
  });
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

/** Runs an ES module script in a child process (asynchronously: the servers here live in this process). */
function runChild(script: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000, env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const OPTIONS: H1PoolOptions = { connections: 4, connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, keepAliveMs: 30_000 };
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A server that reads each request head (and its Content-Length body) and answers with what
 * `answer` returns, written in the pieces given (each piece a separate write, 5 ms apart).
 */
async function rawServer(answer: (req: { head: string; body: string; n: number; socket: Socket }) => Array<string | Buffer> | null) {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: Server = createServer((socket) => {
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
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
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
  let connections = 0;
  server.on('connection', () => connections++);
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return { origin: `http://127.0.0.1:${port}`, connections: () => connections, open: () => sockets.size, requests: () => requests };
}

function pool(origin: string, opts: Partial<H1PoolOptions> = {}): H1Pool {
  const p = new H1Pool(origin, { ...OPTIONS, ...opts });
  cleanups.push(() => p.close());
  return p;
}

const ok = (body = '{"ok":true}', extra = '') => [
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
];
const get = (p: H1Pool, path = '/x', signal?: AbortSignal) =>
  exchange(p, { method: 'GET', path, headers: { accept: 'application/json' } }, signal);

describe('the HTTP/1.1 pool', () => {
  it('sends the request as written and reads an answer that arrives in pieces', async () => {
    let seen = '';
    const s = await rawServer(({ head, body }) => {
      seen = `${head}\n${body}`;
      return ['HTTP/1.1 201 Cre', 'ated\r\nx-request-id: r1\r\nContent-Length: 7\r\n\r\n{"a"', ':1}'];
    });
    const p = pool(s.origin);
    const r = await exchange(
      p,
      { method: 'POST', path: '/v1/contacts?x=1', headers: { authorization: 'Bearer t' }, body: '{"é":1}' },
      undefined,
    );
    expect(r.status).toBe(201);
    expect(r.headers['x-request-id']).toBe('r1');
    expect(r.bytes.toString()).toBe('{"a":1}');
    expect(seen).toBe(
      `POST /v1/contacts?x=1 HTTP/1.1\r\nhost: ${s.origin.slice(7)}\r\nauthorization: Bearer t\r\ncontent-length: 8\n{"é":1}`,
    );
  });

  it('reads chunked answers, answers ending with the connection, and skips 1xx answers', async () => {
    const s = await rawServer(({ n }) => {
      if (n === 1) return ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n', '3\r\n:1}\r\n0\r\n\r\n'];
      if (n === 2) return ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', ...ok('{"b":2}')];
      return ['HTTP/1.1 200 OK\r\n\r\n{"c"', ':3}', Buffer.alloc(0)];
    });
    const p = pool(s.origin, { connections: 1 });
    expect((await get(p)).bytes.toString()).toBe('{"a":1}');
    expect((await get(p)).bytes.toString()).toBe('{"b":2}');
    // The third answer has no length: it ends when the server closes.
    const third = get(p);
    setTimeout(() => cleanups[0]?.(), 100);
    expect((await third).bytes.toString()).toBe('{"c":3}');
  });

  it('gives each of many concurrent answers its own bytes, however they are split into reads', async () => {
    // Plain TCP connections read into one shared buffer: whatever an answer keeps must be its own copy.
    const s = await rawServer(({ head }) => {
      const id = /\/item\/(\d+)/.exec(head)?.[1] ?? '';
      const body = JSON.stringify({ id, pad: id.repeat(200) });
      const whole = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const cut = 20 + (Number(id) % 60);
      return [whole.slice(0, cut), whole.slice(cut, cut + 300), whole.slice(cut + 300)];
    });
    const p = pool(s.origin, { connections: 8 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => get(p, `/item/${i}`)));
    for (const [i, r] of answers.entries()) expect(JSON.parse(r.bytes.toString())).toEqual({ id: String(i), pad: String(i).repeat(200) });
  });

  it('keeps connections alive: sequential requests use one, concurrent ones at most `connections`', async () => {
    const s = await rawServer(() => ok());
    const p = pool(s.origin, { connections: 3 });
    for (let i = 0; i < 5; i++) await get(p);
    expect(s.connections()).toBe(1);
    await Promise.all(Array.from({ length: 20 }, () => get(p)));
    expect(s.connections()).toBe(3);
    expect(s.requests()).toBe(25);
  });

  it('opens a new connection after Connection: close, after the server closed an idle one, and after its Keep-Alive timeout', async () => {
    const s = await rawServer(({ n, socket }) => {
      if (n === 1) return ok('{}', 'connection: close\r\n');
      if (n === 2) {
        setTimeout(() => socket.end(), 20);
        return ok();
      }
      return ok('{}', 'keep-alive: timeout=1\r\n');
    });
    const p = pool(s.origin, { connections: 1 });
    await get(p);
    await get(p);
    await new Promise((r) => setTimeout(r, 100));
    await get(p);
    expect(s.connections()).toBe(3);
    // timeout=1: the connection is not reused after half a second idle (the server may drop it at 1 s).
    await new Promise((r) => setTimeout(r, 600));
    await get(p);
    expect(s.connections()).toBe(4);
  });

  it('fails with a headers timeout when no answer comes, and with a body timeout when the body stalls', async () => {
    const s = await rawServer(({ n }) => (n === 1 ? null : ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345']));
    const p = pool(s.origin, { headersTimeoutMs: 200, bodyTimeoutMs: 200 });
    const e1 = await get(p).catch((e) => e);
    expect(e1.code).toBe(H1_CODES.headersTimeout);
    expect(classifyNetworkError(e1)).toEqual({ kind: 'timeout', sent: true });
    const e2 = await get(p).catch((e) => e);
    expect(e2.code).toBe(H1_CODES.bodyTimeout);
  });

  it('fails with a reset when the connection drops mid-answer, and with a bad response on garbage', async () => {
    const s = await rawServer(({ n, socket }) => {
      if (n === 1) {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n123');
        setTimeout(() => socket.destroy(), 20);
        return null;
      }
      return ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab'];
    });
    const p = pool(s.origin);
    const e1 = await get(p).catch((e) => e);
    expect(e1.code).toBe(H1_CODES.closed);
    expect(classifyNetworkError(e1)).toEqual({ kind: 'reset', sent: true });
    const e2 = await get(p).catch((e) => e);
    expect(e2.code).toBe(H1_CODES.badResponse);
  });

  it('waits for a body by the body timeout from when the head came, however long the head took', async () => {
    const s = await rawServer(({ socket }) => {
      setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n'), 150);
      setTimeout(() => socket.write('{}'), 300);
      return null;
    });
    const p = pool(s.origin, { headersTimeoutMs: 200, bodyTimeoutMs: 250 });
    const r = await get(p);
    expect(r.bytes.toString()).toBe('{}');
  });

  it('drops a head over 64 KiB even when its end came in the same read, and a flood of 1xx answers', async () => {
    const s = await rawServer(({ n }) =>
      n === 1
        ? [`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`]
        : [`${'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n'.repeat(40)}${ok()[0]}`],
    );
    const p = pool(s.origin);
    expect((await get(p).catch((e) => e)).code).toBe(H1_CODES.badResponse);
    expect((await get(p).catch((e) => e)).message).toMatch(/too many 1xx/);
  });

  it('refuses an unsendable header at once, naming it, and sends nothing', async () => {
    const s = await rawServer(() => ok());
    const p = pool(s.origin);
    const err = await exchange(p, { method: 'GET', path: '/x', headers: { authorization: 'Bearer a\nb' } }, undefined).catch((e) => e);
    expect(err).toMatchObject({ code: H1_CODES.invalidRequest, message: 'invalid authorization header' });
    expect(s.connections()).toBe(0);
  });

  it('aborts a request in flight and one still waiting for a connection; the pool goes on', async () => {
    const s = await rawServer(({ head }) => (head.includes('/slow') ? null : ok()));
    const p = pool(s.origin, { connections: 1 });
    const ac = new AbortController();
    const inFlight = get(p, '/slow', ac.signal).catch((e) => e);
    const waiting = get(p, '/slow', ac.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('stop'));
    expect((await inFlight).message).toBe('stop');
    expect((await waiting).message).toBe('stop');
    expect((await get(p)).status).toBe(200);
  });

  it('close() waits for the requests under way (one promise however often it is called), then later requests fail', async () => {
    const s = await rawServer(({ socket }) => {
      setTimeout(() => socket.write(ok()[0] as string), 100);
      return null;
    });
    const p = new H1Pool(s.origin, OPTIONS);
    const pending = get(p);
    await new Promise((r) => setTimeout(r, 20));
    const first = p.close();
    expect(p.close()).toBe(first);
    await first;
    expect((await pending).status).toBe(200);
    expect((await get(p).catch((e) => e)).code).toBe(H1_CODES.poolClosed);
  });

  it("passes Node's connection errors through (a refused connection is not sent)", async () => {
    const s = await rawServer(() => ok());
    const origin = s.origin;
    await cleanups.pop()?.();
    const p = pool(origin);
    const err = await get(p).catch((e) => e);
    expect(err.code).toBe('ECONNREFUSED');
    expect(classifyNetworkError(err)).toEqual({ kind: 'refused', sent: false });
  });

  it('idle keep-alive connections do not keep the process alive', async () => {
    const s = await rawServer(() => ok());
    const script = `
      const { H1Pool } = await import(${JSON.stringify(poolModule)});
      const p = new H1Pool(${JSON.stringify(s.origin)}, ${JSON.stringify(OPTIONS)});
      await new Promise((res, rej) => p.dispatch({ method: 'GET', path: '/', headers: {} }, { onH1Response: res, onH1Error: rej }));
      console.log('answered');`;
    const started = Date.now();
    const r = await runChild(script);
    expect(r.stdout.trim()).toBe('answered');
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('the HTTP/1.1 pool over TLS', () => {
  const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
  const tlsDir = join(bundleDir, 'tls-phase');
  beforeAll(() => {
    if (!hasOpenssl) return;
    execFileSync('mkdir', ['-p', tlsDir]);
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
        'subjectAltName=DNS:localhost',
        '-keyout',
        join(tlsDir, 'key.pem'),
        '-out',
        join(tlsDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
  });

  it.skipIf(!hasOpenssl)('a TLS failure after the request was written may have been applied (not retried, never "not sent")', async () => {
    let received = '';
    const server = createTlsServer({ key: readFileSync(join(tlsDir, 'key.pem')), cert: readFileSync(join(tlsDir, 'cert.pem')) }, (sock) => {
      sock.on('data', (d) => {
        received += d.toString();
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    // A TCP relay that, once the client's request has gone through, sends it a corrupt TLS record.
    const relay = createServer((c) => {
      let n = 0;
      const up = netConnect((server.address() as { port: number }).port, '127.0.0.1');
      c.on('error', () => undefined);
      up.on('error', () => undefined);
      up.on('data', (d) => c.write(d));
      c.on('data', (d) => {
        up.write(d);
        if (++n >= 2) setTimeout(() => c.write(Buffer.concat([Buffer.from([0x17, 3, 3, 0, 64]), Buffer.alloc(64, 7)])), 100);
      });
      cleanups.push(() => {
        c.destroy();
        up.destroy();
      });
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    cleanups.push(() => new Promise<void>((r) => relay.close(() => r())));
    const p = new H1Pool(`https://localhost:${(relay.address() as { port: number }).port}`, OPTIONS);
    cleanups.push(() => p.close());
    // The test certificate is in no store: verification off for this one connection's test.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const err = await exchange(
        p,
        { method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, body: '{"x":1}' },
        undefined,
      ).catch((e) => e);
      expect(received).toContain('POST /v1/events HTTP/1.1');
      expect(classifyNetworkError(err)).toEqual({ kind: 'tls', sent: true });
    } finally {
      delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    }
  });

  it('a connection dropped during the TLS handshake was not sent', async () => {
    const server = createServer((sock) => {
      sock.once('data', () => sock.destroy());
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const p = pool(`https://localhost:${(server.address() as { port: number }).port}`);
    const err = await get(p).catch((e) => e);
    expect(classifyNetworkError(err).sent).toBe(false);
  });

  it.skipIf(!hasOpenssl)(
    'speaks HTTPS to a server whose certificate is trusted, and refuses an untrusted one without sending',
    async () => {
      // The certificate made in beforeAll (localhost, self-signed).
      const dir = tlsDir;
      const server = createHttpsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (req, res) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ path: req.url, host: req.headers.host }));
        },
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
      server.on('connection', (s) => cleanups.push(() => void s.destroy()));
      const port = (server.address() as { port: number }).port;

      // Untrusted (self-signed, not in the CA store): a TLS failure, never sent.
      const untrusted = pool(`https://localhost:${port}`);
      const err = await get(untrusted).catch((e) => e);
      expect(classifyNetworkError(err)).toEqual({ kind: 'tls', sent: false });

      // Trusted through NODE_EXTRA_CA_CERTS, as a user behind a corporate CA would: in a child process.
      const script = `
      const { H1Pool } = await import(${JSON.stringify(poolModule)});
      const p = new H1Pool('https://localhost:${port}', ${JSON.stringify(OPTIONS)});
      const r = await new Promise((res, rej) => p.dispatch({ method: 'GET', path: '/v1/x', headers: {} }, { onH1Response: (head, bytes) => res({ status: head.status, body: bytes.toString() }), onH1Error: rej }));
      await p.close();
      console.log(JSON.stringify(r));`;
      const r = await runChild(script, { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') });
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ status: 200, body: JSON.stringify({ path: '/v1/x', host: `localhost:${port}` }) });
    },
  );
});
