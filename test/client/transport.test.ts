/**
 * The client's transport (src/client/transport.ts, undici underneath) against raw TCP servers that
 * answer as real servers do and as broken ones do: keep-alive, connection counts, timeouts, the
 * size limit and the per-attempt deadline, aborts, close, and above all whether a failed request
 * may have reached the service (network.ts), from the phase undici was in.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyNetworkError, isUnsendable } from '../../src/client/network.js';
import { TRANSPORT_CODES, Transport, type TransportOptions } from '../../src/client/transport.js';
import { type Cleanup, hasOpenssl, ok, rawServer, removeDir, selfSignedCert } from '../helpers/raw-server.js';

const OPTIONS: TransportOptions = {
  connections: 4,
  connectTimeoutMs: 2000,
  headersTimeoutMs: 2000,
  bodyTimeoutMs: 2000,
  maxResponseBytes: 64 * 1024 * 1024,
  deadlineMs: 10_000,
};
const cleanups: Cleanup[] = [];
// The transport as a plain ES module for child processes (beside node_modules, where undici resolves),
// and a self-signed certificate for the TLS cases.
const dir = join(import.meta.dirname, '..', '..', 'node_modules', '.cache');
const bundle = join(dir, `transport-${process.pid}.mjs`);
const tls = { dir: '', key: '', cert: '' };
beforeAll(async () => {
  if (hasOpenssl) Object.assign(tls, selfSignedCert());
  await build({
    entryPoints: [new URL('../../src/client/transport.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    external: ['undici'],
    logLevel: 'warning',
  });
});
afterAll(() => {
  removeDir(bundle);
  if (tls.dir) removeDir(tls.dir);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function transport(origin: string, opts: Partial<TransportOptions> = {}): Transport {
  const t = new Transport(origin, { ...OPTIONS, ...opts }, undefined);
  cleanups.push(() => t.close());
  return t;
}
const get = (t: Transport, path = '/x', signal?: AbortSignal) =>
  t.exchange({ method: 'GET', path, headers: { accept: 'application/json' } }, signal);
const post = (t: Transport, body = '{"x":1}') =>
  t.exchange({ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, body }, undefined);

/** The error of an attempt that failed after sending: its code, its message and its class. */
function expectFailedAfterSending(err: { code?: string; message?: string }, code: string, message: string, kind: string): void {
  expect(err.code).toBe(code);
  expect(err.message).toBe(message);
  expect(classifyNetworkError(err)).toEqual({ kind, sent: true });
}

