/**
 * The guards of a real import, before anything is sent: orders dated over 30 days ago sent live
 * (exit 2 unless --initial-sync or --live; over 1 % of the rows; stdin too), rows that would lift a
 * merchant suppression (exit 2 unless --allow-unsuppress; exit 3 without contacts_read); and
 * `orders import --plan`: the contacts its orders would create, their SMS opt-ins, the historical
 * orders, exactly, equal to what the import then does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

async function svc(argv: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  return runCli(argv, { env: t.env(opts.env), stdin: opts.stdin });
}

const file = t.file;

const DAY = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

/** `n` orders, the first `old` of them 400 days old, the rest from yesterday. */
function orders(n: number, old: number, prefix = 'G'): string {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},10.00,EUR,${i <= old ? day(400) : day(1)},g${i % 7}@example.com`);
  return `${lines.join('\n')}\n`;
}

describe('orders import: the historical-orders guard', () => {
  it('stops before sending when over 1 % of the orders are older than 30 days; --initial-sync or --live go on', async () => {
    const csv = file('o.csv', orders(100, 2));
    const r = await svc(['orders', 'import', csv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: 2 of 100 order(s) in the file are dated more than 30 days ago (lines 2, 3: G-1, G-2); sent without initial_sync they would trigger flows, automations and revenue attribution for past buyers\n' +
        'hint: add --initial-sync to import them as history (no side effects), or --live to confirm the side effects are wanted\n',
    );
    expect(JSON.parse((await svc(['contacts', 'list', '--all', '--json'])).stdout)).toEqual([]);
    const json = await svc(['orders', 'import', csv, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr).error.code).toBe('historical_orders');

    const both = await svc(['orders', 'import', csv, '--initial-sync', '--live']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--initial-sync and --live do not go together/);

    const sync = await svc(['orders', 'import', file('h.csv', orders(100, 2, 'H')), '--initial-sync', '--json']);
    expect(sync.code, sync.stderr).toBe(0);
    expect(await t.sb.admin.outbox({})).toEqual([]);
    const live = await svc(['orders', 'import', csv, '--live', '--json']);
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout)).toMatchObject({ rows: 100, created: 100 });
    expect((await t.sb.admin.outbox({ type: 'flow_trigger' })).length).toBe(100);
  }, 30_000);

  it('one old order in 100 (1 %) is not stopped; stdin is decided on its rows as well', async () => {
    const one = await svc(['orders', 'import', file('o.csv', orders(100, 1)), '--json']);
    expect(one.code, one.stderr).toBe(0);
    const piped = await svc(['orders', 'import', '-'], { stdin: orders(50, 5) });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(
      /^error: 5 of 50 order\(s\) in the input are dated more than 30 days ago \(lines 2, 3, 4, 5, 6: G-1, G-2, G-3, G-4, G-5\); sent without initial_sync/,
    );
    const pipedLive = await svc(['orders', 'import', '-', '--live', '--json'], { stdin: orders(50, 5) });
    expect(pipedLive.code, pipedLive.stderr).toBe(0);
    expect(JSON.parse(pipedLive.stdout)).toMatchObject({ rows: 50 });
  }, 30_000);
});

describe('orders import --plan', () => {
  it('names the contacts the orders would create, their SMS opt-ins and the historical orders; the import agrees', async () => {
    await svc(['contacts', 'create', '--email', 'known@example.com', '--phone', '+14155550300']);
    const csv = file(
      'o.csv',
      [
        'order_id,total,currency,order_date,email,phone,accepts_sms_marketing',
        `P-1,10.00,EUR,${day(400)},known@example.com,,`,
        `P-2,10.00,EUR,${day(1)},new1@example.com,+14155550301,yes`,
        `P-3,10.00,EUR,${day(90)},new1@example.com,,`,
        `P-4,10.00,EUR,${day(1)},new2@example.com,+14155550300,yes`,
        `P-5,10.00,EUR,${day(1)},,+14155550302,no`,
        'P-6,oops,EUR,2026-01-01,x@example.com,,',
        '',
      ].join('\n'),
    );
    const planOut = join(t.tmp.dir, 'plan.csv');
    const r = await svc(['orders', 'import', csv, '--plan', '--plan-out', planOut]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'plan: 6 order(s); nothing was sent (read every page of the account: 1 page, 1 contact)',
        '',
        'orders:',
        '  existing contacts  2  lines 2, 4           orders whose buyer is in the account (consent unchanged)',
        '  created contacts   3  lines 3, 5, 6        e-mail or phone not in the account: a new contact',
        '  SMS opt-ins        1  line 3               accepts_sms_marketing on a created contact: SMS single_opt_in',
        '  live side effects  5  lines 2, 3, 4, 5, 6  sent without initial_sync: flows, automations, revenue attribution',
        "  refused            1  line 7               svc's rules: an invalid row, not sent",
        '',
        'historical orders that would trigger flows and revenue attribution: 2 dated more than 30 days ago (lines 2, 4; order ids P-1, P-3)',
        'hint: add --initial-sync to import history without side effects',
        '',
        `every row's planned outcome: ${planOut}`,
        '',
      ].join('\n'),
    );
    const rows = readFileSync(planOut, 'utf8').trimEnd().split('\n');
    expect(rows[0]).toBe('line,order_id,email,phone,contact,contact_id,sms_opt_in,side_effects,historical,outcome,message');
    expect(rows[1]).toMatch(/^2,P-1,known@example\.com,,existing,ct_\w+,,live,yes,sent,$/);
    expect(rows[2]).toBe('3,P-2,new1@example.com,+14155550301,created,,single_opt_in,live,no,sent,');
    expect(rows[4]).toBe('5,P-4,new2@example.com,+14155550300,created,,,live,no,sent,');
    expect(rows[6]).toMatch(/^7,P-6,,,,,,,no,refused,"total: /);
    expect(await t.sb.admin.outbox({})).toEqual([]);

    const j = JSON.parse((await svc(['orders', 'import', csv, '--plan', '--json', '--initial-sync'])).stdout);
    expect(j).toEqual({
      plan: 'orders',
      rows: 6,
      account: { read: 'pages', pages: 1, lookups: 0, contacts_seen: 1 },
      refused: { count: 1, lines: [7] },
      existing_contacts: { count: 2, lines: [2, 4] },
      created_contacts: { count: 3, lines: [3, 5, 6] },
      sms_opt_ins: { count: 1, lines: [3] },
      live: { count: 0, lines: [] },
      historical: { count: 0, lines: [], order_ids: [], days: 30 },
      plan_out: null,
    });

    const done = await svc(['orders', 'import', csv, '--live', '--json']);
    expect(done.code).toBe(4);
    const contacts = JSON.parse((await svc(['contacts', 'list', '--all', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(contacts.map((c) => [c.email, c.phone, c.sms_consent])).toEqual([
      ['known@example.com', '+14155550300', 'never_subscribed'],
      ['new1@example.com', '+14155550301', 'single_opt_in'],
      ['new2@example.com', null, 'never_subscribed'],
      [null, '+14155550302', 'never_subscribed'],
    ]);
    expect((await t.sb.admin.outbox({ type: 'flow_trigger' })).length).toBe(5);
  }, 30_000);
});

describe('contacts import: the unsuppression guard', () => {
  it('without contacts_read: exit 3 naming the scope; --allow-unsuppress imports without reading', async () => {
    const token = (await t.sb.admin.createApiToken(['contacts_write'])).token;
    const csv = file('c.csv', 'email,email_consent\na@example.com,subscribed\n');
    const r = await svc(['contacts', 'import', csv], { env: { SVC_TOKEN: token } });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'error: the unsuppression guard reads the merchant-suppressed contacts and needs the scope contacts_read, which these credentials lack\n' +
        'hint: log in with contacts_read, or add --allow-unsuppress to import without the check\n',
    );
    const ok = await svc(['contacts', 'import', csv, '--allow-unsuppress', '--json'], { env: { SVC_TOKEN: token } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ created: 1 });
  });

  it('a row without a consent value does not lift a suppression and passes; --plan without contacts_read is exit 3', async () => {
    const c = JSON.parse((await svc(['contacts', 'create', '--email', 's@example.com', '--json'])).stdout);
    await t.sb.admin.forceConsent(c.id, { email_consent: 'suppressed' });
    const r = await svc(['contacts', 'import', file('c.csv', 'email,first_name\ns@example.com,Ada\n'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse((await svc(['contacts', 'get', c.id, '--json'])).stdout)).toMatchObject({
      email_consent: 'suppressed',
      first_name: 'Ada',
    });
    const token = (await t.sb.admin.createApiToken(['contacts_write'])).token;
    const plan = await svc(['contacts', 'import', file('d.csv', 'email\nx@example.com\n'), '--plan'], { env: { SVC_TOKEN: token } });
    expect(plan.code).toBe(3);
    const usage = await svc(['contacts', 'import', file('e.csv', 'email\nx@example.com\n'), '--plan-out', 'x.csv']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--plan-out needs --plan/);
    const report = await svc(['contacts', 'import', file('f.csv', 'email\nx@example.com\n'), '--plan', '--report', 'r.csv']);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/--plan sends nothing, so --report would stay empty/);
  });
});
