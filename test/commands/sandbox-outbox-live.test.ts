/** svc sandbox outbox --follow and --wait against a real sandbox over HTTP. */
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { http } from '../helpers/sandbox.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

const svc = (argv: string[], signal?: AbortSignal) => runCli(argv, { env: fx.env(), signal });
const v1 = (method: string, path: string, json?: unknown) => http(fx.sb.baseUrl, method, path, { token: fx.token, json });
const later = (ms: number, f: () => Promise<unknown>) => new Promise((r) => setTimeout(() => r(f()), ms));

describe('svc sandbox outbox --wait', () => {
  it('exits 0 printing a side effect already recorded for the contact (by e-mail)', async () => {
    await v1('POST', '/v1/contacts', { email: 'w1@example.com', phone: '+14155550301', sms_consent: 'subscribed' });
    const r = await svc(['sandbox', 'outbox', '--wait', 'welcome_sms', '--email', 'w1@example.com', '--timeout', '5s', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'welcome_sms', business_id: 'biz_default' });
  });

  it('waits for a flow run of an event type that arrives later, for a contact by id', async () => {
    await fx.sb.admin.createFlow('cart_abandoned');
    const c = await v1('POST', '/v1/contacts', { email: 'w2@example.com' });
    const [r] = await Promise.all([
      svc([
        'sandbox',
        'outbox',
        '--wait',
        'flow_run',
        '--contact',
        c.body.id,
        '--event-type',
        'cart_abandoned',
        '--timeout',
        '10s',
        '--json',
      ]),
      later(600, () => v1('POST', '/v1/events', { event_type: 'cart_abandoned', contact_id: c.body.id })),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'flow_run', contact_id: c.body.id, trigger: 'cart_abandoned' });
  });

  it('exits 1 on timeout, naming what it waited for; 2 for a bad type or timeout', async () => {
    const r = await svc(['sandbox', 'outbox', '--wait', 'welcome_sms', '--email', 'nobody@example.com', '--timeout', '500ms']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no welcome_sms side effect for nobody@example.com within 500ms');
    expect((await svc(['sandbox', 'outbox', '--wait', 'sms'])).code).toBe(2);
    expect((await svc(['sandbox', 'outbox', '--wait', 'flow_run', '--timeout', 'soon'])).code).toBe(2);
    expect((await svc(['sandbox', 'outbox', '--follow', '--wait', 'flow_run'])).code).toBe(2);
  });
});

describe('svc sandbox outbox --follow', () => {
  it('prints each new side effect as an NDJSON line until interrupted, not the earlier ones', async () => {
    const before = await fx.sb.admin.outbox();
    const ac = new AbortController();
    const follow = svc(['sandbox', 'outbox', '--follow', '--type', 'welcome_sms', '--json'], ac.signal);
    await new Promise((r) => setTimeout(r, 700));
    const a = await v1('POST', '/v1/contacts', { email: 'f1@example.com', phone: '+14155550311', sms_consent: 'subscribed' });
    const b = await v1('POST', '/v1/contacts', { email: 'f2@example.com', phone: '+14155550312', sms_consent: 'subscribed' });
    await v1('POST', '/v1/orders/placed', {
      order_id: 'F-1',
      total: '1',
      currency: 'USD',
      order_date: '2026-11-26',
      email: 'f1@example.com',
    });
    await new Promise((r) => setTimeout(r, 800));
    ac.abort();
    const r = await follow;
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.contact_id)).toEqual([a.body.id, b.body.id]);
    expect(lines.every((l) => l.seq > (before.at(-1)?.seq ?? 0))).toBe(true);
  });
});
