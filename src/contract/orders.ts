/** Validation of an order upsert body, shared by the sandbox and the importer. */
import { currencyDecimals, normalizeCurrency } from './currency.js';
import type { FieldError } from './errors.js';
import { checkEmail, isE164, isOrderDate, parseDecimal } from './formats.js';
import type { LineItem, OrderInput } from './types.js';

export const ORDER_FIELDS = [
  'order_id',
  'total',
  'currency',
  'order_date',
  'email',
  'phone',
  'accepts_email_marketing',
  'accepts_sms_marketing',
  'initial_sync',
  'line_items',
] as const;

export const ORDER_REQUIRED_FIELDS = ['order_id', 'total', 'currency', 'order_date'] as const;
export const ORDER_BOOLEAN_FIELDS = ['accepts_email_marketing', 'accepts_sms_marketing', 'initial_sync'] as const;
export const LINE_ITEM_FIELDS = ['sku', 'name', 'quantity', 'price'] as const;

/** The order after validation: order_id a string, total a canonical decimal string, currency upper-case. */
export interface ValidOrder extends OrderInput {
  /** A JSON number becomes its decimal string. */
  order_id: string;
  total: string;
  currency: string;
  line_items?: Array<LineItem & { price: string }>;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** One rule for every route: null is not a value; a field is either sent with its type or omitted. */
export const NOT_NULL = 'must not be null; omit the field instead';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks an order body against the contract (spec rules + open-points types). Strict: unknown
 * fields are errors. Returns every problem, each naming its field.
 */
export function validateOrderInput(input: unknown): ValidationResult<ValidOrder> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (!(ORDER_FIELDS as readonly string[]).includes(key)) errors.push({ field: key, message: 'is not a known order field' });
  }
  for (const field of ORDER_REQUIRED_FIELDS) {
    if (input[field] === undefined || input[field] === null || input[field] === '') errors.push({ field, message: 'is required' });
  }

  const orderId = input.order_id;
  if (orderId !== undefined && orderId !== null && orderId !== '') {
    // A JSON number must be a whole number a double holds exactly: 1e21 or 1.5 have no faithful decimal-string key.
    if (typeof orderId === 'number' && Number.isSafeInteger(orderId) && orderId >= 0) out.order_id = String(orderId);
    else if (typeof orderId === 'string' && orderId.length <= 255) out.order_id = orderId;
    else errors.push({ field: 'order_id', message: 'must be a string of 1 to 255 characters, or a whole number below 2^53' });
  }

  let decimals = 2;
  const currency = input.currency;
  if (currency !== undefined && currency !== null && currency !== '') {
    const code = typeof currency === 'string' ? normalizeCurrency(currency) : undefined;
    if (code) {
      out.currency = code;
      decimals = currencyDecimals(code);
    } else errors.push({ field: 'currency', message: `must be an ISO 4217 currency code, got ${JSON.stringify(currency)}` });
  }

  if (input.total !== undefined && input.total !== null && input.total !== '') {
    const total = parseDecimal(input.total, decimals);
    if (total.ok) out.total = total.value;
    else errors.push({ field: 'total', message: total.message });
  }

  const date = input.order_date;
  if (date !== undefined && date !== null && date !== '') {
    if (typeof date === 'string' && isOrderDate(date)) out.order_date = date;
    else errors.push({ field: 'order_date', message: 'must be an RFC 3339 date-time with offset or a date YYYY-MM-DD' });
  }

  for (const field of ['email', 'phone'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'string') errors.push({ field, message: v === null ? NOT_NULL : 'must be a string' });
    else if (field === 'email') {
      const email = checkEmail(v);
      if (email.ok) out.email = email.value;
      else errors.push({ field, message: email.message });
    } else if (!isE164(v)) errors.push({ field, message: 'must be an E.164 phone number like +14155550100' });
    else out[field] = v;
  }
  if (input.email === undefined && input.phone === undefined) {
    errors.push({ field: 'email', message: 'one of email or phone is required' });
  }

  for (const field of ORDER_BOOLEAN_FIELDS) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') errors.push({ field, message: v === null ? NOT_NULL : 'must be a boolean' });
    else out[field] = v;
  }
  if (input.accepts_sms_marketing === true && (input.phone === undefined || input.phone === null)) {
    errors.push({ field: 'phone', message: 'is required when accepts_sms_marketing is true' });
  }

  if (input.line_items === null) errors.push({ field: 'line_items', message: NOT_NULL });
  else if (input.line_items !== undefined) {
    const items = validateLineItems(input.line_items, decimals, errors);
    if (items) out.line_items = items;
  }

  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: out as unknown as ValidOrder };
}

function validateLineItems(value: unknown, decimals: number, errors: FieldError[]): ValidOrder['line_items'] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ field: 'line_items', message: 'must be an array' });
    return undefined;
  }
  const items: Array<LineItem & { price: string }> = [];
  value.forEach((raw, i) => {
    const at = `line_items[${i}]`;
    if (!isPlainObject(raw)) {
      errors.push({ field: at, message: 'must be an object' });
      return;
    }
    for (const key of Object.keys(raw)) {
      if (!(LINE_ITEM_FIELDS as readonly string[]).includes(key))
        errors.push({ field: `${at}.${key}`, message: 'is not a known line item field' });
    }
    const item: Partial<LineItem & { price: string }> = {};
    if (raw.sku !== undefined) {
      if (typeof raw.sku === 'string' && raw.sku.length <= 255) item.sku = raw.sku;
      else errors.push({ field: `${at}.sku`, message: raw.sku === null ? NOT_NULL : 'must be a string of at most 255 characters' });
    }
    if (typeof raw.name === 'string' && raw.name.length > 0 && raw.name.length <= 1000) item.name = raw.name;
    else errors.push({ field: `${at}.name`, message: 'is required (a string)' });
    if (typeof raw.quantity === 'number' && Number.isInteger(raw.quantity) && raw.quantity >= 1) item.quantity = raw.quantity;
    else errors.push({ field: `${at}.quantity`, message: 'must be an integer of at least 1' });
    const price = parseDecimal(raw.price, decimals);
    if (price.ok) item.price = price.value;
    else errors.push({ field: `${at}.price`, message: raw.price === undefined ? 'is required' : price.message });
    items.push(item as LineItem & { price: string });
  });
  return items;
}
