/**
 * The service's routes, described once: method, path, scope, request and response schemas
 * (TypeBox, from contract/schemas.ts). The server registers its handlers from this table and the
 * OpenAPI document is generated from it, so the two cannot drift apart. Validation itself goes
 * through contract/'s validators, the same ones the CLI uses before sending.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { ContactListQuery, SD } from '../contract/schemas.js';
import type { Scope } from '../contract/scopes.js';

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
/** Longest path parameter (fastify's maxParamLength): a longer one answers 400 before routing. */
export const MAX_PATH_PARAM = 1024;

/** A contact id over 1024 characters, or not valid percent-encoding, is refused before routing. */
const pathError = err(`${SD} invalid_request: the id is longer than 1024 characters or malformed.`);
const common = {
  429: err(`${SD} rate_limited, with Retry-After in whole seconds.`),
  431: err(`${SD} request_header_fields_too_large: the request headers are over 16 KiB.`),
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
      413: err(`${SD} payload_too_large: over 1 MiB.`),
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
    responses: {
      200: { description: 'The contact.', schema: ref('Contact') },
      400: pathError,
      ...auth,
      404: err('not_found.'),
      ...common,
    },
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
    responses: {
      204: { description: 'Deleted.' },
      ...bodyErrors,
      400: err(
        `${SD} invalid_request: the id is longer than 1024 characters or malformed; or invalid_json: a body was sent and is not JSON.`,
      ),
      ...auth,
      404: err('not_found.'),
      422: err(`${SD} compliance_suppressed.`),
      ...common,
    },
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

/** The route of one operation (throws on a name the table lacks: a wiring bug). */
export function routeSpec(operationId: string): RouteSpec {
  const spec = ROUTES.find((r) => r.operationId === operationId);
  if (!spec) throw new Error(`no route ${operationId}`);
  return spec;
}
