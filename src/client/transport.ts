/**
 * One HTTP exchange on an undici Pool through `dispatch`, collecting the body into one string.
 * `pool.request()` wraps every answer in a Readable stream and its promise machinery; on the
 * importer's and the bulk sender's hot path that wrapper cost more CPU than the rest of the
 * client together, and bodies here are small JSON documents read whole anyway.
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

/** Sends one request and resolves with the status, headers and body text; rejects with undici's errors. */
export function exchange(pool: Pool, req: ExchangeRequest): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    const signal = req.signal;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    const onAbort = () => {
      // Like pool.request(): abort the exchange wherever it is; before it starts, abort it at start.
      if (controller) controller.abort(signal?.reason);
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
    pool.dispatch(
      { method: req.method as Dispatcher.HttpMethod, path: req.path, headers: req.headers, body: req.body },
      {
        onRequestStart(c) {
          controller = c;
          if (signal?.aborted) c.abort(signal.reason);
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          const text =
            chunks.length === 0
              ? ''
              : chunks.length === 1
                ? (chunks[0] as Buffer).toString('utf8')
                : Buffer.concat(chunks).toString('utf8');
          finish(() => resolve({ status, headers, text }));
        },
        onResponseError(_c, err) {
          finish(() => reject(err));
        },
      },
    );
  });
}
