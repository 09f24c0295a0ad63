/**
 * HTTP/1.1 on the wire, for the client's own connection pool (pool.ts): the request head as one
 * string, and the answer's head and body parsed from the bytes as they arrive (RFC 9112).
 *
 * Strict where a lenient reading could mistake one answer for another (a malformed status line or
 * header, two different Content-Length values, a bad chunk size: the connection is dropped and the
 * request fails as a network error that may have been applied), and tolerant where servers differ
 * harmlessly (header name case, optional whitespace, chunk extensions, trailers, 1xx answers).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** A failure of the transport itself, with a code that network.ts classifies. */
export class H1Error extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'H1Error';
  }
}

/** Codes of H1Error (Node's own socket codes, ECONNREFUSED and the like, pass through as they are). */
export const H1_CODES = {
  /** A header name or value, the method or the path cannot be put on the wire (a line break, say). */
  invalidRequest: 'SVC_INVALID_REQUEST',
  connectTimeout: 'SVC_CONNECT_TIMEOUT',
  headersTimeout: 'SVC_HEADERS_TIMEOUT',
  bodyTimeout: 'SVC_BODY_TIMEOUT',
  /** The connection ended before the answer was complete. */
  closed: 'SVC_SOCKET_CLOSED',
  /** The bytes received are not an HTTP/1.x answer. */
  badResponse: 'SVC_BAD_RESPONSE',
  /** The pool was closed with the request still waiting or in flight. */
  poolClosed: 'SVC_POOL_CLOSED',
} as const;

/**
 * Set on every transport error the pool reports: whether the request's bytes may have reached the
 * server (network.ts prefers it to what the error's code suggests).
 */
export const MAY_HAVE_BEEN_SENT: unique symbol = Symbol('svc.h1.mayHaveBeenSent');

export function markSent<E extends Error>(err: E, sent: boolean): E {
  try {
    Object.defineProperty(err, MAY_HAVE_BEEN_SENT, { value: sent, configurable: true });
  } catch {
    // A frozen error keeps its code-based reading.
  }
  return err;
}

/** How many bytes an answer's head may take before the connection is dropped (undici's and Node's default is 16 KiB–64 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Tab, space, visible ASCII and obs-text: what a header value may carry (no CR, LF or NUL).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// A request target goes out percent-encoded: visible ASCII only.
const REQUEST_TARGET = /^[\x21-\x7e]+$/;

/**
 * The header lines of a request ("name: value\r\n" each), checked once per header object: the
 * pipeline reuses one object per token, so a bulk run builds and checks this block once. `ascii`:
 * no obs-text (bytes 0x80–0xff, written as Latin-1) in it, so head and body can go out as one
 * UTF-8 string.
 */
const blocks = new WeakMap<Record<string, string>, { text: string; ascii: boolean }>();

function headerBlock(headers: Record<string, string>): { text: string; ascii: boolean } {
  let block = blocks.get(headers);
  if (block !== undefined) return block;
  let text = '';
  for (const name of Object.keys(headers)) {
    const value = headers[name] as string;
    if (!TOKEN.test(name)) throw new H1Error(H1_CODES.invalidRequest, 'invalid header name');
    const lower = name.toLowerCase();
    // Framing is the pool's: a caller's host, length or transfer-encoding would contradict it.
    if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') {
      throw new H1Error(H1_CODES.invalidRequest, `invalid ${lower} header (set by the client)`);
    }
    // The name is said, never the value: it may be a token.
    if (!FIELD_VALUE.test(value)) throw new H1Error(H1_CODES.invalidRequest, `invalid ${lower} header`);
    text += `${name}: ${value}\r\n`;
  }
  block = { text, ascii: /^[\x00-\x7f]*$/.test(text) };
  blocks.set(headers, block);
  return block;
}

/** Methods whose request carries a Content-Length even without a body (what undici and browsers send). */
const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The whole request head, ending with the empty line, and whether it is ASCII (else it goes out as
 * Latin-1 bytes); throws H1Error for what cannot be sent.
 */
export function requestHead(
  method: string,
  path: string,
  host: string,
  headers: Record<string, string>,
  bodyLength: number,
): { text: string; ascii: boolean } {
  if (!TOKEN.test(method)) throw new H1Error(H1_CODES.invalidRequest, 'invalid method');
  if (!REQUEST_TARGET.test(path)) throw new H1Error(H1_CODES.invalidRequest, 'invalid request path');
  const block = headerBlock(headers);
  const length = bodyLength > 0 || PAYLOAD_METHODS.has(method) ? `content-length: ${bodyLength}\r\n` : '';
  return { text: `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n${block.text}${length}\r\n`, ascii: block.ascii };
}

/** How the answer's body is delimited. */
export type BodyKind = 'none' | 'length' | 'chunked' | 'close';

