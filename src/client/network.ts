/**
 * Transport failures (no HTTP answer): which kind, and whether the request may have reached the
 * service before it failed (what decides if a non-idempotent request may be retried).
 */
import { NetworkError, type NetworkFailureKind } from './errors.js';
import { routePath, type SendRequest } from './pipeline-types.js';
import { displayProxy } from './proxy.js';
import { bodyText, type Exchange, ExchangeFailure, TRANSPORT_CODES, type Transport } from './transport.js';

/** The error code of a transport failure (undici's, Node's, the transport's, or an aggregate's first). */
export function errorCode(err: unknown): string | undefined {
  if (err instanceof ExchangeFailure) return err.code;
  const e = err as { code?: unknown; errors?: Array<{ code?: unknown }>; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.[0]?.code ?? e?.cause?.code;
  return typeof inner === 'string' ? inner : undefined;
}

/**
 * undici refused the request before sending it (an invalid header value, such as a token with a
 * line break): it can never be sent, so it is no network failure and is not retried.
 */
export function isUnsendable(err: unknown): boolean {
  return errorCode(err) === 'UND_ERR_INVALID_ARG' && !(err instanceof ExchangeFailure && err.started);
}

/**
 * Maps a transport error to a failure kind and whether the request may have reached the service.
 * The exchange's phase (ExchangeFailure.started: undici had the connection, TLS and any proxy
 * tunnel up and was writing the request) wins over what the code alone suggests: a corrupt TLS
 * record or a kernel timeout after the request was written may have been applied; a connection
 * dropped during the handshake was not sent.
 */
export function classifyNetworkError(err: unknown): { kind: NetworkFailureKind; sent: boolean } {
  const byCode = classifyByCode(err);
  if (err instanceof ExchangeFailure) return { kind: byCode.kind, sent: err.started };
  return byCode;
}

function classifyByCode(err: unknown): { kind: NetworkFailureKind; sent: boolean } {
  const code = errorCode(err) ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused', sent: false };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { kind: 'timeout', sent: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { kind: 'dns', sent: false };
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case TRANSPORT_CODES.deadline:
      return { kind: 'timeout', sent: true };
    case TRANSPORT_CODES.tooLarge:
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return { kind: 'too_large', sent: true };
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
    case 'ECONNRESET':
    case 'EPIPE':
      return { kind: 'reset', sent: true };
  }
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|INVALID_CA|INVALID_PURPOSE|HOSTNAME_MISMATCH|PATH_LENGTH_EXCEEDED|UND_ERR_PRX_TLS)/.test(
      code,
    )
  ) {
    return { kind: 'tls', sent: false };
  }
  return { kind: 'other', sent: true };
}

/** What each failure kind is called in messages and the --debug trace. */
export const NETWORK_TEXT: Record<NetworkFailureKind, string> = {
  refused: 'connection refused',
  reset: 'connection lost before an answer',
  timeout: 'timed out',
  dns: 'host name not found',
  tls: 'TLS handshake failed',
  too_large: 'answer too large',
  proxy: 'proxy failed',
  protocol: 'answer does not belong to the request',
  other: 'network error',
};

/**
 * A failure of the proxy rather than the service: a connection to the proxy that failed before
 * any answer came through it (at the start of a command: a configuration problem, said as such and
 * not retried), or the proxy refusing the request (407, or no tunnel to the service). Undefined
 * for anything else (and once answers have come through the proxy, losing it is an outage).
 */
export function proxyFailure(
  transport: Pick<Transport, 'proxy' | 'answered'>,
  err: unknown,
): { kind: NetworkFailureKind; sent: boolean; proxyText: string } | undefined {
  const proxy = transport.proxy;
  if (proxy === undefined || !(err instanceof ExchangeFailure)) return undefined;
  const shown = displayProxy(proxy);
  const refusal = /Proxy (?:response \((\d+)\)|Authentication Required \((\d+)\))/.exec(err.message);
  if (refusal) {
    const status = refusal[1] ?? refusal[2];
    const what =
      status === '407' ? 'asks for credentials (HTTP 407): check the user and password in the proxy variable' : `answered HTTP ${status}`;
    return { kind: 'proxy', sent: false, proxyText: `the proxy ${shown} ${what}` };
  }
  if (err.started || transport.answered) return undefined;
  const net = classifyNetworkError(err);
  if (net.kind === 'tls' && err.code !== 'UND_ERR_PRX_TLS') return undefined;
  return { kind: 'proxy', sent: false, proxyText: `cannot reach the proxy ${shown} (${NETWORK_TEXT[net.kind]})` };
}

/**
 * A 5xx that a forward proxy answered itself rather than relayed from the service: only for
 * `http:` base URLs, whose requests go to the proxy in absolute form (inside a CONNECT tunnel the
 * proxy cannot answer; its refusal of the tunnel is an ExchangeFailure, proxyFailure above), and
 * only when the body is not the service's error shape (`{"error": …}`), as the proxy's own page
 * never is. A 503 says the request went no further; after a 502 or 504 the proxy may have passed
 * it on, so it counts as possibly applied.
 */
export function proxyOwnAnswer(
  transport: Pick<Transport, 'proxy'>,
  origin: string,
  req: Pick<SendRequest, 'route' | 'method'>,
  res: Pick<Exchange, 'status' | 'bytes'>,
  attempts: number,
  uncertain: boolean,
): NetworkError | undefined {
  const { status } = res;
  if (transport.proxy === undefined || !origin.startsWith('http:')) return undefined;
  if (status !== 502 && status !== 503 && status !== 504) return undefined;
  if (isServiceError(bodyText(res.bytes))) return undefined;
  const text = `the proxy ${displayProxy(transport.proxy)} answered HTTP ${status} itself (the answer is not the service's)`;
  return new NetworkError(`${req.route}: ${text}`, {
    kind: 'proxy',
    sent: status !== 503 || uncertain,
    method: req.method,
    path: routePath(req),
    attempts,
  });
}

function isServiceError(text: string): boolean {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === 'object' && body !== null && 'error' in body;
  } catch {
    return false;
  }
}

/** The transport's own words for a limit it enforced (the size, the deadline), else the kind's. */
export function detail(err: unknown, kind: NetworkFailureKind): string {
  const code = errorCode(err);
  if (code === TRANSPORT_CODES.deadline) return `timed out: ${(err as Error).message}`;
  return NETWORK_TEXT[kind];
}
