/** The domain modules on their own, without HTTP: consent machine, order upsert, integrations, events, outbox, auth. */
import { beforeEach, describe, expect, it } from 'vitest';
import { validateOrderInput } from '../../src/contract/orders.js';
import { DEFAULT_BUSINESS_ID, SandboxDb } from '../../src/sandbox/db.js';
import {
  authenticate,
  createApiToken,
  createApp,
  createBusiness,
  ensureDefaultBusiness,
  grantClientCredentials,
  revokeApiToken,
} from '../../src/sandbox/domain/auth.js';
import { createContact, deleteContact, forceConsent, patchContact } from '../../src/sandbox/domain/contacts.js';
import { type Domain, newCache } from '../../src/sandbox/domain/context.js';
import { ServiceError } from '../../src/sandbox/domain/errors.js';
import { sendEvent } from '../../src/sandbox/domain/events.js';
import { createFlow } from '../../src/sandbox/domain/flows.js';
import { createIntegration, resolveIntegration, setIntegrationActive } from '../../src/sandbox/domain/integrations.js';
import { upsertOrder } from '../../src/sandbox/domain/orders.js';
import { listSideEffects } from '../../src/sandbox/domain/outbox.js';
import { Faults } from '../../src/sandbox/faults.js';

let d: Domain;
let now = 1_780_000_000_000;
const B = DEFAULT_BUSINESS_ID;

beforeEach(() => {
  d = { db: new SandboxDb(':memory:'), now: () => now, tokenTtlSeconds: 7200, cache: newCache() };
  ensureDefaultBusiness(d);
});