export interface ResponseHead {
  status: number;
  /** The head as received (Latin-1), status line included: headersOf() reads the headers from it when asked. */
  text: string;
  body: BodyKind;
  /** The body's length when `body` is 'length'. */
  length: number;
  /** The connection may carry another request after this answer. */
  keepAlive: boolean;
  /** The server's idle timeout for the connection (Keep-Alive: timeout=N), in ms, when it gave one. */
  keepAliveMs: number | undefined;
}

function bad(what: string): H1Error {
  return new H1Error(H1_CODES.badResponse, `malformed HTTP answer (${what})`);
}

/** tchar of RFC 9110 (a header name's characters), by character code. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[c.charCodeAt(0)] = 1;

/** Whether text[from, to) equals `lower` ignoring ASCII case (`lower` is lower-case letters and '-'). */
function nameIs(text: string, from: number, to: number, lower: string): boolean {
  if (to - from !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) if ((text.charCodeAt(from + i) | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}

const isOws = (c: number) => c === 0x20 || c === 0x09;

const NEITHER = 0;
const CLOSE = 1;
const KEEP_ALIVE = 2;
const BOTH = 3;

/** What a Connection header asks for: close, keep-alive, both or neither (case and spacing aside). */
function connectionOptions(value: string): number {
  // A server's usual value, without lower-casing and splitting it.
  if (value === 'keep-alive') return KEEP_ALIVE;
  if (value === 'close') return CLOSE;
  let options = NEITHER;
  for (const option of value.toLowerCase().split(',')) {
    const o = option.trim();
    if (o === 'close') options |= CLOSE;
    else if (o === 'keep-alive') options |= KEEP_ALIVE;
  }
  return options;
}

/** The last Keep-Alive value read and its timeout: a server sends the same one on every answer. */
let lastKeepAlive = '';
let lastKeepAliveMs: number | undefined;

/** The timeout of a Keep-Alive header ("timeout=5, max=100") in ms, when it has one. */
function keepAliveTimeout(value: string): number | undefined {
  if (value === lastKeepAlive) return lastKeepAliveMs;
  const m = /(?:^|[,\s])timeout\s*=\s*(\d+)/i.exec(value);
  lastKeepAlive = value;
  lastKeepAliveMs = m ? Number(m[1]) * 1000 : undefined;
  return lastKeepAliveMs;
}

/**
 * Parses and checks an answer's head: `text` is its bytes as Latin-1 up to (not including) the
 * empty line. Every header line is checked (a token name, no folding, visible characters in the
 * value), but only the ones that frame the answer are read here; the header object is built by
 * headersOf() only when someone asks (an import reads none of them). `noBody`: the request was a
 * HEAD, whose answer never has a body whatever its headers say.
 */
export function parseResponseHead(text: string, noBody: boolean): ResponseHead {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (
    eol < 12 ||
    !text.startsWith('HTTP/1.') ||
    (text.charCodeAt(7) !== 0x31 && text.charCodeAt(7) !== 0x30) ||
    text.charCodeAt(8) !== 0x20 ||
    (eol > 12 && text.charCodeAt(12) !== 0x20)
  ) {
    throw bad('status line');
  }
  const d0 = text.charCodeAt(9) - 0x30;
  const d1 = text.charCodeAt(10) - 0x30;
  const d2 = text.charCodeAt(11) - 0x30;
  if (d0 < 1 || d0 > 5 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) throw bad('status code');
  const status = d0 * 100 + d1 * 10 + d2;
  const http10 = text.charCodeAt(7) === 0x30;
  let contentLength = -1;
  /** The last transfer coding of all Transfer-Encoding lines ('' when there is none). */
  let lastCoding = '';
  let codings = false;
  let close = false;
  let keepAliveAsked = false;
  let keepAliveMs: number | undefined;
  let start = eol + 2;
  while (start < text.length) {
    let end = text.indexOf('\r\n', start);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', start);
    if (colon < 0 || colon >= end || colon === start) throw bad('header line');
    if (isOws(text.charCodeAt(start))) throw bad('folded header line');
    for (let i = start; i < colon; i++) {
      const c = text.charCodeAt(i);
      if (c > 127 || TCHAR[c] === 0) throw bad('header name');
    }
    let v0 = colon + 1;
    let v1 = end;
    while (v0 < v1 && isOws(text.charCodeAt(v0))) v0++;
    while (v1 > v0 && isOws(text.charCodeAt(v1 - 1))) v1--;
    for (let i = v0; i < v1; i++) {
      const c = text.charCodeAt(i);
      if ((c < 0x20 && c !== 0x09) || c === 0x7f) throw bad('header value');
    }
    const n = colon - start;
    if (n === 14 && nameIs(text, start, colon, 'content-length')) {
      const value = text.slice(v0, v1);
      if (!/^\d{1,15}$/.test(value)) throw bad('content-length');
      const len = Number(value);
      if (contentLength >= 0 && contentLength !== len) throw bad('two content-length values');
      contentLength = len;
    } else if (n === 17 && nameIs(text, start, colon, 'transfer-encoding')) {
      const list = text.slice(v0, v1).toLowerCase().split(',');
      codings = true;
      lastCoding = list[list.length - 1]?.trim() ?? '';
    } else if (n === 10 && nameIs(text, start, colon, 'connection')) {
      const options = connectionOptions(text.slice(v0, v1));
      if (options === CLOSE || options === BOTH) close = true;
      if (options === KEEP_ALIVE || options === BOTH) keepAliveAsked = true;
    } else if (n === 10 && nameIs(text, start, colon, 'keep-alive')) {
      keepAliveMs = keepAliveTimeout(text.slice(v0, v1));
    }
    start = end + 2;
  }
  // RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
  if (codings && http10) throw bad('transfer-encoding in an HTTP/1.0 answer');
  const chunked = codings && lastCoding === 'chunked';
  let body: BodyKind;
  if (noBody || status < 200 || status === 204 || status === 304) body = 'none';
  else if (chunked) body = 'chunked';
  else if (codings) body = 'close';
  else if (contentLength >= 0) body = contentLength === 0 ? 'none' : 'length';
  else body = 'close';
  // Transfer-Encoding with Content-Length (RFC 9112 6.3): read by the coding, then the connection is
  // not trusted with another request.
  const keepAlive = body !== 'close' && !close && (!http10 || keepAliveAsked) && !(codings && contentLength >= 0);
  return { status, text, body, length: Math.max(contentLength, 0), keepAlive, keepAliveMs };
}

/**
 * The headers of a head that parseResponseHead() accepted: lower-cased names, values without
 * surrounding whitespace, a repeated header as an array (undici's and Node's shape).
 */
export function headersOf(text: string): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  let start = text.indexOf('\r\n');
  if (start < 0) return headers;
  start += 2;
  while (start < text.length) {
    let end = text.indexOf('\r\n', start);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', start);
    const name = text.slice(start, colon).toLowerCase();
    const value = text.slice(colon + 1, end).trim();
    start = end + 2;
    if (name === '__proto__') continue;
    const had = headers[name];
    if (had === undefined) headers[name] = value;
    else if (Array.isArray(had)) had.push(value);
    else (headers as Record<string, string | string[]>)[name] = [had, value];
  }
  return headers;
}

/** Whether a head that parseResponseHead() accepted has a header of this (lower-case) name, without building the header object. */
export function hasHeader(text: string, lower: string): boolean {
  let at = text.indexOf('\r\n');
  while (at >= 0) {
    const from = at + 2;
    if (nameIs(text, from, from + lower.length, lower) && text.charCodeAt(from + lower.length) === 0x3a) return true;
    at = text.indexOf('\r\n', from);
  }
  return false;
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * A chunked body, decoded as its bytes arrive. `push` takes the next bytes and appends the data
 * they carry to `out`; it returns how many of them belonged to the body (the rest is what follows
 * the answer), or -1 when the body is not finished yet and every byte was taken.
 */
export class ChunkedDecoder {
  /** 0: size line, 1: data, 2: the CRLF after data, 3: trailer lines, 4: done. */
  private state = 0;
  private remaining = 0;
  /** An unfinished line (size or trailer) carried over from the previous push. */
  private line = '';
  private crlfSeen = 0;

  push(buf: Buffer, out: Buffer[]): number {
    let i = 0;
    const n = buf.length;
    while (i < n) {
      if (this.state === 1) {
        const take = Math.min(this.remaining, n - i);
        out.push(i === 0 && take === n ? buf : buf.subarray(i, i + take));
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) {
          this.state = 2;
          this.crlfSeen = 0;
        }
        continue;
      }
      if (this.state === 2) {
        const b = buf[i++];
        if ((this.crlfSeen === 0 && b !== CR) || (this.crlfSeen === 1 && b !== LF)) throw bad('chunk data not followed by CRLF');
        if (++this.crlfSeen === 2) this.state = 0;
        continue;
      }
      // A line (size or trailer): up to LF, which must follow a CR.
      let j = i;
      while (j < n && buf[j] !== LF) j++;
      if (j === n) {
        this.addLine(buf, i, n);
        return -1;
      }
      this.addLine(buf, i, j);
      i = j + 1;
      if (!this.line.endsWith('\r')) throw bad('chunk line without CRLF');
      const line = this.line.slice(0, -1);
      this.line = '';
      if (this.state === 0) {
        const semi = line.indexOf(';');
        const size = (semi < 0 ? line : line.slice(0, semi)).trim();
        if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw bad('chunk size');
        this.remaining = Number.parseInt(size, 16);
        this.state = this.remaining === 0 ? 3 : 1;
      } else if (line === '') {
        this.state = 4;
        return i;
      }
      // A trailer line: read and ignored.
    }
    return this.state === 4 ? i : -1;
  }

  private addLine(buf: Buffer, from: number, to: number): void {
    this.line += buf.toString('latin1', from, to);
    if (this.line.length > MAX_HEAD_BYTES) throw bad('chunk line too long');
  }
}
