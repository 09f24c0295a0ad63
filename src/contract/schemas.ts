/**
 * The service's wire shapes as TypeBox schemas: the request and response bodies the sandbox
 * serves and the OpenAPI document describes. Their `$id`s are the schema names of the document.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { EMAIL_CONSENT_VALUES, EMAIL_CONSENT_WRITABLE, SMS_CONSENT_VALUES, SMS_CONSENT_WRITABLE } from './consent.js';
import { SCOPES } from './scopes.js';

/** Marks a behaviour that comes from open-points.md rather than from the spec. */
export const SD = 'Sandbox decision:';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A string enum, written as `enum` (plainer in OpenAPI than TypeBox's union of literals). */
const enumOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const E164 = Type.String({ pattern: '^\\+[1-9]\\d{7,14}$', description: `${SD} E.164: + and 8 to 15 digits.` });
const Email = Type.String({
  format: 'idn-email',
  maxLength: 254,
  description: `${SD} stored and matched after Unicode NFC and lower-casing, an internationalised domain in punycode; zero-width and bidi control characters are refused.`,
});
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
  { data: Type.Array(Type.Unsafe<Static<typeof ContactSchema>>(Type.Ref('Contact'))), next_cursor: Nullable(Type.String()) },
  { $id: 'ContactPage', description: `${SD} the list envelope and cursor paging.` },
);

export const LineItemSchema = Type.Object(
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
    order_id: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })], {
      description: `Key of the upsert. A JSON number becomes its decimal string. ${SD} a number must be a whole number from 0 to 2^53-1 (1.5, -1 and 1e20 are refused).`,
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
    description: `One of email or phone is required. Omitted optional fields keep their stored values. ${SD} null is not a value for any field (400 naming it): omit the field instead.`,
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
    contact_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: `${SD} an unknown contact_id is 404.` })),
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
    email: Type.Optional(
      Type.String({ description: `${SD} exact match after the normalisation of stored addresses (NFC, lower case, punycode domain).` }),
    ),
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
