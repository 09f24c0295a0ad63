/**
 * The service's routes, described once: method, path, scope, request and response schemas
 * (TypeBox, built from contract/). The server registers its handlers from this table and the
 * OpenAPI document is generated from it, so the two cannot drift apart. Validation itself goes
 * through contract/'s validators, the same ones the CLI uses before sending.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { EMAIL_CONSENT_VALUES, EMAIL_CONSENT_WRITABLE, SMS_CONSENT_VALUES, SMS_CONSENT_WRITABLE } from '../contract/consent.js';
import { SCOPES, type Scope } from '../contract/scopes.js';

/** Marks a behaviour that comes from open-points.md rather than from the spec. */
export const SD = 'Sandbox decision:';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A string enum, written as `enum` (plainer in OpenAPI than TypeBox's union of literals). */
const enumOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const E164 = Type.String({ pattern: '^\\+[1-9]\\d{7,14}$', description: `${SD} E.164: + and 8 to 15 digits.` });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Timestamp = Type.String({ format: 'date-time', description: `${SD} RFC 3339 in UTC with Z.` });
const Decimal = Type.Union([Type.String({ pattern: '^\\d{1,18}(\\.\\d{1,18})?$' }), Type.Number({ minimum: 0 })], {
  description: `${SD} a non-negative decimal, as a JSON number or a string like "49.90", with at most as many decimals as the currency has.`,
});

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      request_id: Type.Optional(Type.String({ description: `${SD} the X-Request-Id of the response.` })),
      id: Type.Optional(Type.String({ description: 'On a 409 from contact creation: the existing contact.' })),
      required_scope: Type.Optional(Type.String({ description: `${SD} on 403 insufficient_scope: the scope the route needs.` })),
      details: Type.Optional(
        Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
          description: `${SD} on validation errors: one entry per field.`,
        }),
      ),
    }),
  },
  { $id: 'Error' },
);

export const ContactSchema = Type.Object(
  {
    id: Type.String({ description: `${SD} opaque, prefixed ct_.` }),
    email: Nullable(Email),
    phone: Nullable(E164),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    email_consent: enumOf(EMAIL_CONSENT_VALUES),
    sms_consent: enumOf(SMS_CONSENT_VALUES),
    created_at: Timestamp,
    updated_at: Timestamp,
    orders_count: Type.Integer({ minimum: 0 }),
    total_spent: Type.Record(Type.String(), Type.String(), { description: `${SD} currency code → decimal string.` }),
    last_order_at: Nullable(Timestamp),
  },
  { $id: 'Contact', description: `${SD} the contact object's fields beyond the spec's.` },
);

const contactWriteFields = {
  email: Type.Optional(Email),
  phone: Type.Optional(E164),
  first_name: Type.Optional(Type.String({ maxLength: 255 })),
  last_name: Type.Optional(Type.String({ maxLength: 255 })),
  email_consent: Type.Optional(
    enumOf(EMAIL_CONSENT_WRITABLE, 'Writable email consent values only (compliance_suppressed is read-only: 400).'),
  ),
  sms_consent: Type.Optional(
    enumOf(
      SMS_CONSENT_WRITABLE,
      `Writable SMS consent values only (pending is read-only: 400). ${SD} single_opt_in and subscribed need a phone after the write.`,
    ),
  ),
  send_welcome_sms: Type.Optional(
    Type.Boolean({ default: true, description: 'false suppresses the welcome SMS of a move into subscribed.' }),
  ),
};

export const ContactCreateSchema = Type.Object(contactWriteFields, {
  additionalProperties: false,
  $id: 'ContactCreate',
  description: `${SD} email or phone is required; unknown fields answer 400.`,
});
export const ContactPatchSchema = Type.Object(contactWriteFields, { additionalProperties: false, $id: 'ContactPatch' });

export const ContactPageSchema = Type.Object(
  { data: Type.Array(Type.Ref('Contact')), next_cursor: Nullable(Type.String()) },
  { $id: 'ContactPage', description: `${SD} the list envelope and cursor paging.` },
);

const LineItemSchema = Type.Object(
  {
    sku: Type.Optional(Type.String({ maxLength: 255 })),
    name: Type.String({ minLength: 1, maxLength: 1000 }),
    quantity: Type.Integer({ minimum: 1 }),
    price: Decimal,
  },
  { additionalProperties: false },
);

