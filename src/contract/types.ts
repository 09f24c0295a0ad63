/**
 * Request and response shapes of the service (spec + open-points.md decisions), as TypeScript
 * types derived from the TypeBox schemas of schemas.ts: one source for the wire shapes, the
 * OpenAPI document and the code.
 */
import type { Static } from '@sinclair/typebox';
import type { EmailConsent, SmsConsent } from './consent.js';
import type {
  ContactCreateSchema,
  ContactPageSchema,
  ContactSchema,
  EventAcceptedSchema,
  EventInputSchema,
  LineItemSchema,
  OrderInputSchema,
  OrderSchema,
  TokenResponseSchema,
} from './schemas.js';

export type Contact = Static<typeof ContactSchema>;

/** Body of POST /v1/contacts and PATCH /v1/contacts/{id} (the same fields; create needs email or phone). */
export type ContactWrite = Static<typeof ContactCreateSchema>;

export interface ContactListFilter {
  email_consent?: EmailConsent;
  sms_consent?: SmsConsent;
  email?: string;
  phone?: string;
  updated_since?: string;
}

export type ContactPage = Static<typeof ContactPageSchema>;

export type LineItem = Static<typeof LineItemSchema>;

/** Body of POST /v1/orders/placed. */
export type OrderInput = Static<typeof OrderInputSchema>;

/** The stored order as answered by the upsert. */
export type Order = Static<typeof OrderSchema>;

/** Body of POST /v1/events. */
export type EventInput = Static<typeof EventInputSchema>;

export type EventAccepted = Static<typeof EventAcceptedSchema>;

export type TokenResponse = Static<typeof TokenResponseSchema>;
