/**
 * The transport's limits seen from the command line: an answer announcing 1 GB is refused at
 * once, and a server dripping one byte every 5 s cannot hold a request past its deadline
 * (SVC_REQUEST_TIMEOUT compresses it here); each a clear error, exit 1.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Cleanup, rawServer } from '../helpers/raw-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function env(baseUrl: string, extra: Record<string, string> = {}) {
  const tmp = tempConfigDir();
  cleanups.push(tmp.cleanup);
  return { SVC_CONFIG_DIR: tmp.dir, SVC_BASE_URL: baseUrl, SVC_TOKEN: 'tok_limits_test', ...extra };
}

describe('limits of one request', () => {
  it('an answer announcing 1 GB: refused before its body is read, not retried, exit 1', async () => {
    const s = await rawServer(
      () => ['HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1073741824\r\n\r\n[{"id":'],
      cleanups,
    );
    const started = Date.now();
    const r = await runCli(['api', 'GET', '/v1/contacts'], { env: env(s.origin) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GET /v1/contacts: the answer is larger than 64 MiB, the most the client accepts');
    expect(s.requests()).toBe(1);
    // (The first command of the file also loads the CLI's modules.)
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('a body dripped one byte every 5 s ends at the deadline of its attempt, exit 1', async () => {
    const s = await rawServer(({ socket }) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{');
      const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' ')), 5000);
      socket.on('close', () => clearInterval(drip));
      return null;
    }, cleanups);
    const started = Date.now();
    // An event: not idempotent, so the attempt that timed out after sending is not repeated.
    const r = await runCli(['api', 'POST', '/v1/events', '-f', 'event_type=drip', '-f', 'email=a@example.com'], {
      env: env(s.origin, { SVC_REQUEST_TIMEOUT: '0.6' }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('POST /v1/events: timed out: no complete answer within 600 ms; the service may have applied it');
    expect(s.requests()).toBe(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('SVC_REQUEST_TIMEOUT must be a positive number of seconds (usage error naming it)', async () => {
    for (const bad of ['soon', '0']) {
      const r = await runCli(['api', 'GET', '/v1/contacts'], { env: env('http://127.0.0.1:9', { SVC_REQUEST_TIMEOUT: bad }) });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('SVC_REQUEST_TIMEOUT');
    }
  });
});
