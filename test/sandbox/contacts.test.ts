/** Spec "Contact", "States and transitions", contact endpoints; open-points "Contacts". */
import { describe, expect, it } from 'vitest';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
let n = 0;
const email = () => `person${++n}@example.com`;
const phone = () => `+1415555${String(1000 + ++n).padStart(4, '0')}`;

useSandbox((s) => ({ sb, token } = s));

const post = (json: unknown) => http(sb.baseUrl, 'POST', '/v1/contacts', { token, json });
const patch = (id: string, json: unknown) => http(sb.baseUrl, 'PATCH', `/v1/contacts/${id}`, { token, json });
const get = (id: string) => http(sb.baseUrl, 'GET', `/v1/contacts/${id}`, { token });
const welcomes = async (contactId: string) =>
  (await sb.admin.outbox({ type: 'welcome_sms' })).filter((e) => e.contact_id === contactId).length;

describe('POST /v1/contacts', () => {
  it('201 with the contact object: every field, nulls for missing values, consent defaults never_subscribed', async () => {
    const r = await post({ email: 'Mixed.Case@Example.com', first_name: 'Ada' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^ct_/),
      email: 'mixed.case@example.com',
      phone: null,
      first_name: 'Ada',
      last_name: null,
      email_consent: 'never_subscribed',
      sms_consent: 'never_subscribed',
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      orders_count: 0,
      total_spent: {},
      last_order_at: null,
    });
  });

  it('accepts every writable email consent value', async () => {
    for (const v of ['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed']) {
      const r = await post({ email: email(), email_consent: v });
      expect(r.status, v).toBe(201);
      expect(r.body.email_consent).toBe(v);
    }
  });

  it('accepts every writable SMS consent value', async () => {
    for (const v of ['subscribed', 'unsubscribed', 'never_subscribed', 'single_opt_in']) {
      const r = await post({ phone: phone(), sms_consent: v });
      expect(r.status, v).toBe(201);
      expect(r.body.sms_consent).toBe(v);
    }
  });

  it('400: the read-only values compliance_suppressed and pending cannot be written', async () => {
    const a = await post({ email: email(), email_consent: 'compliance_suppressed' });
    expect(a.status).toBe(400);
    expect(a.body.error.details).toEqual([{ field: 'email_consent', message: expect.stringContaining('read-only') }]);
    const b = await post({ phone: phone(), sms_consent: 'pending' });
    expect(b.status).toBe(400);
    expect(b.body.error.details[0].field).toBe('sms_consent');
  });

  it('400: the former value non_subscribed is refused', async () => {
    const r = await post({ email: email(), email_consent: 'non_subscribed' });
    expect(r.status).toBe(400);
  });

  it('400: email or phone is required', async () => {
    const r = await post({ first_name: 'Nobody' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
  });

  for (const sms of ['single_opt_in', 'subscribed']) {
    it(`400 naming phone: ${sms} SMS without a phone`, async () => {
      const r = await post({ email: email(), sms_consent: sms });
      expect(r.status).toBe(400);
      expect(r.body.error.details[0].field).toBe('phone');
    });
  }

  it('400: phone not in E.164, email not an address', async () => {
    expect((await post({ phone: '0415 555 0100' })).status).toBe(400);
    expect((await post({ email: 'not-an-email' })).status).toBe(400);
  });

  it('400: the removed fields email_permission / phone_permission name their replacement', async () => {
    const r = await post({ email: email(), email_permission: 'subscribed' });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toEqual({ field: 'email_permission', message: expect.stringContaining('email_consent') });
  });

  it('409 contact_exists with error.id when the email already has a contact (case-insensitive)', async () => {
    const e = email();
    const first = await post({ email: e });
    const r = await post({ email: e.toUpperCase() });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'contact_exists', id: first.body.id });
  });

  it('409 contact_exists with error.id when the phone already has a contact', async () => {
    const p = phone();
    const first = await post({ phone: p });
    const r = await post({ email: email(), phone: p });
    expect(r.status).toBe(409);
    expect(r.body.error.id).toBe(first.body.id);
  });

  it('422 compliance_suppressed when the email belongs to a compliance-suppressed contact', async () => {
    const e = email();
    const c = await post({ email: e });
    await sb.admin.forceConsent(c.body.id, { email_consent: 'compliance_suppressed' });
    const r = await post({ email: e, email_consent: 'subscribed' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('compliance_suppressed');
    expect((await get(c.body.id)).body.email_consent).toBe('compliance_suppressed');
  });

  it('merchant-suppressed + POST writing a consent value: unsuppressed first, then the value applies (200)', async () => {
    const e = email();
    const c = await post({ email: e, email_consent: 'suppressed' });
    const r = await post({ email: e, email_consent: 'subscribed', first_name: 'Back' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.body.id, email_consent: 'subscribed', first_name: 'Back' });
  });

  it('merchant-suppressed + POST writing SMS single_opt_in: the stored phone satisfies the phone requirement (200)', async () => {
    const e = email();
    const p = phone();
    const c = await post({ email: e, phone: p, email_consent: 'suppressed' });
    const r = await post({ email: e, sms_consent: 'single_opt_in' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.body.id, phone: p, email_consent: 'never_subscribed', sms_consent: 'single_opt_in' });
  });

  it('merchant-suppressed + POST writing SMS subscribed without any phone, stored or given: 400 naming phone', async () => {
    const e = email();
    await post({ email: e, email_consent: 'suppressed' });
    const r = await post({ email: e, sms_consent: 'subscribed' });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([expect.objectContaining({ field: 'phone' })]);
  });

  it('merchant-suppressed + POST without a consent value: 409', async () => {
    const e = email();
    const c = await post({ email: e, email_consent: 'suppressed' });
    const r = await post({ email: e, first_name: 'X' });
    expect(r.status).toBe(409);
    expect(r.body.error.id).toBe(c.body.id);
  });

  it('welcome SMS on create with sms_consent subscribed', async () => {
    const r = await post({ phone: phone(), sms_consent: 'subscribed' });
    expect(r.status).toBe(201);
    expect(await welcomes(r.body.id)).toBe(1);
  });

  it('no welcome SMS on create when send_welcome_sms is false', async () => {
    const r = await post({ phone: phone(), sms_consent: 'subscribed', send_welcome_sms: false });
    expect(r.status).toBe(201);
    expect(await welcomes(r.body.id)).toBe(0);
  });

  it('400: send_welcome_sms must be a boolean', async () => {
    expect((await post({ phone: phone(), sms_consent: 'subscribed', send_welcome_sms: 'no' })).status).toBe(400);
  });
});

describe('PATCH /v1/contacts/{id}', () => {
  it('updates consent together with other fields and answers the contact', async () => {
    const c = await post({ email: email() });
    const p = phone();
    const r = await patch(c.body.id, {
      first_name: 'Grace',
      last_name: 'H',
      phone: p,
      email_consent: 'subscribed',
      sms_consent: 'single_opt_in',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      first_name: 'Grace',
      last_name: 'H',
      phone: p,
      email_consent: 'subscribed',
      sms_consent: 'single_opt_in',
    });
    expect(r.body.updated_at >= c.body.updated_at).toBe(true);
  });

  it('omitted fields keep their values', async () => {
    const c = await post({ email: email(), first_name: 'Keep', email_consent: 'subscribed' });
    const r = await patch(c.body.id, { last_name: 'Added' });
    expect(r.body).toMatchObject({ first_name: 'Keep', last_name: 'Added', email_consent: 'subscribed' });
  });

  it('welcome SMS when sms_consent moves into subscribed from any other state', async () => {
    for (const from of ['never_subscribed', 'unsubscribed', 'single_opt_in']) {
      const c = await post({ phone: phone(), sms_consent: from });
      const r = await patch(c.body.id, { sms_consent: 'subscribed' });
      expect(r.body.sms_consent).toBe('subscribed');
      expect(await welcomes(c.body.id), from).toBe(1);
    }
  });

  it('welcome SMS when the read-only pending state moves into subscribed', async () => {
    const c = await post({ phone: phone() });
    await sb.admin.forceConsent(c.body.id, { sms_consent: 'pending' });
    await patch(c.body.id, { sms_consent: 'subscribed' });
    expect(await welcomes(c.body.id)).toBe(1);
  });

  it('no welcome SMS when already subscribed', async () => {
    const c = await post({ phone: phone(), sms_consent: 'subscribed', send_welcome_sms: false });
    const r = await patch(c.body.id, { sms_consent: 'subscribed' });
    expect(r.status).toBe(200);
    expect(await welcomes(c.body.id)).toBe(0);
  });

  it('no welcome SMS on PATCH when send_welcome_sms is false', async () => {
    const c = await post({ phone: phone() });
    await patch(c.body.id, { sms_consent: 'subscribed', send_welcome_sms: false });
    expect(await welcomes(c.body.id)).toBe(0);
  });

  it('email unsubscribed from any email state', async () => {
    for (const from of ['subscribed', 'never_subscribed', 'unsubscribed', 'suppressed']) {
      const c = await post({ email: email(), email_consent: from });
      const r = await patch(c.body.id, { email_consent: 'unsubscribed' });
      expect(r.body.email_consent, from).toBe('unsubscribed');
    }
  });

  it('merchant-suppressed: writing only sms_consent unsuppresses email to never_subscribed', async () => {
    const c = await post({ email: email(), phone: phone(), email_consent: 'suppressed' });
    const r = await patch(c.body.id, { sms_consent: 'unsubscribed' });
    expect(r.body).toMatchObject({ email_consent: 'never_subscribed', sms_consent: 'unsubscribed' });
  });

  it('merchant-suppressed: a non-consent write leaves the suppression', async () => {
    const c = await post({ email: email(), email_consent: 'suppressed' });
    const r = await patch(c.body.id, { first_name: 'Still' });
    expect(r.body.email_consent).toBe('suppressed');
  });

  it('422 compliance_suppressed on any write; nothing changes', async () => {
    const c = await post({ email: email(), phone: phone() });
    await sb.admin.forceConsent(c.body.id, { email_consent: 'compliance_suppressed' });
    const r = await patch(c.body.id, { first_name: 'Nope' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('compliance_suppressed');
    expect((await get(c.body.id)).body.first_name).toBeNull();
    expect((await patch(c.body.id, { sms_consent: 'subscribed' })).status).toBe(422);
    expect(await welcomes(c.body.id)).toBe(0);
  });

  it('400 naming phone: sms subscribed on a contact without a phone', async () => {
    const c = await post({ email: email() });
    const r = await patch(c.body.id, { sms_consent: 'subscribed' });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].field).toBe('phone');
  });

  it('409 contact_exists when the new email belongs to another contact', async () => {
    const a = await post({ email: email() });
    const b = await post({ email: email() });
    const r = await patch(b.body.id, { email: a.body.email });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'contact_exists', id: a.body.id });
  });

  it('404 not_found for an unknown id', async () => {
    const r = await patch('ct_unknown', { first_name: 'x' });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });

  it('400 for read-only values and unknown fields', async () => {
    const c = await post({ email: email() });
    expect((await patch(c.body.id, { email_consent: 'compliance_suppressed' })).status).toBe(400);
    expect((await patch(c.body.id, { sms_consent: 'pending' })).status).toBe(400);
    const u = await patch(c.body.id, { nickname: 'x' });
    expect(u.status).toBe(400);
    expect(u.body.error.details).toEqual([{ field: 'nickname', message: expect.any(String) }]);
  });
});

