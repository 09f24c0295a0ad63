/**
 * The OpenAPI 3.1 document of the admin API (`/_sandbox/...`), served at GET
 * /_sandbox/openapi.json (`/openapi.json` stays the service's alone). The request log,
 * deprecations, flows and snapshots are described field by field; the earlier calls by their
 * statuses and a general object shape. Tests check every admin answer against it.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { ErrorSchema } from '../contract/schemas.js';
import { Credential, CurlText, EventDetail, LoggedRequest, Replayed } from './admin-openapi-requests.js';

const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Str = Type.String();
const Time = Type.String({ format: 'date-time' });
const Any = Type.Object({}, { additionalProperties: true });
const List = (item: TSchema) =>
  Type.Object({ data: Type.Array(item), total: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });

const RequestPage = Type.Object(
  {
    data: Type.Array(LoggedRequest),
    next_cursor: N(Str),
    total: Type.Integer({ minimum: 0 }),
    latest_seq: Type.Integer({ minimum: 0 }),
    capacity: Type.Object({ entries: Type.Integer(), bytes: Type.Integer() }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
const Deprecation = Type.Object(
  {
    code: Str,
    status: Type.Union([Type.Literal('deprecated'), Type.Literal('removed')]),
    what: Str,
    replacement: Str,
    business_id: N(Str),
    credential: Credential,
    count: Type.Integer({ minimum: 1 }),
    first_seen: Time,
    last_seen: Time,
    example_request_id: Str,
    example: Str,
  },
  { additionalProperties: false },
);
const FlowFields = {
  id: Str,
  business_id: Str,
  name: Str,
  trigger: Type.Union([Type.Literal('event'), Type.Literal('order')]),
  event_type: Str,
  enabled: Type.Boolean(),
  created_at: Time,
};
const Flow = Type.Object({ ...FlowFields, runs: Type.Integer({ minimum: 0 }), last_run_at: N(Time) }, { additionalProperties: false });
const NewFlow = Type.Object(FlowFields, { additionalProperties: false });
const SnapshotFields = {
  name: Str,
  created_at: Time,
  bytes: Type.Integer({ minimum: 0 }),
  contacts: Type.Integer({ minimum: -1 }),
  orders: Type.Integer({ minimum: -1 }),
};
const Snapshot = Type.Object(SnapshotFields, { additionalProperties: false });

type Responses = Record<string, { description: string; schema?: TSchema; type?: string; alsoType?: string }>;
const error = (description: string) => ({ description, schema: ErrorSchema });
const bad = { 400: error('invalid_request: a parameter or field is wrong (details per field).') };
const missing = { 404: error('not_found.') };

interface Op {
  summary: string;
  responses: Responses;
  body?: TSchema;
}

/** What the admin guard (plugins/admin-guard.ts) answers on any call: another machine, another site, no admin token. */
const guarded: Responses = {
  401: error('admin_token_required: the sandbox was started with --admin-token and the request carries no valid one.'),
  403: error(
    'Refused by the admin guard: host_not_allowed (a Host name the sandbox does not answer to), origin_not_allowed (another page’s Origin), cross_site_refused (Sec-Fetch-Site: cross-site).',
  ),
  404: error('not_found (also: a client that is not on the loopback interface, when no admin token was set).'),
};
const op = (summary: string, responses: Responses, body?: TSchema): Op => ({ summary, responses: { ...guarded, ...responses }, body });
const general = (summary: string, ok: number, extra: Responses = {}): Op =>
  op(summary, {
    [ok]: { description: 'See docs/sandbox.md.', schema: ok === 204 ? undefined : Any },
    ...bad,
    ...missing,
    ...extra,
    default: error('Another error, in the service’s error shape.'),
  });

