import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { externalAddress, http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
useSandbox((s) => ({ sb } = s));

const admin = (method: string, path: string, json?: unknown) => http(sb.baseUrl, method, `/_sandbox${path}`, { json });

describe('admin API', () => {
  it('biz_default exists from the start with every scope; a new business can lack some', async () => {
    const app = await sb.admin.createApp(['contacts_read', 'contacts_write', 'events_write', 'orders_write']);
    expect(app).toMatchObject({ client_id: expect.stringMatching(/^app_/), client_secret: expect.any(String) });
    const biz = await admin('POST', '/businesses', { name: 'Plan', available_scopes: ['contacts_read'] });
    expect(biz.status).toBe(201);
    expect(biz.body).toMatchObject({ id: expect.stringMatching(/^biz_/), available_scopes: ['contacts_read'] });
  });

  it('400 for unknown scopes, unknown fields and a missing name; the error body of the service', async () => {
    const bad = await admin('POST', '/apps', { name: 'x', scopes: ['admin'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', request_id: expect.stringMatching(/^req_/) });
    expect((await admin('POST', '/api-tokens', { name: 'x', scopes: 'contacts_read' })).status).toBe(400);
    expect((await admin('POST', '/integrations', { name: 'x', color: 'red' })).status).toBe(400);
    expect((await admin('POST', '/businesses', {})).status).toBe(400);
    expect((await admin('POST', '/flows', { name: 'no type' })).status).toBe(400);
    expect((await admin('PATCH', '/integrations/int_x', { active: 'yes' })).status).toBe(400);
    expect((await admin('PUT', '/contacts/ct_x/consent', { email_consent: 'gone' })).status).toBe(400);
    expect((await admin('GET', '/outbox?type=email')).status).toBe(400);
    expect((await admin('GET', '/outbox?after=x')).status).toBe(400);
  });

  it('Reveal answers exactly {token}: the token the integration was created with', async () => {
    const created = await sb.admin.createIntegration('Reveal me');
    const r = await admin('GET', `/integrations/${created.id}/token`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ token: created.token });
  });

  it('404 for unknown ids and an unknown business', async () => {
    expect((await admin('POST', '/apps/app_nope/secret')).status).toBe(404);
    expect((await admin('DELETE', '/apps/app_nope/tokens')).status).toBe(404);
    expect((await admin('DELETE', '/api-tokens/tok_nope')).status).toBe(404);
    expect((await admin('GET', '/integrations/int_nope/token')).status).toBe(404);
    expect((await admin('PATCH', '/integrations/int_nope', { active: true })).status).toBe(404);
    expect((await admin('PUT', '/contacts/ct_nope/consent', { email_consent: 'suppressed' })).status).toBe(404);
    expect((await admin('GET', '/orders/none')).status).toBe(404);
    expect((await admin('POST', '/apps', { name: 'x', scopes: [], business_id: 'biz_nope' })).status).toBe(404);
  });

  it('forced consent records no side effect', async () => {
    const t = await sb.tokenWithAllScopes();
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { phone: '+14155550333' } });
    const before = (await sb.admin.outbox()).length;
    await sb.admin.forceConsent(c.body.id, { sms_consent: 'subscribed' });
    expect((await sb.admin.outbox()).length).toBe(before);
  });

  it('outbox filters by business_id and after; oldest first', async () => {
    const t = await sb.tokenWithAllScopes();
    const other = await sb.admin.createBusiness('Other');
    const ot = (await sb.admin.createApiToken(['contacts_write'], other.id)).token;
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { phone: '+14155550444', sms_consent: 'subscribed' } });
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token: ot, json: { phone: '+14155550444', sms_consent: 'subscribed' } });
    const all = await sb.admin.outbox();
    const seqs = all.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect((await sb.admin.outbox({ business_id: other.id })).map((e) => e.business_id)).toEqual([other.id]);
    const last = all[all.length - 1]?.seq as number;
    expect(await sb.admin.outbox({ after: last })).toEqual([]);
  });
});

describe('admin API on a non-loopback bind', () => {
  it.skipIf(!externalAddress)('answers the service to other addresses but the admin API only to loopback clients', async () => {
    const wide = await startSandbox({ port: 0, host: '0.0.0.0' });
    try {
      const viaLan = `http://${externalAddress}:${wide.port}`;
      const viaLoopback = `http://127.0.0.1:${wide.port}`;
      expect((await http(viaLan, 'GET', '/openapi.json')).status).toBe(200);
      const refused = await http(viaLan, 'GET', '/_sandbox/outbox');
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('not_found');
      expect((await http(viaLoopback, 'GET', '/_sandbox/outbox')).status).toBe(200);
    } finally {
      await wide.close();
    }
  });
});
