/**
 * Transport failures (no HTTP answer): which kind, and whether the request may have reached the
 * service before it failed (what decides if a non-idempotent request may be retried).
 */
import type { NetworkFailureKind } from './errors.js';
import { H1_CODES, MAY_HAVE_BEEN_SENT } from './h1/wire.js';

/** The error code of a transport failure (h1/wire.ts's, Node's, or an aggregate's first). */
export function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: Array<{ code?: unknown }>; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.[0]?.code ?? e?.cause?.code;
  return typeof inner === 'string' ? inner : undefined;
}

/**
 * The request was refused before sending (an invalid header value, such as a token with a line
 * break): it can never be sent, so it is no network failure and is not retried.
 */
export function isUnsendable(err: unknown): boolean {
  const code = errorCode(err);
  return code === H1_CODES.invalidRequest || code === 'UND_ERR_INVALID_ARG';
}

/**
 * Maps a transport error to a failure kind and whether the request may have reached the service.
 * The pool marks its errors with the connection's phase (MAY_HAVE_BEEN_SENT: nothing is sent before
 * the connection and its TLS handshake are up, the request is written after), which wins over what
 * the code alone suggests: a corrupt TLS record or a kernel timeout after the request was written
 * may have been applied; a connection dropped during the handshake was not sent.
 */
export function classifyNetworkError(err: unknown): { kind: NetworkFailureKind; sent: boolean } {
  const byCode = classifyByCode(err);
  const marked = (err as { [MAY_HAVE_BEEN_SENT]?: unknown } | null)?.[MAY_HAVE_BEEN_SENT];
  return typeof marked === 'boolean' ? { kind: byCode.kind, sent: marked } : byCode;
}

function classifyByCode(err: unknown): { kind: NetworkFailureKind; sent: boolean } {
  const code = errorCode(err) ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return { kind: 'refused', sent: false };
    case H1_CODES.connectTimeout:
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { kind: 'timeout', sent: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { kind: 'dns', sent: false };
    case H1_CODES.headersTimeout:
    case H1_CODES.bodyTimeout:
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { kind: 'timeout', sent: true };
    case H1_CODES.closed:
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return { kind: 'reset', sent: true };
  }
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|INVALID_CA|INVALID_PURPOSE|HOSTNAME_MISMATCH|PATH_LENGTH_EXCEEDED)/.test(
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
  other: 'network error',
};
