/** A forward proxy's own 5xx told apart from the service's relayed through it (client/network.ts). */
import { describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/client/errors.js';
import { proxyOwnAnswer } from '../../src/client/network.js';

const transport = { proxy: 'http://px-user:px-pass@proxy.example:3128' };
const req = { route: 'POST /v1/orders/placed', method: 'POST' };
const answer = (status: number, body: string) => ({ status, bytes: Buffer.from(body) });

describe('proxyOwnAnswer', () => {
  it("a 502 page that is not the service's error, through a forward proxy: the proxy's, named without credentials", () => {
    const err = proxyOwnAnswer(transport, 'http://api.example', req, answer(502, '<h1>Bad Gateway</h1>'), 1, false);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err?.kind).toBe('proxy');
    expect(err?.sent).toBe(true);
    expect(err?.message).toBe(
      "POST /v1/orders/placed: the proxy http://proxy.example:3128 answered HTTP 502 itself (the answer is not the service's)",
    );
    expect(err?.message).not.toMatch(/px-user|px-pass/);
  });

  it('a 503 went no further (not sent) unless an earlier attempt was uncertain; a 504 may have been passed on', () => {
    expect(proxyOwnAnswer(transport, 'http://api.example', req, answer(503, ''), 1, false)?.sent).toBe(false);
    expect(proxyOwnAnswer(transport, 'http://api.example', req, answer(503, ''), 2, true)?.sent).toBe(true);
    expect(proxyOwnAnswer(transport, 'http://api.example', req, answer(504, ''), 1, false)?.sent).toBe(true);
  });

  it("the service's error body relayed by the proxy, other statuses, a tunnel (https:) or no proxy: not the proxy's", () => {
    const service = '{"error":{"code":"unavailable","message":"try later"}}';
    expect(proxyOwnAnswer(transport, 'http://api.example', req, answer(503, service), 1, false)).toBeUndefined();
    expect(proxyOwnAnswer(transport, 'http://api.example', req, answer(500, '<h1>oops</h1>'), 1, false)).toBeUndefined();
    expect(proxyOwnAnswer(transport, 'https://api.example', req, answer(502, '<h1>x</h1>'), 1, false)).toBeUndefined();
    expect(proxyOwnAnswer({ proxy: undefined }, 'http://api.example', req, answer(502, '<h1>x</h1>'), 1, false)).toBeUndefined();
  });
});
