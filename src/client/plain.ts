/**
 * One request without credentials or retries (the sandbox's admin API: `svc sandbox …` and
 * `--sandbox`'s set-up) on the client's own transport: undici, the run's proxy, the size limit
 * and the deadline, as every request to the service. No code of svc uses Node's global fetch.
 */
import { type ProxySettings, proxyFor } from './proxy.js';
import { bodyText, Transport } from './transport.js';

export interface PlainRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  /** A JSON value to send. */
  json?: unknown;
  /** Extra request headers (the sandbox's admin token). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The run's proxy variables; absent for a direct connection (the embedded sandbox). */
  proxy?: ProxySettings;
}

export interface PlainAnswer {
  status: number;
  text: string;
}

/** Sends one request on a transport of its own, closed once answered; rejects with the transport's ExchangeFailure. */
export async function plainRequest(req: PlainRequest): Promise<PlainAnswer> {
  const url = new URL(req.url);
  const transport = new Transport(
    url.origin,
    {
      connections: 1,
      connectTimeoutMs: 10_000,
      headersTimeoutMs: 60_000,
      bodyTimeoutMs: 60_000,
      maxResponseBytes: 64 * 1024 * 1024,
      deadlineMs: 120_000,
      proxy: req.proxy,
    },
    proxyFor(url, req.proxy),
  );
  try {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    const answer = await transport.exchange({ method: req.method, path: `${url.pathname}${url.search}`, headers, body }, req.signal);
    return { status: answer.status, text: bodyText(answer.bytes) };
  } finally {
    await transport.close();
  }
}