function order(over: Record<string, unknown> = {}) {
  const r = validateOrderInput({
    order_id: 'o1',
    total: '10.00',
    currency: 'USD',
    order_date: '2026-01-01',
    email: 'a@example.com',
    ...over,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

function failsWith(fn: () => unknown, status: number, code: string) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    expect([(e as ServiceError).status, (e as ServiceError).code]).toEqual([status, code]);
    return;
  }
  throw new Error('expected a ServiceError');
}

describe('consent state machine', () => {
  it('lifts a merchant suppression before applying the written value', () => {
    const c = createContact(d, B, { email: 'a@example.com', email_consent: 'suppressed' }).contact;
    expect(patchContact(d, B, c.id, { sms_consent: 'unsubscribed' }).email_consent).toBe('never_subscribed');
  });

  it('refuses every write to a compliance-suppressed contact and changes nothing', () => {
    const c = createContact(d, B, { email: 'a@example.com' }).contact;
    forceConsent(d, c.id, { email_consent: 'compliance_suppressed' });
    failsWith(() => patchContact(d, B, c.id, { first_name: 'x' }), 422, 'compliance_suppressed');
    failsWith(() => createContact(d, B, { email: 'a@example.com' }), 422, 'compliance_suppressed');
  });

  it('records one welcome SMS per move into subscribed, none when already subscribed or suppressed by the flag', () => {
    const c = createContact(d, B, { phone: '+14155550100' }).contact;
    patchContact(d, B, c.id, { sms_consent: 'subscribed' });
    patchContact(d, B, c.id, { sms_consent: 'subscribed' });
    patchContact(d, B, c.id, { sms_consent: 'unsubscribed' });
    patchContact(d, B, c.id, { sms_consent: 'subscribed', send_welcome_sms: false });
    expect(listSideEffects(d, { type: 'welcome_sms' })).toHaveLength(1);
  });

  it('rolls back a failed write completely', () => {
    const a = createContact(d, B, { email: 'a@example.com' }).contact;
    createContact(d, B, { email: 'b@example.com' });
    failsWith(() => patchContact(d, B, a.id, { first_name: 'X', email: 'b@example.com' }), 409, 'contact_exists');
    expect(patchContact(d, B, a.id, {}).first_name).toBeNull();
  });
});

describe('order upsert', () => {
  it('creates then updates, adjusting statistics by the difference', () => {
    expect(upsertOrder(d, B, order(), undefined).created).toBe(true);
    const r = upsertOrder(d, B, order({ total: '25.50' }), undefined);
    expect(r.created).toBe(false);
    const c = d.db.get<{ orders_count: number; total_spent: string }>(
      'SELECT orders_count, total_spent FROM contacts WHERE id = ?',
      r.order.contact_id,
    );
    expect(c).toEqual({ orders_count: 1, total_spent: '{"USD":"25.50"}' });
  });

  it('moves statistics when an update names another contact', () => {
    const first = upsertOrder(d, B, order(), undefined).order.contact_id as string;
    const second = upsertOrder(d, B, order({ email: 'b@example.com' }), undefined).order.contact_id as string;
    const stats = (id: string) =>
      d.db.get<{ orders_count: number; total_spent: string }>('SELECT orders_count, total_spent FROM contacts WHERE id = ?', id);
    expect(stats(first)).toEqual({ orders_count: 0, total_spent: '{"USD":"0.00"}' });
    expect(stats(second)).toEqual({ orders_count: 1, total_spent: '{"USD":"10.00"}' });
  });

  it('the index of orders by contact is created only when a newest order moves back, and the newest date is then exact', () => {
    const indexes = () =>
      d.db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders'").map((r) => r.name);
    const order = (id: string, date: string) => {
      const r = validateOrderInput({ order_id: id, total: '1.00', currency: 'USD', order_date: date, email: 'idx@example.com' });
      if (!r.ok) throw new Error('invalid test order');
      return upsertOrder(d, B, r.value, undefined);
    };
    order('i1', '2026-01-01');
    const contactId = order('i2', '2026-03-01').order.contact_id as string;
    order('i2', '2026-03-05');
    order('i1', '2025-12-01');
    expect(indexes()).not.toContain('orders_by_contact');
    order('i2', '2026-02-01');
    expect(indexes()).toContain('orders_by_contact');
    const last = d.db.get<{ last_order_at: number }>('SELECT last_order_at FROM contacts WHERE id = ?', contactId);
    expect(last?.last_order_at).toBe(Date.parse('2026-02-01T00:00:00Z'));
  });

  it('keeps a stored initial_sync: a later call without it records no side effects', () => {
    upsertOrder(d, B, order({ initial_sync: true }), undefined);
    upsertOrder(d, B, order(), undefined);
    expect(listSideEffects(d, {})).toEqual([]);
  });
});

describe('integrations', () => {
  it('the sole active integration is used without a header; a deactivated one is not', () => {
    const i = createIntegration(d, B, 'Shop');
    expect(resolveIntegration(d, B, undefined)).toBe(i.id);
    setIntegrationActive(d, i.id, false);
    expect(resolveIntegration(d, B, undefined)).toBeNull();
    failsWith(() => resolveIntegration(d, B, i.token), 403, 'invalid_integration_token');
  });
});

describe('events', () => {
  it('runs each flow on the event type and deduplicates event_id', () => {
    createFlow(d, B, { event_type: 'signup' }, 'Welcome');
    const a = sendEvent(d, B, { event_type: 'signup', email: 'e@example.com', event_id: 'x' });
    const b = sendEvent(d, B, { event_type: 'signup', email: 'e@example.com', event_id: 'x' });
    expect(b).toEqual({ id: a.id, duplicate: true });
    expect(listSideEffects(d, { type: 'flow_run' })).toHaveLength(1);
  });
});

describe('auth', () => {
  it('grants the intersection of requested, enabled and available scopes', () => {
    const biz = createBusiness(d, 'Small plan', ['contacts_read']);
    const app = createApp(d, biz.id, 'a', ['contacts_read', 'orders_write']);
    const t = grantClientCredentials(
      d,
      { grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'orders_write contacts_read' },
      false,
    );
    expect(t.scope).toBe('contacts_read');
    expect(authenticate(d, t.access_token)?.businessId).toBe(biz.id);
    now += 7200_000;
    expect(authenticate(d, t.access_token)).toBeUndefined();
  });

  it('a revoked API token stops authenticating at once, even when cached', () => {
    const t = createApiToken(d, B, 't', undefined);
    expect(authenticate(d, t.token)?.scopes.has('contacts_read')).toBe(true);
    revokeApiToken(d, t.id);
    expect(authenticate(d, t.token)).toBeUndefined();
  });
});

describe('faults', () => {
  it('limits per key within a one-second window and says when to retry', () => {
    let t = 0;
    const f = new Faults(
      () => t,
      () => 0.99,
    );
    f.set({ rate_limit_rps: 2 });
    expect(f.decide('a').kind).toBe('none');
    expect(f.decide('a').kind).toBe('none');
    t = 300;
    expect(f.decide('a')).toEqual({ kind: 'rate_limited', retryAfterSeconds: 1 });
    expect(f.decide('b').kind).toBe('none');
    t = 1000;
    expect(f.decide('a').kind).toBe('none');
  });
});

describe('group commit', () => {
  it('commits the writes of one turn together and resolves flushed() after the commit', async () => {
    d.db.beginBatch();
    createContact(d, B, { email: 'g1@example.com' });
    createContact(d, B, { email: 'g2@example.com' });
    expect(d.db.sql.inTransaction).toBe(true);
    await d.db.flushed();
    expect(d.db.sql.inTransaction).toBe(false);
    expect(d.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contacts')?.n).toBe(2);
  });

  it('a unit of work that fails after writing rolls back the whole batch and fails every waiter', async () => {
    d.db.beginBatch();
    createContact(d, B, { email: 'kept-not@example.com' });
    const waiter = d.db.flushed();
    expect(() =>
      d.db.transaction(() => {
        d.db.run("INSERT INTO flows (id, business_id, event_type, name, created_at) VALUES ('f1', 'biz_default', 'x', 'y', 0)");
        d.db.run("INSERT INTO flows (id, business_id, event_type, name, created_at) VALUES ('f1', 'biz_default', 'x', 'y', 0)");
      }),
    ).toThrow(/UNIQUE/);
    await expect(waiter).rejects.toThrow(/UNIQUE/);
    expect(d.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contacts')?.n).toBe(0);
    expect(d.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM flows')?.n).toBe(0);
  });

  it('the cached statistics of a contact stay exact through phone-only orders, e-mail changes, deletion and a rolled-back batch', async () => {
    const stats = (email: string) =>
      d.db.get<{ id: string; orders_count: number; total_spent: string }>(
        'SELECT id, orders_count, total_spent FROM contacts WHERE business_id = ? AND email = ?',
        B,
        email,
      );
    const up = (over: Record<string, unknown>) => upsertOrder(d, B, order(over), undefined);
    up({ order_id: 'c1', email: 'cache@example.com', phone: '+14155550199', total: '1.00' });
    up({ order_id: 'c2', email: 'cache@example.com', total: '2.00' }); // now cached
    const { email: _e, ...phoneOnly } = order({ order_id: 'c3', phone: '+14155550199', total: '4.00' });
    upsertOrder(d, B, phoneOnly, undefined); // same contact, found by phone, not through the cache
    up({ order_id: 'c4', email: 'cache@example.com', total: '8.00' });
    expect(stats('cache@example.com')).toMatchObject({ orders_count: 4, total_spent: '{"USD":"15.00"}' });

    const id = stats('cache@example.com')?.id as string;
    patchContact(d, B, id, { email: 'moved@example.com' });
    const other = up({ order_id: 'c5', email: 'cache@example.com', total: '16.00' });
    expect(other.order.contact_id).not.toBe(id);
    expect(stats('moved@example.com')).toMatchObject({ orders_count: 4, total_spent: '{"USD":"15.00"}' });
    expect(stats('cache@example.com')).toMatchObject({ orders_count: 1, total_spent: '{"USD":"16.00"}' });

    deleteContact(d, B, other.order.contact_id as string);
    const again = up({ order_id: 'c6', email: 'cache@example.com', total: '32.00' });
    expect(again.order.contact_id).not.toBe(other.order.contact_id);
    expect(stats('cache@example.com')).toMatchObject({ orders_count: 1, total_spent: '{"USD":"32.00"}' });

    d.db.beginBatch();
    const waiter = d.db.flushed();
    up({ order_id: 'c7', email: 'cache@example.com', total: '64.00' });
    expect(() =>
      d.db.transaction(() => {
        d.db.run("INSERT INTO flows (id, business_id, event_type, name, created_at) VALUES ('f2', 'biz_default', 'x', 'y', 0)");
        d.db.run("INSERT INTO flows (id, business_id, event_type, name, created_at) VALUES ('f2', 'biz_default', 'x', 'y', 0)");
      }),
    ).toThrow(/UNIQUE/);
    await expect(waiter).rejects.toThrow(/UNIQUE/);
    up({ order_id: 'c8', email: 'cache@example.com', total: '1.00' });
    expect(stats('cache@example.com')).toMatchObject({ orders_count: 2, total_spent: '{"USD":"33.00"}' });
  });

  it('a unit of work that fails before writing leaves the batch alone', async () => {
    d.db.beginBatch();
    createContact(d, B, { email: 'stay@example.com' });
    failsWith(() => createContact(d, B, { email: 'stay@example.com' }), 409, 'contact_exists');
    await d.db.flushed();
    expect(d.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contacts')?.n).toBe(1);
  });
});

describe('exact sums of amounts', () => {
  it('the fast minor-unit path agrees with the BigInt addDecimals on random amounts', async () => {
    const { addAmounts } = await import('../../src/sandbox/domain/orders.js');
    const { addDecimals } = await import('../../src/contract/formats.js');
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const decimals of [0, 2, 3]) {
      let fast = decimals > 0 ? `0.${'0'.repeat(decimals)}` : '0';
      let exact = fast;
      for (let i = 0; i < 2000; i++) {
        const whole = String(Math.floor(rand() * 10 ** Math.floor(rand() * 12)));
        const amount = decimals > 0 ? `${whole}.${String(Math.floor(rand() * 10 ** decimals)).padStart(decimals, '0')}` : whole;
        const sign = rand() < 0.3 ? -1 : 1;
        fast = addAmounts(fast, amount, decimals, sign);
        exact = addDecimals(exact, amount, decimals, sign);
        expect(fast, `${decimals} decimals, step ${i}`).toBe(exact);
      }
    }
  });
});
