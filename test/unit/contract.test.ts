import { describe, expect, it } from 'vitest';
import { consentWriteError, validateContactWrite } from '../../src/contract/contacts.js';
import { currencyDecimals, normalizeCurrency } from '../../src/contract/currency.js';
import { validateEventInput } from '../../src/contract/events.js';
import {
  addDecimals,
  checkEmail,
  isE164,
  isOrderDate,
  isRfc3339DateTime,
  orderDateToUtc,
  parseDecimal,
} from '../../src/contract/formats.js';
import { validateOrderInput } from '../../src/contract/orders.js';
import { OPERATION_SCOPES, parseScopeString } from '../../src/contract/scopes.js';

const order = { order_id: 'A-1', total: '49.90', currency: 'eur', order_date: '2026-01-02', email: 'Ann@Example.com' };

describe('formats', () => {
  it('E.164 is + and 8 to 15 digits', () => {
    expect(isE164('+14155550100')).toBe(true);
    expect(isE164('+1415555')).toBe(false);
    expect(isE164('14155550100')).toBe(false);
    expect(isE164('+1234567890123456')).toBe(false);
  });

  it('RFC 3339 needs an offset and a real date', () => {
    expect(isRfc3339DateTime('2026-02-28T10:00:00Z')).toBe(true);
    expect(isRfc3339DateTime('2026-02-28T10:00:00.123+02:00')).toBe(true);
    expect(isRfc3339DateTime('2026-02-28T10:00:00')).toBe(false);
    expect(isRfc3339DateTime('2026-02-30T10:00:00Z')).toBe(false);
    expect(isOrderDate('2024-02-29')).toBe(true);
    expect(isOrderDate('2023-02-29')).toBe(false);
    expect(orderDateToUtc('2026-01-02')).toBe('2026-01-02T00:00:00Z');
    expect(orderDateToUtc('2026-01-02T01:30:00+02:00')).toBe('2026-01-01T23:30:00Z');
  });

  it('decimals are exact, canonical and bounded by the currency', () => {
    expect(parseDecimal('49.9', 2)).toEqual({ ok: true, value: '49.90' });
    expect(parseDecimal(49.9, 2)).toEqual({ ok: true, value: '49.90' });
    expect(parseDecimal('0.10', 2)).toEqual({ ok: true, value: '0.10' });
    expect(parseDecimal('123456789012345678.99', 2)).toEqual({ ok: true, value: '123456789012345678.99' });
    expect(parseDecimal('1000', 0)).toEqual({ ok: true, value: '1000' });
    expect(parseDecimal('10.5', 0).ok).toBe(false);
    expect(parseDecimal('-1', 2).ok).toBe(false);
    expect(parseDecimal('1e3', 2).ok).toBe(false);
    expect(parseDecimal('1,50', 2).ok).toBe(false);
    expect(parseDecimal(true, 2).ok).toBe(false);
  });

  it('adds decimals without floats', () => {
    expect(addDecimals('0.10', '0.20', 2)).toBe('0.30');
    expect(addDecimals('10.00', '12.50', 2, -1)).toBe('-2.50');
    expect(addDecimals('1000', '1', 0)).toBe('1001');
  });

  it('currencies are ISO 4217 with their minor units', () => {
    expect(normalizeCurrency('eur')).toBe('EUR');
    expect(normalizeCurrency('XXX')).toBeUndefined();
    expect(currencyDecimals('JPY')).toBe(0);
    expect(currencyDecimals('KWD')).toBe(3);
    expect(currencyDecimals('USD')).toBe(2);
  });
});

describe('email addresses', () => {
  it('an ASCII address is stored lower-cased; the same rules refuse the same addresses as a non-ASCII one', () => {
    expect(checkEmail('John.Doe+Tag@Example.COM')).toEqual({ ok: true, value: 'john.doe+tag@example.com' });
    expect(checkEmail('J\u00f6rg@Example.COM')).toEqual({ ok: true, value: 'j\u00f6rg@example.com' });
    for (const bad of ['@example.com', 'a@', 'a@b', 'a@b.', 'a@.com', 'a@@b.com', 'a b@c.com', `${'a'.repeat(250)}@b.com`, 'plain']) {
      expect(checkEmail(bad), bad).toEqual({ ok: false, message: 'must be an email address' });
      expect(checkEmail(`\u00e9${bad}`).ok, `\u00e9${bad}`).toBe(bad === '@example.com');
    }
  });
});

