/**
 * One request without credentials or retries (the sandbox's admin API: `svc sandbox …` and
 * `--sandbox`'s set-up) on the client's own transport: undici, the run's proxy, the size limit
 * and the deadline, as every request to the service. No code of svc uses Node's global fetch.
 */
import { type ProxySettings, proxyFor } from './proxy.js';
import { bodyText, loadUndici, Transport } from './transport.js';

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

/**
 * A long-lived answer read as it comes (a sandbox's server-sent events): undici's `request` on a
 * dispatcher of its own (the run's proxy applies), no body timeout and no size limit, since the
 * stream lasts until the signal aborts it or the server ends it. `close()` releases the dispatcher.
 */
export async function plainStream(req: PlainRequest): Promise<{ status: number; body: AsyncIterable<Buffer>; close(): Promise<void> }> {
  const u = await loadUndici();
  const url = new URL(req.url);
  const options = { connections: 1, bodyTimeout: 0, connect: { timeout: 10_000 } };
  const proxied = proxyFor(url, req.proxy) !== undefined && req.proxy !== undefined;
  const dispatcher = proxied
    ? new u.EnvHttpProxyAgent({
        ...options,
        httpProxy: req.proxy?.httpProxy ?? '',
        httpsProxy: req.proxy?.httpsProxy ?? '',
        noProxy: req.proxy?.noProxy ?? '',
        proxyTunnel: false,
      })
    : new u.Agent(options);
  try {
    const res = await u.request(url, { method: 'GET', headers: { ...req.headers }, signal: req.signal, dispatcher });
    return {
      status: res.statusCode,
      body: res.body as AsyncIterable<Buffer>,
      close: () => dispatcher.destroy().catch(() => undefined),
    };
  } catch (err) {
    await dispatcher.destroy().catch(() => undefined);
    throw err;
  }
}
