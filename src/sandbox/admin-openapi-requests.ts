/** The request log's shapes in the admin API's OpenAPI document (admin-openapi.ts): a logged request with its effects, curl, replay. */
import { type TSchema, Type } from '@sinclair/typebox';

const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Str = Type.String();
const Time = Type.String({ format: 'date-time' });
const closed = { additionalProperties: false };

export const Credential = Type.Object(
  {
    kind: Type.Union(['api_token', 'oauth_app', 'unknown_token', 'unknown_client', 'none'].map((k) => Type.Literal(k))),
    id: N(Str),
    name: N(Str),
  },
  { additionalProperties: false, description: 'Who sent the request, by name and kind; never a secret.' },
);
const Body = Type.Object(
  { content_type: N(Str), bytes: Type.Integer({ minimum: 0 }), body: N(Str), truncated: Type.Boolean() },
  { additionalProperties: false, description: 'Secrets masked; cut at 16 KiB; body null when absent or not read.' },
);
const Person = N(
  Type.Object(
    { contact_id: Str, email: N(Str), phone: N(Str) },
    { additionalProperties: false, description: 'The contact, by e-mail and phone.' },
  ),
);
const RecordEffect = Type.Object(
  {
    type: Type.Union([Type.Literal('contact'), Type.Literal('order'), Type.Literal('event')]),
    action: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('deleted')]),
    id: Type.String({ description: 'The contact id, the shop’s order id or the event id.' }),
    business_id: Str,
    person: Person,
  },
  closed,
);
const SideEffect = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    type: Str,
    contact_id: N(Str),
    order_id: N(Str),
    event_id: N(Str),
    flow_id: N(Str),
    trigger: N(Str),
    person: Person,
  },
  closed,
);
export const LoggedRequest = Type.Object(
  {
    seq: Type.Integer({ minimum: 1 }),
    request_id: Str,
    time: Time,
    kind: Type.Union([Type.Literal('service'), Type.Literal('token'), Type.Literal('admin')]),
    business_id: N(Str),
    credential: Credential,
    method: Str,
    path: Str,
    query: N(Str),
    status: Type.Integer({ minimum: 100, maximum: 599 }),
    duration_ms: Type.Number({ minimum: 0, description: 'From the request’s arrival to the last byte of its answer.' }),
    error: N(Type.Object({ code: Str, message: Str }, closed)),
    explanation: N(Type.Object({ rule: Str, fix: Str }, closed)),
    deprecations: Type.Array(Type.Object({ code: Str, status: Str, what: Str, replacement: Str }, closed)),
    request: Body,
    response: Body,
    effects: Type.Object({ records: Type.Array(RecordEffect), side_effects: Type.Array(SideEffect) }, closed),
    fault: N(Type.Object({ kind: Str, write_applied: N(Type.Boolean()) }, closed)),
    write_applied: N(Type.Boolean()),
    replay_of: N(Str),
    replays: Type.Array(Str),
    links: Type.Object({ curl: Str, replay: Str }, closed),
  },
  closed,
);
export const CurlText = Type.Object(
  {
    curl: Type.String({ description: 'A curl command; every secret is a shell variable (variables).' }),
    variables: Type.Array(Type.Object({ name: Str, for: Str }, closed)),
    truncated: Type.Boolean(),
  },
  closed,
);
export const Replayed = Type.Object(
  { request_id: Str, replay_of: Str, status: Type.Integer({ minimum: 100, maximum: 599 }), request: N(LoggedRequest) },
  closed,
);
export const EventDetail = Type.Object(
  {
    id: Str,
    business_id: Str,
    event_type: Str,
    contact_id: Str,
    person: Person,
    properties: Type.Unknown(),
    occurred_at: Str,
    event_id: N(Str),
    received_at: Time,
    request_id: N(Str),
    side_effects: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  closed,
);