export const OrderInputSchema = Type.Object(
  {
    order_id: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Number()], {
      description: 'Key of the upsert. A JSON number becomes its decimal string.',
    }),
    total: Decimal,
    currency: Type.String({ description: `${SD} ISO 4217 alphabetic code; answered upper-case.` }),
    order_date: Type.String({ description: `${SD} RFC 3339 date-time with offset, or YYYY-MM-DD (midnight UTC).` }),
    email: Type.Optional(Email),
    phone: Type.Optional(E164),
    accepts_email_marketing: Type.Optional(
      Type.Boolean({ description: `${SD} a newly created contact gets email_consent subscribed when true, else never_subscribed.` }),
    ),
    accepts_sms_marketing: Type.Optional(
      Type.Boolean({ description: `Needs phone. ${SD} a newly created contact gets sms_consent single_opt_in.` }),
    ),
    initial_sync: Type.Optional(
      Type.Boolean({ description: 'Historical import: no flows, automations or revenue attribution; statistics still updated.' }),
    ),
    line_items: Type.Optional(Type.Array(LineItemSchema, { description: `${SD} replaces the stored list when present.` })),
  },
  {
    additionalProperties: false,
    $id: 'OrderInput',
    description: 'One of email or phone is required. Omitted optional fields keep their stored values.',
  },
);

