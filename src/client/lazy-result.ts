/**
 * A successful answer whose request id and body are worked out on first access (and then kept):
 * an import of a million rows reads only the status of each upsert, and parsing every answer it
 * ignores was about 5% of its CPU.
 */
import { soleStringField } from './answer-identity.js';
import { firstHeader, type HeaderBag, unwrapObject } from './response.js';
import { bodyText, type Exchange } from './transport.js';
import type { ApiResult } from './types.js';

export class LazyResult implements ApiResult<unknown> {
  // True private fields: a spread or Object.keys of a result shows only the public fields.
  /** The answer: its headers are parsed from the head only if someone asks. */
  readonly #answer: Exchange;
  readonly #unwrap: boolean;
  #body: { value: unknown } | undefined;

  constructor(
    readonly status: number,
    answer: Exchange,
    readonly attempts: number,
    readonly uncertain: boolean,
    unwrap: boolean,
  ) {
    this.#answer = answer;
    this.#unwrap = unwrap;
  }

  get headers(): HeaderBag {
    return this.#answer.headers;
  }

  get requestId(): string | undefined {
    return firstHeader(this.headers, 'x-request-id');
  }

  get body(): unknown {
    if (this.#body === undefined) {
      // The headers are parsed only if the body does not open like JSON.
      const value = parseBody(bodyText(this.#answer.bytes), () => firstHeader(this.headers, 'content-type'));
      this.#body = { value: this.#unwrap ? unwrapObject(value) : value };
    }
    return this.#body.value;
  }

  set body(value: unknown) {
    this.#body = { value };
  }

  stringField(name: string): string | undefined {
    if (this.#body === undefined) {
      const fast = soleStringField(this.#answer.bytes, name);
      if (fast !== undefined) return fast;
    }
    const body = this.body;
    const v = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' ? v : undefined;
  }

  /** What JSON.stringify and a debugger see: the plain fields. */
  toJSON(): ApiResult<unknown> {
    return {
      status: this.status,
      body: this.body,
      headers: this.headers,
      requestId: this.requestId,
      attempts: this.attempts,
      uncertain: this.uncertain,
    };
  }
}

/**
 * An answer's body: JSON when it opens like JSON or says it is, otherwise the text ('' → undefined).
 * `contentType` is asked only when the body does not open like JSON.
 */
export function parseBody(text: string, contentType: () => string | undefined): unknown {
  if (text.length === 0) return undefined;
  // A body that opens like JSON is tried as JSON whatever its type says.
  const opensLikeJson = text.charCodeAt(0) === 123 /* { */ || text.charCodeAt(0) === 91; /* [ */
  if (opensLikeJson || (contentType() ?? '').includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
