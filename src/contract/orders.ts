/** Validation of an order upsert body, shared by the sandbox and the importer. */
import { currencyDecimals, normalizeCurrency } from './currency.js';
import type { FieldError } from './errors.js';
import { checkKnownFields, copyCheckedFields, isPlainObject, isStringOfLength, type ValueCheck } from './field-checks.js';
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

/** A present value: not omitted, not null, not the empty string. */
function isGiven(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}

const unknownOrderField = () => 'is not a known order field';
const booleanValue: ValueCheck = (v) => (typeof v === 'boolean' ? undefined : v === null ? NOT_NULL : 'must be a boolean');
/** A parsed value copied into `out`, or its message as the field's error. */
function copyChecked(
  field: string,
  parsed: { ok: true; value: string } | { ok: false; message: string },
  out: Record<string, unknown>,
  errors: FieldError[],
): void {
  if (parsed.ok) out[field] = parsed.value;
  else errors.push({ field, message: parsed.message });
}

const BOOLEAN_CHECKS = ORDER_BOOLEAN_FIELDS.map((field) => [field, booleanValue] as const);

/**
 * Checks an order body against the contract (spec rules + open-points types). Strict: unknown
 * fields are errors. Returns every problem, each naming its field.
 */
export function validateOrderInput(input: unknown): ValidationResult<ValidOrder> {
  if (!isPlainObject(input)) return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  const out: Record<string, unknown> = {};
  checkKnownFields(input, ORDER_FIELDS, unknownOrderField, errors);
  for (const field of ORDER_REQUIRED_FIELDS) {
    if (!isGiven(input[field])) errors.push({ field, message: 'is required' });
  }
  checkOrderId(input.order_id, out, errors);
  const decimals = checkCurrency(input.currency, out, errors);
  if (isGiven(input.total)) copyChecked('total', parseDecimal(input.total, decimals), out, errors);
  checkOrderDate(input.order_date, out, errors);
  checkOrderContact(input, out, errors);
  copyCheckedFields(input, BOOLEAN_CHECKS, out, errors);
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

/** A JSON number must be a whole number a double holds exactly: 1e21 or 1.5 have no faithful decimal-string key. */
function checkOrderId(orderId: unknown, out: Record<string, unknown>, errors: FieldError[]): void {
  if (!isGiven(orderId)) return;
  if (typeof orderId === 'number' && Number.isSafeInteger(orderId) && orderId >= 0) out.order_id = String(orderId);
  else if (typeof orderId === 'string' && orderId.length <= 255) out.order_id = orderId;
  else errors.push({ field: 'order_id', message: 'must be a string of 1 to 255 characters, or a whole number below 2^53' });
}

function checkOrderDate(date: unknown, out: Record<string, unknown>, errors: FieldError[]): void {
  if (!isGiven(date)) return;
  if (typeof date === 'string' && isOrderDate(date)) out.order_date = date;
  else errors.push({ field: 'order_date', message: 'must be an RFC 3339 date-time with offset or a date YYYY-MM-DD' });
}

/** The currency copied upper-case; returns its decimal places (2 when it is missing or wrong). */
function checkCurrency(currency: unknown, out: Record<string, unknown>, errors: FieldError[]): number {
  if (!isGiven(currency)) return 2;
  const code = typeof currency === 'string' ? normalizeCurrency(currency) : undefined;
  if (!code) {
    errors.push({ field: 'currency', message: `must be an ISO 4217 currency code, got ${JSON.stringify(currency)}` });
    return 2;
  }
  out.currency = code;
  return currencyDecimals(code);
}

/** The order's e-mail (normalised) and E.164 phone; one of them is required. */
function checkOrderContact(input: Record<string, unknown>, out: Record<string, unknown>, errors: FieldError[]): void {
  for (const field of ['email', 'phone'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    const wrong = typeof v !== 'string' ? (v === null ? NOT_NULL : 'must be a string') : copyContactValue(field, v, out);
    if (wrong !== undefined) errors.push({ field, message: wrong });
  }
  if (input.email === undefined && input.phone === undefined) {
    errors.push({ field: 'email', message: 'one of email or phone is required' });
  }
}

function copyContactValue(field: 'email' | 'phone', v: string, out: Record<string, unknown>): string | undefined {
  if (field === 'email') {
    const email = checkEmail(v);
    if (!email.ok) return email.message;
    out.email = email.value;
    return undefined;
  }
  if (!isE164(v)) return 'must be an E.164 phone number like +14155550100';
  out.phone = v;
  return undefined;
}

function validateLineItems(value: unknown, decimals: number, errors: FieldError[]): ValidOrder['line_items'] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ field: 'line_items', message: 'must be an array' });
    return undefined;
  }
  const items: Array<LineItem & { price: string }> = [];
  value.forEach((raw, i) => {
    const at = `line_items[${i}]`;
    if (isPlainObject(raw)) items.push(validateLineItem(raw, at, decimals, errors));
    else errors.push({ field: at, message: 'must be an object' });
  });
  return items;
}

function validateLineItem(raw: Record<string, unknown>, at: string, decimals: number, errors: FieldError[]): LineItem & { price: string } {
  for (const key of Object.keys(raw)) {
    if (!LINE_ITEM_KEYS.has(key)) errors.push({ field: `${at}.${key}`, message: 'is not a known line item field' });
  }
  const item: Partial<LineItem & { price: string }> = {};
  if (isStringOfLength(raw.sku, 0, 255)) item.sku = raw.sku;
  else if (raw.sku !== undefined)
    errors.push({ field: `${at}.sku`, message: raw.sku === null ? NOT_NULL : 'must be a string of at most 255 characters' });
  if (isStringOfLength(raw.name, 1, 1000)) item.name = raw.name;
  else errors.push({ field: `${at}.name`, message: 'is required (a string)' });
  if (isPositiveInteger(raw.quantity)) item.quantity = raw.quantity;
  else errors.push({ field: `${at}.quantity`, message: 'must be an integer of at least 1' });
  const price = parseDecimal(raw.price, decimals);
  if (price.ok) item.price = price.value;
  else errors.push({ field: `${at}.price`, message: raw.price === undefined ? 'is required' : price.message });
  return item as LineItem & { price: string };
}

const LINE_ITEM_KEYS: ReadonlySet<string> = new Set(LINE_ITEM_FIELDS);

function isPositiveInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}