describe('GET /v1/contacts/{id}', () => {
  it('200 with the contact, 404 for an unknown one', async () => {
    const c = await post({ email: email() });
    expect((await get(c.body.id)).body).toEqual(c.body);
    expect((await get('ct_nope')).status).toBe(404);
  });
});

describe('DELETE /v1/contacts/{id}', () => {
  it('204 without a body, then 404', async () => {
    const c = await post({ email: email() });
    const r = await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await get(c.body.id)).status).toBe(404);
    expect((await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token })).status).toBe(404);
  });

  it('422 for a compliance-suppressed contact', async () => {
    const c = await post({ email: email() });
    await sb.admin.forceConsent(c.body.id, { email_consent: 'compliance_suppressed' });
    expect((await http(sb.baseUrl, 'DELETE', `/v1/contacts/${c.body.id}`, { token })).status).toBe(422);
    expect((await get(c.body.id)).status).toBe(200);
  });

  it('keeps the contact orders, their contact_id unchanged', async () => {
    const e = email();
    const o = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { order_id: `del-${n}`, total: '5.00', currency: 'EUR', order_date: '2026-06-01', email: e },
    });
    await http(sb.baseUrl, 'DELETE', `/v1/contacts/${o.body.contact_id}`, { token });
    expect((await sb.admin.order(`del-${n}`))?.contact_id).toBe(o.body.contact_id);
  });
});

