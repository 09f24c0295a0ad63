/**
 * The client's HTTP/1.1 wire format (src/client/h1/wire.ts): request heads, answer heads and
 * chunked bodies, including bytes split at any point (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, H1_CODES, hasHeader, headersOf, parseResponseHead, requestHead } from '../../src/client/h1/wire.js';

describe('request heads', () => {
  it('writes the request line, host, the headers and a content length', () => {
    const h = requestHead(
      'POST',
      '/v1/orders/placed',
      'api.example.com:8443',
      { authorization: 'Bearer t', 'content-type': 'application/json' },
      12,
    );
    expect(h.text).toBe(
      'POST /v1/orders/placed HTTP/1.1\r\nhost: api.example.com:8443\r\nauthorization: Bearer t\r\ncontent-type: application/json\r\ncontent-length: 12\r\n\r\n',
    );
    expect(h.ascii).toBe(true);
  });

  it('sends content-length: 0 for a POST without a body, none for a GET', () => {
    expect(requestHead('POST', '/x', 'h', {}, 0).text).toContain('content-length: 0\r\n');
    expect(requestHead('GET', '/x', 'h', {}, 0).text).not.toContain('content-length');
  });

  it('refuses a header value with a line break, naming the header and never the value', () => {
    const secret = 'sk_live_abc\r\nx-injected: 1';
    let caught: unknown;
    try {
      requestHead('GET', '/x', 'h', { authorization: `Bearer ${secret}` }, 0);
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: H1_CODES.invalidRequest, message: 'invalid authorization header' });
    expect(String((caught as Error).message)).not.toContain('sk_live');
  });

  it('refuses a path with a space or a line break, a bad method, and framing headers set by the caller', () => {
    expect(() => requestHead('GET', '/x y', 'h', {}, 0)).toThrow(/invalid request path/);
    expect(() => requestHead('GET', '/x\r\nHost: evil', 'h', {}, 0)).toThrow(/invalid request path/);
    expect(() => requestHead('G T', '/x', 'h', {}, 0)).toThrow(/invalid method/);
    expect(() => requestHead('GET', '/x', 'h', { 'Content-Length': '5' }, 0)).toThrow(/content-length/);
    expect(() => requestHead('GET', '/x', 'h', { 'bad name': 'v' }, 0)).toThrow(/invalid header name/);
  });

  it('marks a head with Latin-1 values as not ASCII (it goes out as Latin-1 bytes)', () => {
    expect(requestHead('GET', '/x', 'h', { 'x-name': 'Zoë' }, 0).ascii).toBe(false);
  });
});

describe('answer heads', () => {
  it('reads status, lower-cased headers (repeated ones as arrays) and the body length', () => {
    const h = parseResponseHead(
      'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 12\r\nLink: <a>; rel="next"\r\nlink: <b>; rel="prev"\r\nKeep-Alive: timeout=5',
      false,
    );
    expect(h).toMatchObject({ status: 201, body: 'length', length: 12, keepAlive: true, keepAliveMs: 5000 });
    const headers = headersOf(h.text);
    expect(headers['content-type']).toBe('application/json');
    expect(headers.link).toEqual(['<a>; rel="next"', '<b>; rel="prev"']);
    expect(headers['keep-alive']).toBe('timeout=5');
    expect(hasHeader(h.text, 'link')).toBe(true);
    expect(hasHeader(h.text, 'content-type')).toBe(true);
    expect(hasHeader(h.text, 'content')).toBe(false);
    expect(hasHeader(h.text, 'deprecation')).toBe(false);
  });

  it('reads the connection options and the keep-alive timeout whatever their case and spacing', () => {
    const h = parseResponseHead(
      'HTTP/1.1 200 OK\r\nCONTENT-LENGTH:  3 \r\nconnection: Keep-Alive, Upgrade\r\nkeep-alive: max=5, Timeout=7',
      false,
    );
    expect(h).toMatchObject({ length: 3, keepAlive: true, keepAliveMs: 7000 });
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: upgrade, CLOSE', false).keepAlive).toBe(false);
  });

  it('knows which answers have no body, which are chunked and which end with the connection', () => {
    expect(parseResponseHead('HTTP/1.1 204 No Content\r\nContent-Length: 5', false).body).toBe('none');
    expect(parseResponseHead('HTTP/1.1 304 Not Modified', false).body).toBe('none');
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 5', true).body).toBe('none');
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 0', false).body).toBe('none');
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5', false).body).toBe('chunked');
    const close = parseResponseHead('HTTP/1.1 200 OK', false);
    expect(close).toMatchObject({ body: 'close', keepAlive: false });
  });

  it('frames by the last transfer coding of all Transfer-Encoding lines, and trusts no connection that also had a length', () => {
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip', false).body).toBe('close');
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked', false).body).toBe('chunked');
    const both = parseResponseHead('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5', false);
    expect(both).toMatchObject({ body: 'chunked', keepAlive: false });
    expect(() => parseResponseHead('HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked', false)).toThrow(/HTTP\/1.0/);
  });

  it('keeps the connection for HTTP/1.1 unless told to close, and for HTTP/1.0 only when told to keep it', () => {
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close', false).keepAlive).toBe(false);
    expect(parseResponseHead('HTTP/1.0 200 OK\r\nContent-Length: 1', false).keepAlive).toBe(false);
    expect(parseResponseHead('HTTP/1.0 200 OK\r\nContent-Length: 1\r\nConnection: keep-alive', false).keepAlive).toBe(true);
  });

  it('rejects what could be misread: bad status lines, folded or nameless headers, two different lengths', () => {
    for (const bad of [
      'HTTP/2 200 OK',
      'HTTP/1.1 20 OK',
      'HTTP/1.1 999 Nine',
      'HTTP/1.1 200 OK\r\n folded: yes',
      'HTTP/1.1 200 OK\r\n: no-name',
      'HTTP/1.1 200 OK\r\nno colon',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6',
      'HTTP/1.1 200 OK\r\nContent-Length: -1',
      'HTTP/1.1 200 OK\r\nbad name: x',
      'HTTP/1.1 200 OK\r\nx-value: a\x00b',
      'HTTP/1.1 200 OK\r\nx-value: a\nb',
      'HTTP/1.1 2x0 OK',
    ]) {
      expect(() => parseResponseHead(bad, false), bad).toThrow(expect.objectContaining({ code: H1_CODES.badResponse }));
    }
    // The same length twice is the same length.
    expect(parseResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5', false).length).toBe(5);
  });
});

/** A chunked encoding of `parts`, with optional chunk extensions and trailers. */
function encodeChunked(parts: Buffer[], ext: boolean, trailers: string[]): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    if (p.length === 0) continue;
    out.push(Buffer.from(`${p.length.toString(16)}${ext ? ';name=value' : ''}\r\n`, 'latin1'), p, Buffer.from('\r\n'));
  }
  out.push(Buffer.from(`0\r\n${trailers.map((t) => `${t}\r\n`).join('')}\r\n`, 'latin1'));
  return Buffer.concat(out);
}