export const OrderSchema = Type.Object(
  {
    order_id: Type.String(),
    total: Type.String(),
    currency: Type.String(),
    order_date: Timestamp,
    email: Nullable(Email),
    phone: Nullable(E164),
    accepts_email_marketing: Nullable(Type.Boolean()),
    accepts_sms_marketing: Nullable(Type.Boolean()),
    initial_sync: Nullable(Type.Boolean()),
    line_items: Nullable(
      Type.Array(Type.Object({ sku: Type.Optional(Type.String()), name: Type.String(), quantity: Type.Integer(), price: Type.String() })),
    ),
    contact_id: Nullable(Type.String()),
    integration_id: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Order', description: `${SD} the stored order as answered by the upsert.` },
);

export const EventInputSchema = Type.Object(
  {
    event_type: Type.String({ minLength: 1, maxLength: 255 }),
    email: Type.Optional(Email),
    phone: Type.Optional(E164),
    contact_id: Type.Optional(Type.String({ description: `${SD} an unknown contact_id is 404.` })),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: `${SD} at most 64 KiB serialised.` })),
    occurred_at: Type.Optional(Type.String({ format: 'date-time', description: `${SD} default: time received.` })),
    event_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: `${SD} a sandbox extension: a repeat within 24 h answers the first event's id and is not processed again.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    $id: 'EventInput',
    description: `${SD} one of email, phone or contact_id identifies the contact; email or phone finds or creates it.`,
  },
);

export const EventAcceptedSchema = Type.Object({ status: Type.Literal('accepted'), id: Type.String() }, { $id: 'EventAccepted' });

export const TokenRequestSchema = Type.Object(
  {
    grant_type: Type.Literal('client_credentials'),
    client_id: Type.Optional(Type.String({ description: 'Or HTTP Basic.' })),
    client_secret: Type.Optional(Type.String({ description: 'Or HTTP Basic.' })),
    scope: Type.Optional(
      Type.String({
        description: `Space-separated scope names (${SCOPES.join(', ')}). ${SD} absent: every scope enabled on the application.`,
      }),
    ),
    scopes: Type.Optional(Type.String({ description: `${SD} accepted as a synonym of scope; scope wins if both are sent.` })),
  },
  { $id: 'TokenRequest' },
);

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: '7200 by default.' }),
    scope: Type.String({ description: `Scopes actually granted. ${SD} a scope the business lacks is silently left out.` }),
    created_at: Type.Integer({ description: 'Unix seconds.' }),
  },
  { $id: 'TokenResponse' },
);

export const ContactListQuery = Type.Object(
  {
    email_consent: Type.Optional(enumOf(EMAIL_CONSENT_VALUES)),
    sms_consent: Type.Optional(enumOf(SMS_CONSENT_VALUES)),
    email: Type.Optional(Type.String({ description: `${SD} exact match, case-insensitive.` })),
    phone: Type.Optional(Type.String({ description: `${SD} exact match (E.164).` })),
    updated_since: Type.Optional(Type.String({ format: 'date-time', description: `${SD} RFC 3339.` })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50, description: `${SD} page size.` })),
    cursor: Type.Optional(Type.String({ description: `${SD} opaque; next_cursor of the previous page.` })),
  },
  { additionalProperties: false },
);

export const SCHEMAS = [
  ErrorSchema,
  ContactSchema,
  ContactCreateSchema,
  ContactPatchSchema,
  ContactPageSchema,
  OrderInputSchema,
  OrderSchema,
  EventInputSchema,
  EventAcceptedSchema,
  TokenRequestSchema,
  TokenResponseSchema,
];

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  headers?: Record<string, string>;
}

export interface RouteSpec {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** fastify style: /v1/contacts/:id */
  url: string;
  scope?: Scope;
  summary: string;
  description?: string;
  deprecated?: boolean;
  body?: { schema: TSchema; contentType: 'application/json' | 'application/x-www-form-urlencoded'; required: boolean };
  query?: TSchema;
  headers?: Record<string, { description: string; required?: boolean }>;
  responses: Record<number, ResponseSpec>;
}

const ref = (id: string) => Type.Ref(id);
const err = (description: string): ResponseSpec => ({ description, schema: ref('Error') });
const auth = {
  401: err('unauthorized: bearer token missing, expired, revoked or malformed.'),
  403: err(`${SD} insufficient_scope, with WWW-Authenticate and error.required_scope.`),
};
const bodyErrors = {
  400: err(`${SD} invalid_json or invalid_request (details per field; unknown fields are rejected).`),
  413: err(`${SD} payload_too_large: over 1 MiB.`),
  415: err(`${SD} unsupported_media_type: the body is not application/json.`),
};
const common = {
  429: err(`${SD} rate_limited, with Retry-After in whole seconds.`),
  500: err('internal_error.'),
  503: err(`${SD} unavailable: not processed; safe to retry.`),
};

export const ROUTES: RouteSpec[] = [
  {
    operationId: 'requestToken',
    method: 'POST',
    url: '/oauth/token',
    summary: 'Exchange client credentials for an access token',
    description: `OAuth 2.0 client credentials (RFC 6749 §4.4). ${SD} client_id/client_secret as form fields or HTTP Basic; errors use RFC 6749 §5.2 statuses with the service's body.`,
    body: { schema: ref('TokenRequest'), contentType: 'application/x-www-form-urlencoded', required: true },
    responses: {
      200: { description: 'A bearer token.', schema: ref('TokenResponse') },
      400: err(`${SD} invalid_request, unsupported_grant_type or invalid_scope (unknown scope, or not enabled on the application).`),
      401: err('invalid_client: unknown client id or wrong secret.'),
      ...common,
    },
  },
  {
    operationId: 'listContacts',
    method: 'GET',
    url: '/v1/contacts',
    scope: 'contacts_read',
    summary: 'List and filter contacts',
    description: `${SD} creation order, stable under concurrent inserts; Link rel="next" when there is a next page. The removed parameters email_permission and phone_permission answer 400 naming their replacement; unknown parameters answer 400.`,
    query: ContactListQuery,
    responses: {
      200: { description: 'A page of contacts.', schema: ref('ContactPage'), headers: { Link: `${SD} <…>; rel="next"` } },
      400: err('invalid_request.'),
      ...auth,
      ...common,
    },
  },
  {
    operationId: 'getContact',
    method: 'GET',
    url: '/v1/contacts/:id',
    scope: 'contacts_read',
    summary: 'Get one contact',
    description: `${SD} this operation is not in the spec.`,
    responses: { 200: { description: 'The contact.', schema: ref('Contact') }, ...auth, 404: err('not_found.'), ...common },
  },
  {
    operationId: 'createContact',
    method: 'POST',
    url: '/v1/contacts',
    scope: 'contacts_write',
    summary: 'Create a contact',
    description: `Consent defaults to never_subscribed. A move of sms_consent into subscribed records a welcome SMS unless send_welcome_sms is false. ${SD} when the email or phone belongs to a merchant-suppressed contact and the body writes a consent value, the suppression is lifted and the body applied to it (200).`,
    body: { schema: ref('ContactCreate'), contentType: 'application/json', required: true },
    responses: {
      201: { description: 'Created.', schema: ref('Contact') },
      200: { description: `${SD} an existing merchant-suppressed contact, unsuppressed and updated.`, schema: ref('Contact') },
      ...bodyErrors,
      ...auth,
      409: err(`${SD} contact_exists; error.id names the existing contact.`),
      422: err(`${SD} compliance_suppressed: the email or phone belongs to a compliance-suppressed contact.`),
      ...common,
    },
  },
  {
    operationId: 'patchContact',
    method: 'PATCH',
    url: '/v1/contacts/:id',
    scope: 'contacts_write',
    summary: 'Update a contact',
    description: `Writing any consent value to a merchant-suppressed contact unsuppresses it first (${SD} email_consent becomes never_subscribed when only sms_consent is written).`,
    body: { schema: ref('ContactPatch'), contentType: 'application/json', required: true },
    responses: {
      200: { description: 'The updated contact.', schema: ref('Contact') },
      ...bodyErrors,
      ...auth,
      404: err('not_found.'),
      409: err(`${SD} contact_exists: the new email or phone belongs to another contact.`),
      422: err(`${SD} compliance_suppressed.`),
      ...common,
    },
  },
  {
    operationId: 'deleteContact',
    method: 'DELETE',
    url: '/v1/contacts/:id',
    scope: 'contacts_write',
    summary: 'Delete a contact',
    description: `${SD} method and path; 204 without a body; the contact's orders are kept.`,
    responses: { 204: { description: 'Deleted.' }, ...auth, 404: err('not_found.'), 422: err(`${SD} compliance_suppressed.`), ...common },
  },
  {
    operationId: 'unsubscribeContact',
    method: 'POST',
    url: '/v1/contacts/:id/unsubscribe',
    scope: 'contacts_write',
    deprecated: true,
    summary: 'Unsubscribe a contact from email (deprecated)',
    description: `Replaced by PATCH with email_consent unsubscribed. ${SD} empty body or {}; answers 200 with the contact.`,
    body: { schema: Type.Object({}, { additionalProperties: false }), contentType: 'application/json', required: false },
    responses: {
      200: {
        description: 'The contact.',
        schema: ref('Contact'),
        headers: { Deprecation: 'true', Link: `<{base_url}/v1/contacts/{id}>; rel="successor-version"` },
      },
      ...bodyErrors,
      ...auth,
      404: err('not_found.'),
      422: err(`${SD} compliance_suppressed.`),
      ...common,
    },
  },
  {
    operationId: 'upsertOrder',
    method: 'POST',
    url: '/v1/orders/placed',
    scope: 'orders_write',
    summary: 'Create or update an order (idempotent upsert keyed on order_id)',
    description: `First call for an order_id: 201; later calls: 200. The matching contact is found or created (${SD} by email when the order has one, else by phone; an existing contact's consent is never changed). Without initial_sync: ${SD} a create records flow_trigger order_placed and revenue_attribution, an update flow_trigger order_updated. Statistics follow every call. Concurrent first calls yield exactly one 201.`,
    headers: {
      'X-Service-Integration-Token': {
        description: `Must match an active Custom Integration of the business (${SD} else 403 invalid_integration_token, nothing stored). Absent: the business's only Custom Integration, if active, is used.`,
      },
    },
    body: { schema: ref('OrderInput'), contentType: 'application/json', required: true },
    responses: {
      201: { description: 'Created.', schema: ref('Order') },
      200: { description: 'Updated.', schema: ref('Order') },
      ...bodyErrors,
      401: auth[401],
      403: err(`${SD} insufficient_scope, or invalid_integration_token.`),
      ...common,
    },
  },
  {
    operationId: 'sendEvent',
    method: 'POST',
    url: '/v1/events',
    scope: 'events_write',
    summary: 'Send a custom event',
    description: `200 means accepted for processing; it does not guarantee that any automation ran. ${SD} each flow keyed on the event_type records a flow_run.`,
    body: { schema: ref('EventInput'), contentType: 'application/json', required: true },
    responses: {
      200: { description: 'Accepted.', schema: ref('EventAccepted') },
      ...bodyErrors,
      ...auth,
      404: err(`${SD} unknown contact_id.`),
      ...common,
    },
  },
];
