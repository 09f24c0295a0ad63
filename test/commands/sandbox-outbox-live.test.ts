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
    let seen = '';
    const follow = runCli(['sandbox', 'outbox', '--follow', '--type', 'welcome_sms', '--json'], {
      env: fx.env(),
      signal: ac.signal,
      onStdout: (text) => {
        seen += text;
      },
    });
    // Waits (a state, not a sleep) until stdout shows this contact's side effect, or `ms` pass.
    const printed = async (id: string, ms: number) => {
      const deadline = Date.now() + ms;
      while (!seen.includes(id)) {
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 50));
      }
      return true;
    };
    // Following once a probe's welcome SMS is printed; until then (a slow start), another probe.
    const probes: string[] = [];
    for (let i = 0; probes.length === 0 || !(await printed(probes.at(-1) as string, 1000)); i++) {
      if (i >= 45) throw new Error(`--follow printed none of ${i} probes: ${seen}`);
      const p = await v1('POST', '/v1/contacts', {
        email: `probe${i}@example.com`,
        phone: `+141555504${String(i).padStart(2, '0')}`,
        sms_consent: 'subscribed',
      });
      probes.push(p.body.id);
    }
    const a = await v1('POST', '/v1/contacts', { email: 'f1@example.com', phone: '+14155550311', sms_consent: 'subscribed' });
    const b = await v1('POST', '/v1/contacts', { email: 'f2@example.com', phone: '+14155550312', sms_consent: 'subscribed' });
    await v1('POST', '/v1/orders/placed', {
      order_id: 'F-1',
      total: '1',
      currency: 'USD',
      order_date: '2026-11-26',
      email: 'f1@example.com',
    });
    // A last probe: once it is printed, everything before it (a, b and the order's flow run, which
    // --type leaves out) has been seen.
    const last = await v1('POST', '/v1/contacts', { email: 'probe-last@example.com', phone: '+14155550499', sms_consent: 'subscribed' });
    expect(await printed(last.body.id, 45_000), seen).toBe(true);
    ac.abort();
    const r = await follow;
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const ids = lines.map((l) => l.contact_id);
    expect(ids.slice(0, -3).every((id: string) => probes.includes(id))).toBe(true);
    expect(ids.slice(-3)).toEqual([a.body.id, b.body.id, last.body.id]);
    expect(lines.every((l) => l.seq > (before.at(-1)?.seq ?? 0))).toBe(true);
  });
});
