/** A logged request as the admin API shows it: secrets masked, the error and its explanation worked out. */
import type { Person, RecordEffect, SideEffectNote } from '../domain/journal.js';
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
  effects: EffectsView;
  /** The injected fault the request got (null: none) and whether its write was applied. */
  fault: { kind: string; write_applied: boolean | null } | null;
  /** For an injected 500 or reset on a write: whether the write was applied; else null. */
  write_applied: boolean | null;
  replay_of: string | null;
  replays: string[];
  links: { curl: string; replay: string };
}

export interface EffectsView {
  records: RecordEffect[];
  side_effects: (SideEffectNote & { person: Person | null })[];
}

/** The person of a contact id when the request's own records do not name it (looked up in the store). */
export type PersonLookup = (businessId: string, contactId: string) => Person | null;

function effectsOf(e: LoggedRequest, lookup: PersonLookup | undefined): EffectsView {
  const j = e.effects;
  if (!j) return { records: [], side_effects: [] };
  const known = new Map<string, Person>();
  for (const r of j.records) if (r.person) known.set(r.person.contact_id, r.person);
  const personOf = (id: string | null): Person | null => {
    if (id === null) return null;
    let p = known.get(id) ?? null;
    if (!p && lookup && e.businessId !== null) p = lookup(e.businessId, id);
    if (p) known.set(id, p);
    return p;
  };
  return { records: j.records, side_effects: j.sideEffects.map((s) => ({ ...s, person: personOf(s.contact_id) })) };
}

const WRITE_APPLIED = 'Internal error: an injected fault (Settings, Faults) after the write: the write was applied.';
const WRITE_NOT_APPLIED = 'Internal error: an injected fault (Settings, Faults) before the write: the write was not applied.';

function explanationOf(e: LoggedRequest, error: ServiceErrorBody | undefined): Explanation | null {
  const x = explain(e.status, error, e.credential) ?? null;
  const applied = e.fault?.kind === 'error' ? e.fault.writeApplied : null;
  if (!x || applied === null) return x;
  return { ...x, rule: applied ? WRITE_APPLIED : WRITE_NOT_APPLIED };
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

export function viewOf(e: LoggedRequest, lookup?: PersonLookup): RequestView {
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
    explanation: explanationOf(e, error),
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
    effects: effectsOf(e, lookup),
    fault: e.fault ? { kind: e.fault.kind, write_applied: e.fault.writeApplied } : null,
    write_applied: e.fault && (e.fault.kind === 'error' || e.fault.kind === 'reset') ? e.fault.writeApplied : null,
    replay_of: e.replayOf ?? null,
    replays: e.replays ?? [],
    links: { curl: `/_sandbox/requests/${e.requestId}/curl`, replay: `/_sandbox/requests/${e.requestId}/replay` },
  };
}
