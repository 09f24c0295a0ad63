/** A logged request as the admin API shows it: secrets masked, the error and its explanation worked out. */
import { DEPRECATIONS, type DeprecationCode } from './deprecations.js';
import { type Explanation, explain, type ServiceErrorBody } from './explain.js';
import { maskBody, maskForm } from './mask.js';
import { BODY_CAP, type Credential, type LoggedRequest, type RequestKind } from './ring.js';

export interface BodyView {
  content_type: string | null;
  /** The body's whole size in bytes. */
  bytes: number;
  /** The body as text (masked; cut at 16 KiB), or null without one. */
  body: string | null;
  truncated: boolean;
}

export interface RequestView {
  seq: number;
  request_id: string;
  time: string;
  kind: RequestKind;
  business_id: string | null;
  credential: Credential;
  method: string;
  path: string;
  query: string | null;
  status: number;
  duration_ms: number;
  error: { code: string; message: string } | null;
  explanation: Explanation | null;
  deprecations: { code: DeprecationCode; status: string; what: string; replacement: string }[];
  request: BodyView;
  response: BodyView;
}

function errorOf(e: LoggedRequest): ServiceErrorBody | undefined {
  if (e.status < 400 || e.responseBody === '') return undefined;
  try {
    const parsed = JSON.parse(e.responseBody) as { error?: ServiceErrorBody };
    return typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

export function viewOf(e: LoggedRequest): RequestView {
  const error = errorOf(e);
  const reqText = e.requestBody === undefined ? null : e.requestBody.toString('utf8');
  return {
    seq: e.seq,
    request_id: e.requestId,
    time: new Date(e.at).toISOString(),
    kind: e.kind,
    business_id: e.businessId,
    credential: e.credential,
    method: e.method,
    path: e.path,
    query: e.query === '' ? null : maskForm(e.query),
    status: e.status,
    duration_ms: Math.round(e.durationMs * 100) / 100,
    error: error?.code === undefined ? null : { code: error.code, message: error.message ?? '' },
    explanation: explain(e.status, error, e.credential) ?? null,
    deprecations: e.deprecations.map((code) => {
      const d = DEPRECATIONS[code as DeprecationCode];
      return { code: code as DeprecationCode, status: d.status, what: d.what, replacement: d.replacement };
    }),
    request: {
      content_type: e.requestType ?? null,
      bytes: e.requestBytes,
      body: reqText === null ? null : maskBody(reqText, e.requestType),
      truncated: e.requestBytes > BODY_CAP,
    },
    response: {
      content_type: e.responseType ?? null,
      bytes: e.responseBytes,
      body: e.responseBody === '' ? null : maskBody(e.responseBody, e.responseType),
      truncated: e.responseBytes > BODY_CAP,
    },
  };
}