describe('the transport', () => {
  it('sends the request and reads an answer that arrives in pieces, chunked, or after 1xx answers', async () => {
    let seen = '';
    const s = await rawServer(({ head, body, n }) => {
      seen = `${head}\n${body}`;
      if (n === 1) return ['HTTP/1.1 201 Cre', 'ated\r\nx-request-id: r1\r\nContent-Length: 7\r\n\r\n{"a"', ':1}'];
      if (n === 2) return ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n', '3\r\n:1}\r\n0\r\n\r\n'];
      return ['HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', ok('{"b":2}')];
    }, cleanups);
    const t = transport(s.origin, { connections: 1 });
    const r = await t.exchange(
      { method: 'POST', path: '/v1/contacts?x=1', headers: { authorization: 'Bearer t' }, body: '{"é":1}' },
      undefined,
    );
    expect(r.status).toBe(201);
    expect(r.headers['x-request-id']).toBe('r1');
    expect(r.hasHeader('x-request-id')).toBe(true);
    expect(r.bytes.toString()).toBe('{"a":1}');
    expect(seen).toMatch(/^POST \/v1\/contacts\?x=1 HTTP\/1.1\r\n/);
    expect(seen).toMatch(/authorization: Bearer t/);
    expect(seen.endsWith('\n{"é":1}')).toBe(true);
    expect((await get(t)).bytes.toString()).toBe('{"a":1}');
    expect((await get(t)).bytes.toString()).toBe('{"b":2}');
  });

  it('gives each of many concurrent answers its own bytes, and keeps at most `connections` alive', async () => {
    const s = await rawServer(({ head }) => {
      const id = /\/item\/(\d+)/.exec(head)?.[1] ?? '';
      const body = JSON.stringify({ id, pad: id.repeat(200) });
      const whole = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const cut = 20 + (Number(id) % 60);
      return [whole.slice(0, cut), whole.slice(cut, cut + 300), whole.slice(cut + 300)];
    }, cleanups);
    const t = transport(s.origin, { connections: 3 });
    // Sequential requests reuse a connection (undici may open a second while the first is being released).
    for (let i = 0; i < 6; i++) await get(t, `/item/${i}`);
    expect(s.connections()).toBeLessThanOrEqual(2);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => get(t, `/item/${i}`)));
    for (const [i, r] of answers.entries()) expect(JSON.parse(r.bytes.toString())).toEqual({ id: String(i), pad: String(i).repeat(200) });
    expect(s.connections()).toBe(3);
  });

  it('a headers timeout or a body stalled after the request was written may have been applied', async () => {
    const s = await rawServer(({ n }) => (n === 1 ? null : ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345']), cleanups);
    const t = transport(s.origin, { headersTimeoutMs: 200, bodyTimeoutMs: 200 });
    const e1 = await post(t).catch((e) => e);
    expect(e1.code).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect(classifyNetworkError(e1)).toEqual({ kind: 'timeout', sent: true });
    const e2 = await post(t).catch((e) => e);
    expect(e2.code).toBe('UND_ERR_BODY_TIMEOUT');
    expect(classifyNetworkError(e2)).toEqual({ kind: 'timeout', sent: true });
  });

  it('a connection dropped mid-answer may have been applied; garbage fails the request', async () => {
    const s = await rawServer(({ n, socket }) => {
      if (n === 1) {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n123');
        setTimeout(() => socket.destroy(), 20);
        return null;
      }
      return ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab'];
    }, cleanups);
    const t = transport(s.origin);
    const e1 = await post(t).catch((e) => e);
    expect(classifyNetworkError(e1)).toEqual({ kind: 'reset', sent: true });
    const e2 = await post(t).catch((e) => e);
    expect(e2.code).toMatch(/^(HPE_|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)/);
    expect(classifyNetworkError(e2).sent).toBe(true);
  });

  it('a refused connection was not sent', async () => {
    const s = await rawServer(() => [ok()], cleanups);
    await s.close();
    const err = await get(transport(s.origin)).catch((e) => e);
    expect(err.code).toBe('ECONNREFUSED');
    expect(classifyNetworkError(err)).toEqual({ kind: 'refused', sent: false });
  });

  it('refuses an unsendable header at once, naming it, and sends nothing', async () => {
    const s = await rawServer(() => [ok()], cleanups);
    const t = transport(s.origin);
    const err = await t.exchange({ method: 'GET', path: '/x', headers: { authorization: 'Bearer a\nb' } }, undefined).catch((e) => e);
    expect(isUnsendable(err)).toBe(true);
    expect(err.message).toBe('invalid authorization header');
    expect(s.connections()).toBe(0);
  });

  it('refuses an answer over the size limit from its Content-Length, before reading it (a 1 GB announce)', async () => {
    let closed = false;
    const s = await rawServer(({ socket }) => {
      socket.on('close', () => {
        closed = true;
      });
      return ['HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n{"a":'];
    }, cleanups);
    const t = transport(s.origin);
    const started = Date.now();
    const err = await get(t).catch((e) => e);
    expectFailedAfterSending(err, TRANSPORT_CODES.tooLarge, 'the answer is larger than 64 MiB, the most the client accepts', 'too_large');
    expect(Date.now() - started).toBeLessThan(2000);
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });

  it('refuses a chunked answer once it grows past the limit', async () => {
    const piece = 'x'.repeat(4096);
    const s = await rawServer(
      () => ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', ...Array.from({ length: 10 }, () => `1000\r\n${piece}\r\n`)],
      cleanups,
    );
    const t = transport(s.origin, { maxResponseBytes: 16 * 1024 });
    const err = await get(t).catch((e) => e);
    // undici's own limit (maxResponseSize) or the handler's, whichever counts the byte first.
    expect(classifyNetworkError(err)).toEqual({ kind: 'too_large', sent: true });
  });

  it('ends an attempt at its deadline however steadily a server trickles its answer', async () => {
    // One byte at a time, each within the body timeout: only the total deadline stops it.
    const s = await rawServer(({ socket }) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write('x')), 50);
      socket.on('close', () => clearInterval(drip));
      return null;
    }, cleanups);
    const t = transport(s.origin, { bodyTimeoutMs: 1000, deadlineMs: 400 });
    const started = Date.now();
    const err = await post(t).catch((e) => e);
    expectFailedAfterSending(err, TRANSPORT_CODES.deadline, 'no complete answer within 400 ms', 'timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('aborts a request in flight and one still waiting for a connection; the transport goes on', async () => {
    const s = await rawServer(({ head }) => (head.includes('/slow') ? null : [ok()]), cleanups);
    const t = transport(s.origin, { connections: 1 });
    const ac = new AbortController();
    const inFlight = get(t, '/slow', ac.signal).catch((e) => e);
    const waiting = get(t, '/slow', ac.signal).catch((e) => e);
    await new Promise((r) => setTimeout(r, 50));
    ac.abort(new Error('stop'));
    expect((await inFlight).message).toBe('stop');
    expect((await waiting).message).toBe('stop');
    expect((await get(t)).status).toBe(200);
  });

  it('close() waits for the requests under way, then later requests fail without being sent', async () => {
    const s = await rawServer(({ socket }) => {
      setTimeout(() => socket.write(ok()), 100);
      return null;
    }, cleanups);
    const t = new Transport(s.origin, OPTIONS, undefined);
    const pending = get(t);
    await new Promise((r) => setTimeout(r, 20));
    await t.close();
    expect((await pending).status).toBe(200);
    const err = await get(t).catch((e) => e);
    expect(classifyNetworkError(err).sent).toBe(false);
  });

  it('dropConnections(): later requests go out on new connections', async () => {
    const s = await rawServer(() => [ok()], cleanups);
    const t = transport(s.origin, { connections: 1 });
    await get(t);
    await get(t);
    expect(s.connections()).toBe(1);
    t.dropConnections();
    await get(t);
    expect(s.connections()).toBe(2);
  });
});