const PATHS: Record<string, Record<string, Op>> = {
  '/_sandbox/requests': {
    get: op(
      'The request log, newest first (filters: status, path, method, credential, request_id, since, kind, business_id, search, replay_of; limit, cursor)',
      {
        200: { description: 'A page of logged requests.', schema: RequestPage },
        ...bad,
        404: error('not_found: the request log is off (--log-size 0).'),
      },
    ),
  },
  '/_sandbox/requests/stream': {
    get: op('Each logged request as it is answered (server-sent events), after `after` or Last-Event-ID', {
      200: { description: 'text/event-stream; each `data:` is a logged request.', type: 'text/event-stream' },
      ...bad,
    }),
  },
  '/_sandbox/requests/{request_id}': {
    get: op('One logged request', { 200: { description: 'The logged request.', schema: LoggedRequest }, ...missing }),
  },
  '/_sandbox/requests/{request_id}/curl': {
    get: op('The logged request as a curl command, secrets as shell variables', {
      200: { description: 'The command.', schema: CurlText },
      ...missing,
    }),
  },
  '/_sandbox/requests/{request_id}/replay': {
    post: op('Send the logged request again, marked as its replay', {
      201: { description: 'The replay, logged.', schema: Replayed },
      ...bad,
      ...missing,
      409: error('not_replayable: an admin call, or a body cut at 16 KiB.'),
      502: error('replay_failed: the replay got no answer (an injected connection reset).'),
    }),
  },
  '/_sandbox/requests/export': {
    get: op('The request log, oldest first, as HAR 1.2 (format=har) or NDJSON (format=ndjson); the filters of the list', {
      200: {
        description: 'HAR 1.2 JSON, or one logged request per line (application/x-ndjson).',
        schema: Any,
        alsoType: 'application/x-ndjson',
      },
      ...bad,
      404: error('not_found: the request log is off (--log-size 0).'),
    }),
  },
  '/_sandbox/events/{id}': {
    get: op('One event, its contact by e-mail or phone, the request that sent it and its side effects', {
      200: { description: 'The event.', schema: EventDetail },
      ...bad,
      ...missing,
    }),
  },
  '/_sandbox/deprecations': {
    get: op('Deprecated or removed usages seen, per credential', {
      200: { description: 'The usages.', schema: List(Deprecation) },
      ...bad,
    }),
  },
  '/_sandbox/flows': {
    get: op('The flows of a business, with their runs', { 200: { description: 'The flows.', schema: List(Flow) }, ...bad, ...missing }),
    post: op(
      'A flow keyed on an event type or an order trigger',
      { 201: { description: 'The new flow.', schema: NewFlow }, ...bad, ...missing },
      Type.Object({
        business_id: Type.Optional(Str),
        event_type: Type.Optional(Str),
        order_trigger: Type.Optional(Type.Union([Type.Literal('order_placed'), Type.Literal('order_updated')])),
        name: Type.Optional(Str),
      }),
    ),
  },
  '/_sandbox/flows/{id}': {
    get: op('One flow, with its runs', { 200: { description: 'The flow.', schema: Flow }, ...missing }),
    patch: op(
      'Enable, disable or rename a flow',
      { 200: { description: 'The flow.', schema: Flow }, ...bad, ...missing },
      Type.Object({ enabled: Type.Optional(Type.Boolean()), name: Type.Optional(Str) }),
    ),
    delete: op('Delete a flow (its runs stay)', { 204: { description: 'Deleted.' }, ...missing }),
  },
  '/_sandbox/snapshots': {
    get: op('The saved snapshots', { 200: { description: 'By name.', schema: List(Snapshot) } }),
    post: op(
      'Save the whole state',
      {
        201: {
          description: 'Saved.',
          schema: Type.Object({ ...SnapshotFields, replaced: Type.Boolean() }, { additionalProperties: false }),
        },
        200: {
          description: 'Replaced one of that name.',
          schema: Type.Object({ ...SnapshotFields, replaced: Type.Boolean() }, { additionalProperties: false }),
        },
        ...bad,
      },
      Type.Object({ name: Str }),
    ),
  },
  '/_sandbox/snapshots/{name}/restore': {
    post: op('Replace the whole state with the snapshot, atomically', {
      200: {
        description: 'Restored.',
        schema: Type.Object(
          { ...SnapshotFields, restored: Type.Literal(true), duration_ms: Type.Number() },
          { additionalProperties: false },
        ),
      },
      ...bad,
      ...missing,
    }),
  },
  '/_sandbox/snapshots/{name}': { delete: op('Delete a snapshot', { 204: { description: 'Deleted.' }, ...bad, ...missing }) },
  '/_sandbox/businesses': { get: general('Every business', 200), post: general('A new business', 201) },
  '/_sandbox/apps': {
    get: general('OAuth applications (no secret)', 200),
    post: general('A new OAuth application (secret shown once)', 201),
  },
  '/_sandbox/apps/{client_id}/secret': { post: general('Regenerate the secret', 200) },
  '/_sandbox/apps/{client_id}/tokens': { delete: general("Revoke the application's access tokens", 200) },
  '/_sandbox/api-tokens': { get: general('API tokens (no token value)', 200), post: general('A new API token (shown once)', 201) },
  '/_sandbox/api-tokens/{id}': { delete: general('Revoke an API token', 200) },
  '/_sandbox/integrations': { get: general('Custom Integrations (no token)', 200), post: general('A new Custom Integration', 201) },
  '/_sandbox/integrations/{id}': { patch: general('Activate or deactivate', 200) },
  '/_sandbox/integrations/{id}/token': { get: general('Reveal the token', 200) },
  '/_sandbox/contacts': { get: general('Contacts, newest first', 200) },
  '/_sandbox/contacts/{id}': { get: general('One contact', 200) },
  '/_sandbox/contacts/{id}/consent': {
    put: general('Force a consent state', 200, { 409: error('contact_exists.'), 422: error('compliance_suppressed.') }),
  },
  '/_sandbox/contact-labels': {
    get: op('E-mail, phone and name of each contact id given (ids=ct_a,ct_b; at most 200)', {
      200: {
        description: 'By contact id; ids not in the business are left out.',
        schema: Type.Object(
          {
            data: Type.Record(Type.String(), Type.Object({ email: N(Str), phone: N(Str), name: N(Str) }, { additionalProperties: false })),
          },
          { additionalProperties: false },
        ),
      },
      ...bad,
    }),
  },
  '/_sandbox/orders': { get: general('Orders, newest first', 200) },
  '/_sandbox/orders/{order_id}': { get: general('One stored order', 200) },
  '/_sandbox/events': { get: general('Stored events, newest first', 200) },
  '/_sandbox/outbox': {
    get: general(
      'Recorded side effects, oldest first (filters: type, business_id, contact_id, flow_id, after, limit), with their total',
      200,
    ),
  },
  '/_sandbox/outbox/details': {
    get: op('What each side effect carried (seqs=1,2; at most 200): the welcome SMS, flow run or attributed amount', {
      200: {
        description:
          'By sequence number; side effects not in the business are left out. welcome_sms: phone, text; flow_run: flow_name, event_type; revenue_attribution: amount, currency, integration_id, integration_name; flow_trigger: trigger, amount, currency.',
        schema: Type.Object({ data: Type.Record(Type.String(), Type.Record(Type.String(), N(Str))) }, { additionalProperties: false }),
      },
      ...bad,
    }),
  },
  '/_sandbox/outbox/stream': {
    get: op('Each side effect as it is recorded (server-sent events)', {
      200: { description: 'text/event-stream.', type: 'text/event-stream' },
      ...bad,
    }),
  },
  '/_sandbox/faults': { get: general('The faults in force', 200), put: general('Set the faults', 200) },
  '/_sandbox/reset': { post: general('Empty every table and the faults', 200) },
  '/_sandbox/info': {
    get: op('Which database this sandbox runs on, and its request log', {
      200: {
        description: 'The dashboard’s banner.',
        schema: Type.Object(
          {
            database: N(Type.String({ description: 'The database file (absolute path); null in memory.' })),
            in_memory: Type.Boolean(),
            request_log: N(
              Type.Object(
                { entries: Type.Integer(), max_entries: Type.Integer(), max_bytes: Type.Integer() },
                { additionalProperties: false },
              ),
            ),
            state: Type.Object(
              {
                generation: Type.Integer({ description: 'How many times the whole state was replaced since the sandbox started.' }),
                last_change: N(
                  Type.Object(
                    {
                      kind: Type.Union([Type.Literal('restore'), Type.Literal('reset')]),
                      snapshot: N(Type.String({ description: 'The snapshot restored; null for a reset.' })),
                      at: Type.String({ format: 'date-time' }),
                    },
                    { additionalProperties: false },
                  ),
                ),
              },
              { additionalProperties: false, description: 'The last restore or reset: open dashboard pages reload on a new generation.' },
            ),
          },
          { additionalProperties: false },
        ),
      },
    }),
  },
  '/_sandbox/openapi.json': { get: op('This document', { 200: { description: 'OpenAPI 3.1.', schema: Any } }) },
};

