/**
 * The service killed while it writes (issue 36: kill -9 of the sandbox): the row's request was
 * applied but never answered, the service then refused connections, and the run waited the
 * outage out. The answer after the outage is a 200: the row is `unconfirmed` (an earlier attempt
 * may have created it), never `updated`. A front stands for the killed service: it passes one
 * request on to the real sandbox, drops the connection without answering, stops listening, and
 * listens again on the same port a moment later.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';

const suite = cliSuite();
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

/** Relays requests to the sandbox; request number `killAt` is applied, then the "service" dies for `downMs`. */
async function dyingFront(killAt: number, downMs: number) {
  let n = 0;
  let server: Server;
  const sockets = new Set<Socket>();
  let port = 0;
  const state = { killedAt: 0, back: 0 };
  const relay = async (socket: Socket, head: string, body: string) => {
    const [method = 'GET', path = '/'] = (head.split('\r\n')[0] ?? '').split(' ');
    const headers: Record<string, string> = {};
    for (const l of head.split('\r\n').slice(1)) {
      const i = l.indexOf(':');
      const name = l.slice(0, i).trim().toLowerCase();
      if (['authorization', 'content-type', 'x-service-integration-token'].includes(name)) headers[name] = l.slice(i + 1).trim();
    }
    const res = await fetch(`${suite.sb.baseUrl}${path}`, { method, headers, body: body === '' ? undefined : body });
    const text = await res.text();
    if (++n === killAt) {
      // Applied, never answered: every connection cut, nothing listening for a while.
      state.killedAt = Date.now();
      for (const s of sockets) s.destroy();
      server.close();
      setTimeout(() => {
        listen().then(() => {
          state.back = Date.now();
        });
      }, downMs);
      return;
    }
    const type = res.headers.get('content-type') ?? 'application/json';
    socket.write(`HTTP/1.1 ${res.status} X\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
  };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
        let buf = Buffer.alloc(0);
        socket.on('data', (d) => {
          buf = Buffer.concat([buf, d]);
          const end = buf.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = buf.toString('latin1', 0, end);
          const len = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buf.length < end + 4 + len) return;
          const body = buf.toString('utf8', end + 4, end + 4 + len);
          buf = buf.subarray(end + 4 + len);
          relay(socket, head, body).catch(() => socket.destroy());
        });
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  await listen();
  closers.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { origin: () => `http://127.0.0.1:${port}`, state };
}

describe('svc orders import: the service killed while it writes', () => {
  it('the row applied but unanswered is unconfirmed after the outage, never updated; every order stored once', async () => {
    const n = 8;
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= n; i++) lines.push(`K-${i},${i}.00,EUR,2024-01-01,k${i}@example.com`);
    const file = suite.file('orders.csv', `${lines.join('\n')}\n`);
    // Down longer than the client's own retries of a refused connection (8 attempts, about 10 s),
    // so the run waits the outage out and sends the row afresh.
    const front = await dyingFront(4, 14_000);
    const r = await suite.svc(['orders', 'import', '--live', file, '--json', '--concurrency', '1'], {
      env: { SVC_BASE_URL: front.origin() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(front.state.back).toBeGreaterThan(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ rows: n, created: n - 1, updated: 0, unconfirmed: 1, failed: 0, unconfirmed_lines: [5] });
    for (let i = 1; i <= n; i++) expect((await suite.sb.admin.order(`K-${i}`))?.total).toBe(`${i}.00`);
  }, 60_000);
});