describe('the transport in a process of its own', () => {
  const runChild = (script: string, env: NodeJS.ProcessEnv = process.env) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { encoding: 'utf8', timeout: 20_000, env, cwd: dir },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('idle keep-alive connections do not keep the process alive', async () => {
    const s = await rawServer(() => [ok('{}', 'keep-alive: timeout=60\r\n')], cleanups);
    const started = Date.now();
    const r = await runChild(`
      const { Transport } = await import(${JSON.stringify(bundle)});
      const t = new Transport(${JSON.stringify(s.origin)}, ${JSON.stringify(OPTIONS)}, undefined);
      const a = await t.exchange({ method: 'GET', path: '/', headers: {} });
      console.log('answered', a.status);`);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('answered 200');
    expect(Date.now() - started).toBeLessThan(8000);
  });

  describe.skipIf(!hasOpenssl)('over TLS', () => {
    it('speaks HTTPS to a server trusted through NODE_EXTRA_CA_CERTS; an untrusted one is a TLS failure, never sent', async () => {
      const server = createHttpsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ path: req.url, host: req.headers.host }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      server.on('connection', (sock) => cleanups.push(() => void sock.destroy()));
      cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
      const port = (server.address() as { port: number }).port;
      const err = await get(transport(`https://localhost:${port}`)).catch((e) => e);
      expect(classifyNetworkError(err)).toEqual({ kind: 'tls', sent: false });
      const r = await runChild(
        `
        const { Transport } = await import(${JSON.stringify(bundle)});
        const t = new Transport('https://localhost:${port}', ${JSON.stringify(OPTIONS)}, undefined);
        const a = await t.exchange({ method: 'GET', path: '/v1/x', headers: {} });
        await t.close();
        console.log(JSON.stringify({ status: a.status, body: a.bytes.toString() }));`,
        { ...process.env, NODE_EXTRA_CA_CERTS: tls.cert },
      );
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ status: 200, body: JSON.stringify({ path: '/v1/x', host: `localhost:${port}` }) });
    });

    it('a TLS failure after the request was written may have been applied; one during the handshake was not sent', async () => {
      let received = '';
      const server = createTlsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (sock) => {
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
      const caFile = join(tls.dir, 'ca-for-child.pem');
      writeFileSync(caFile, readFileSync(tls.cert));
      const r = await runChild(
        `
        const { Transport } = await import(${JSON.stringify(bundle)});
        const t = new Transport('https://localhost:${(relay.address() as { port: number }).port}', ${JSON.stringify(OPTIONS)}, undefined);
        const err = await t.exchange({ method: 'POST', path: '/v1/events', headers: { 'content-type': 'application/json' }, body: '{"x":1}' }).catch((e) => e);
        console.log(JSON.stringify({ code: err.code, started: err.started }));
        process.exit(0);`,
        { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      );
      expect(received).toContain('POST /v1/events HTTP/1.1');
      const out = JSON.parse(r.stdout);
      // The request had been written: whatever the code, the phase says it may have been applied.
      expect(out.started).toBe(true);

      // A connection dropped during the handshake: never sent.
      const dropper = createServer((sock) => {
        sock.once('data', () => sock.destroy());
        sock.on('error', () => undefined);
      });
      await new Promise<void>((res) => dropper.listen(0, '127.0.0.1', res));
      cleanups.push(() => new Promise<void>((res) => dropper.close(() => res())));
      const err = await get(transport(`https://localhost:${(dropper.address() as { port: number }).port}`)).catch((e) => e);
      expect(classifyNetworkError(err).sent).toBe(false);
    });
  });
});
