/** Request and response shapes of the service (spec + open-points.md decisions). */
import type { EmailConsent, SmsConsent, WritableEmailConsent, WritableSmsConsent } from './consent.js';

export interface Contact {
  id: string;
  email: string | null;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  email_consent: EmailConsent;
  sms_consent: SmsConsent;
  created_at: string;
  updated_at: string;
  orders_count: number;
  /** Currency code → decimal string. */
  total_spent: Record<string, string>;
  last_order_at: string | null;
}

export interface ContactWrite {
  email?: string;
  phone?: string;
  first_name?: string;
  last_name?: string;
  email_consent?: WritableEmailConsent;
  sms_consent?: WritableSmsConsent;
  send_welcome_sms?: boolean;
}

export interface ContactListFilter {
  email_consent?: EmailConsent;
  sms_consent?: SmsConsent;
  email?: string;
  phone?: string;
  updated_since?: string;
}

export interface ContactPage {
  data: Contact[];
  next_cursor: string | null;
}

export interface LineItem {
  sku?: string;
  name: string;
  quantity: number;
  price: string | number;
}

/** Body of POST /v1/orders/placed. */
export interface OrderInput {
  order_id: string;
  total: string | number;
  currency: string;
  order_date: string;
  email?: string;
  phone?: string;
  accepts_email_marketing?: boolean;
  accepts_sms_marketing?: boolean;
  initial_sync?: boolean;
  line_items?: LineItem[];
}

/** The stored order as answered by the upsert. */
export interface Order {
  order_id: string;
  total: string;
  currency: string;
  order_date: string;
  email: string | null;
  phone: string | null;
  accepts_email_marketing: boolean | null;
  accepts_sms_marketing: boolean | null;
  initial_sync: boolean | null;
  line_items: LineItem[] | null;
  contact_id: string | null;
  integration_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Body of POST /v1/events. */
export interface EventInput {
  event_type: string;
  email?: string;
  phone?: string;
  contact_id?: string;
  properties?: Record<string, unknown>;
  occurred_at?: string;
  event_id?: string;
}

export interface EventAccepted {
  status: 'accepted';
  id: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  created_at: number;
}