function decodeIn(pieces: Buffer[]): { body: Buffer; rest: Buffer } {
  const d = new ChunkedDecoder();
  const out: Buffer[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const used = d.push(pieces[i] as Buffer, out);
    if (used >= 0) return { body: Buffer.concat(out), rest: Buffer.concat([(pieces[i] as Buffer).subarray(used), ...pieces.slice(i + 1)]) };
  }
  throw new Error('the body never ended');
}

describe('chunked bodies', () => {
  it('decodes the same bytes however the encoding is split, and leaves what follows untouched', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.constantFrom('x-trailer: 1', 'checksum: abc'), { maxLength: 2 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (arrays, ext, trailers, cuts) => {
          const parts = arrays.map((a) => Buffer.from(a));
          const after = Buffer.from('HTTP/1.1 200 OK\r\n');
          const wire = Buffer.concat([encodeChunked(parts, ext, trailers), after]);
          const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
          const pieces: Buffer[] = [];
          let from = 0;
          for (const p of points) {
            pieces.push(wire.subarray(from, p));
            from = p;
          }
          pieces.push(wire.subarray(from));
          const { body, rest } = decodeIn(pieces.filter((p) => p.length > 0));
          expect(body.equals(Buffer.concat(parts))).toBe(true);
          expect(rest.equals(after)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('decodes byte by byte', () => {
    const wire = encodeChunked([Buffer.from('{"a":'), Buffer.from('1}')], true, ['t: 1']);
    const pieces = [...wire].map((b) => Buffer.from([b]));
    expect(decodeIn(pieces).body.toString()).toBe('{"a":1}');
  });

  it('rejects a bad chunk size, data not followed by CRLF, and a size line without CR', () => {
    const out: Buffer[] = [];
    expect(() => new ChunkedDecoder().push(Buffer.from('zz\r\nab\r\n0\r\n\r\n'), out)).toThrow(/chunk size/);
    expect(() => new ChunkedDecoder().push(Buffer.from('2\r\nabX\r\n0\r\n\r\n'), out)).toThrow(/CRLF/);
    expect(() => new ChunkedDecoder().push(Buffer.from('2\nab\r\n0\r\n\r\n'), out)).toThrow(/CRLF/);
  });
});
