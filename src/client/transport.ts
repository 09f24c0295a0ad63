/**
 * One HTTP exchange on an undici Pool through `dispatch`, collecting the body into one string.
 * `pool.request()` wraps every answer in a Readable stream and its promise machinery; on the
 * importer's and the bulk sender's hot path that wrapper cost more CPU than the rest of the
 * client together, and bodies here are small JSON documents read whole anyway. The handler uses
 * undici's native callbacks (onConnect/onHeaders/onData/onComplete/onError): the newer
 * controller-style ones are adapted to these through a wrapper object per request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher, Pool } from 'undici';

export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface ExchangeRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** Raw header pairs (name, value buffers) to a lower-cased object; repeated names become arrays. */
function headerObject(raw: Buffer[] | string[] | null): IncomingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  if (!raw) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as Buffer | string).toString('latin1').toLowerCase();
    const value = (raw[i + 1] as Buffer | string).toString('latin1');
    const prev = out[name];
    if (prev === undefined) out[name] = value;
    else if (Array.isArray(prev)) prev.push(value);
    else out[name] = [prev, value];
  }
  return out as IncomingHttpHeaders;
}

/** Sends one request and resolves with the status, headers and body text; rejects with undici's errors. */
export function exchange(pool: Pool, req: ExchangeRequest): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const signal = req.signal;
    let abortExchange: ((reason: unknown) => void) | undefined;
    let settled = false;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    const onAbort = () => {
      // Like pool.request(): abort the exchange wherever it is; before it starts, abort it at start.
      abortExchange?.(signal?.reason);
      finish(() => reject(signal?.reason));
    };
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (signal) {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const handler = {
      onConnect(abort: (reason?: unknown) => void) {
        abortExchange = abort;
        if (signal?.aborted) abort(signal.reason);
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null) {
        status = statusCode;
        headers = headerObject(rawHeaders);
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        return true;
      },
      onComplete() {
        const text =
          chunks.length === 0 ? '' : chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
        finish(() => resolve({ status, headers, text }));
      },
      onError(err: Error) {
        finish(() => reject(err));
      },
    };
    pool.dispatch(
      { method: req.method as Dispatcher.HttpMethod, path: req.path, headers: req.headers, body: req.body },
      handler as unknown as Dispatcher.DispatchHandler,
    );
  });
}
