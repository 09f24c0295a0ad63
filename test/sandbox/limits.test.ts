/** Oversized bodies and headers: the promised answer arrives, in the service's error shape. */
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

interface RawAnswer {
  status?: number;
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
  error?: string;
}

/** A request written in one go (no Expect: 100-continue), as fetch sends it. */
async function send(path: string, headers: Record<string, string>, body: Buffer | string): Promise<RawAnswer> {
  try {
    const res = await fetch(new URL(path, sb.baseUrl), { method: 'POST', headers, body });
    return { status: res.status, body: await res.text() };
  } catch (e) {
    const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
    return { error: cause?.code ?? (e as Error).message };
  }
}

/**
 * Writes a POST with a body of `size` bytes in 64 KiB chunks over a raw socket, each write waited
 * for, as a client that does not wait for an early answer does; returns what came back.
 */
function rawPost(path: string, headers: string, size: number): Promise<{ text: string; error?: string }> {
  const url = new URL(sb.baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    let error: string | undefined;
    socket.on('data', (c) => {
      text += c.toString('utf8');
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code;
    });
    socket.on('close', () => resolve({ text, error }));
    socket.on('connect', async () => {
      const head = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${headers}\r\ncontent-length: ${size}\r\n\r\n`;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      try {
        await new Promise<void>((ok, ko) => socket.write(head, (e) => (e ? ko(e) : ok())));
        for (let sent = 0; sent < size; sent += chunk.length) {
          await new Promise<void>((ok, ko) => socket.write(chunk, (e) => (e ? ko(e) : ok())));
          await new Promise((r) => setImmediate(r));
        }
      } catch (e) {
        error ??= (e as NodeJS.ErrnoException).code;
      }
    });
  });
}

describe('limits', () => {
  it('a 4 MiB JSON body sent without Expect gets its 413, every time', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await rawPost('/v1/events', `authorization: Bearer ${token}\r\ncontent-type: application/json`, 4 * 1024 * 1024);
      expect(r.error, `try ${i}`).toBeUndefined();
      expect(r.text.split('\r\n', 1)[0], `try ${i}`).toBe('HTTP/1.1 413 Payload Too Large');
      expect(JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).error.code).toBe('payload_too_large');
    }
  });

  it('a body past the drain bound (16 MiB) is cut off: the connection closes and the sandbox answers the next request', async () => {
    const r = await rawPost('/v1/events', `authorization: Bearer ${token}\r\ncontent-type: application/json`, 24 * 1024 * 1024);
    if (r.error === undefined) expect(r.text.split('\r\n', 1)[0]).toBe('HTTP/1.1 413 Payload Too Large');
    const next = await fetch(`${sb.baseUrl}/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(next.status).toBe(200);
  });

  it('a 1.1 MB token form gets its 413 too', async () => {
    const r = await send('/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }, `grant_type=${'a'.repeat(1_100_000)}`);
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body as string).error.code).toBe('payload_too_large');
  });

  it('headers over the limit answer 431 in the service error shape, with a request id', async () => {
    const r = await new Promise<RawAnswer>((resolve) => {
      const req = request(new URL('/v1/contacts', sb.baseUrl), { headers: { 'x-big': 'a'.repeat(20_000) } }, (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code }));
      req.end();
    });
    expect(r.status).toBe(431);
    const body = JSON.parse(r.body as string);
    expect(body.error.code).toBe('request_header_fields_too_large');
    expect(body.error.request_id).toBe(r.headers?.['x-request-id']);
  });
});