describe('order validation', () => {
  it('normalises a valid order', () => {
    const r = validateOrderInput(order);
    expect(r).toEqual({ ok: true, value: { ...order, currency: 'EUR', email: 'ann@example.com' } });
  });

  it('accepts a numeric order_id as its decimal string', () => {
    const r = validateOrderInput({ ...order, order_id: 1042 });
    expect(r.ok && r.value.order_id).toBe('1042');
  });

  it('names every missing required field and the email/phone rule', () => {
    const r = validateOrderInput({});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.field).sort()).toEqual(['currency', 'email', 'order_date', 'order_id', 'total']);
  });

  it('rejects unknown fields, wrong types, accepts_sms_marketing without phone', () => {
    const r = validateOrderInput({ ...order, coupon: 'X', initial_sync: 'yes', accepts_sms_marketing: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.field).sort()).toEqual(['coupon', 'initial_sync', 'phone']);
  });

  it('checks total decimals against the currency', () => {
    const r = validateOrderInput({ ...order, currency: 'JPY', total: '100.5' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.field).toBe('total');
  });

  it('validates line items field by field', () => {
    const r = validateOrderInput({
      ...order,
      line_items: [
        { name: 'Mug', quantity: 2, price: '9.95' },
        { quantity: 0, price: 'x' },
      ],
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.field)).toEqual(['line_items[1].name', 'line_items[1].quantity', 'line_items[1].price']);
  });
});

describe('contact write validation', () => {
  it('refuses read-only consent values and lists the writable ones', () => {
    expect(consentWriteError('email_consent', 'compliance_suppressed')).toMatch(
      /read-only.*subscribed, unsubscribed, never_subscribed, suppressed/,
    );
    expect(consentWriteError('sms_consent', 'pending')).toMatch(/read-only/);
    expect(consentWriteError('sms_consent', 'single_opt_in')).toBeUndefined();
    expect(consentWriteError('email_consent', 'non_subscribed')).toMatch(/must be one of/);
  });

  it('needs email or phone on create, not on patch', () => {
    expect(validateContactWrite({ first_name: 'A' }, 'create').ok).toBe(false);
    expect(validateContactWrite({ first_name: 'A' }, 'patch').ok).toBe(true);
  });

  it('names the replacement of the removed permission fields', () => {
    const r = validateContactWrite({ email: 'a@b.co', email_permission: 'x' }, 'create');
    expect(!r.ok && r.errors[0]?.message).toMatch(/replaced by email_consent/);
  });
});

describe('event validation', () => {
  it('needs event_type and a contact', () => {
    const r = validateEventInput({ properties: {} });
    expect(!r.ok && r.errors.map((e) => e.field)).toEqual(['event_type', 'email']);
    expect(validateEventInput({ event_type: 'x', contact_id: 'ct_1' }).ok).toBe(true);
  });

  it('properties must be an object of at most 64 KiB', () => {
    expect(validateEventInput({ event_type: 'x', email: 'a@b.co', properties: [] }).ok).toBe(false);
    expect(validateEventInput({ event_type: 'x', email: 'a@b.co', properties: { big: 'x'.repeat(70_000) } }).ok).toBe(false);
  });
});

describe('scopes', () => {
  it('maps every operation to a scope and parses scope strings', () => {
    expect(OPERATION_SCOPES.upsertOrder).toBe('orders_write');
    expect(OPERATION_SCOPES.deleteContact).toBe('contacts_write');
    expect(parseScopeString(' contacts_read  orders_write ')).toEqual(['contacts_read', 'orders_write']);
    expect(parseScopeString(undefined)).toEqual([]);
  });
});