describe('POST /v1/contacts/{id}/unsubscribe (deprecated)', () => {
  it('sets email_consent unsubscribed and answers Deprecation: true and a Link to the successor', async () => {
    const c = await post({ email: email(), email_consent: 'subscribed' });
    const r = await http(sb.baseUrl, 'POST', `/v1/contacts/${c.body.id}/unsubscribe`, { token });
    expect(r.status).toBe(200);
    expect(r.body.email_consent).toBe('unsubscribed');
    expect(r.headers.get('deprecation')).toBe('true');
    expect(r.headers.get('link')).toBe(`<${sb.baseUrl}/v1/contacts/${c.body.id}>; rel="successor-version"`);
  });

  it('accepts {} as the body, refuses other fields', async () => {
    const c = await post({ email: email() });
    expect((await http(sb.baseUrl, 'POST', `/v1/contacts/${c.body.id}/unsubscribe`, { token, json: {} })).status).toBe(200);
    expect((await http(sb.baseUrl, 'POST', `/v1/contacts/${c.body.id}/unsubscribe`, { token, json: { reason: 'x' } })).status).toBe(400);
  });

  it('404 unknown, 422 compliance-suppressed', async () => {
    expect((await http(sb.baseUrl, 'POST', '/v1/contacts/ct_nope/unsubscribe', { token })).status).toBe(404);
    const c = await post({ email: email() });
    await sb.admin.forceConsent(c.body.id, { email_consent: 'compliance_suppressed' });
    expect((await http(sb.baseUrl, 'POST', `/v1/contacts/${c.body.id}/unsubscribe`, { token })).status).toBe(422);
  });
});