/** Plain JSON of a TypeBox schema, without `$id` (the error shape is inlined, not a component). */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value));
}

/** An operation's responses: each status's description and, when it has a body, its media types. */
function responsesOf(o: Op): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(o.responses)) {
    const type = r.type ?? 'application/json';
    responses[status] = {
      description: r.description,
      ...(r.schema || r.type
        ? { content: { [type]: r.schema ? { schema: plain(r.schema) } : {}, ...(r.alsoType ? { [r.alsoType]: {} } : {}) } }
        : {}),
    };
  }
  return responses;
}

/** One operation of the document: its summary, id, path parameters, body and responses. */
function operationOf(path: string, method: string, o: Op): Record<string, unknown> {
  const parameters = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  return {
    summary: o.summary,
    operationId: `admin_${method}_${path
      .replace('/_sandbox/', '')
      .replace(/[{}]/g, '')
      .replace(/[^a-z0-9]+/gi, '_')}`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(o.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(o.body) } } } } : {}),
    responses: responsesOf(o),
  };
}

export function buildAdminOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, ops] of Object.entries(PATHS)) {
    paths[path] = Object.fromEntries(Object.entries(ops).map(([method, o]) => [method, operationOf(path, method, o)]));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc sandbox admin API',
      version: '1',
      description:
        'The sandbox’s own surface under /_sandbox (not part of the service): the dashboard’s reads and writes, the request log, deprecations, flows, snapshots, faults and reset. Loopback clients only; no token. See docs/sandbox.md.',
    },
    paths,
  };
}
