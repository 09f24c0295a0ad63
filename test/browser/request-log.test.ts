/**
 * The request log in the dashboard, in a real headless Chromium: the list readable at a glance
 * (the distinguishing end of each id, the error message and the rule that refused it), searched by
 * e-mail; a request's page saying what it did by person, whether an injected fault's write was
 * applied; copy as curl (run, it gets the same answer), replay, export as HAR and NDJSON; links back
 * from a contact, an order, an event and a side effect to their request; the event page; "last used"
 * per API token, linked to its requests.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, drawn, inCi, openRoute, seriousViolations, type TestBrowser, useDashboard } from '../helpers/browser.js';
import { layoutOf } from '../helpers/layout.js';
import { http, type TestSandbox } from '../helpers/sandbox.js';

const run = promisify(execFile);
const SHOTS = process.env.SVC_SCREENSHOTS === '1' ? 'docs' : mkdtempSync(join(tmpdir(), 'svc-shots-'));
mkdirSync(SHOTS, { recursive: true });

let sb: TestSandbox;
let tb: TestBrowser;
let page: Page;
let token: string;
let problems: string[];
/** A token without events_write, for refusals. */
let narrow: string;

const api = (method: string, path: string, json?: unknown, t = token) => http(sb.baseUrl, method, path, { token: t, json });
const open = (route: string) => openRoute(page, sb.baseUrl, route);
const requestId = (r: { headers: Headers }) => r.headers.get('x-request-id') as string;
const field = (label: string) => page.locator('dl.fields dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');
/** A route's page has no serious axe finding and nothing wider than the page at the current width. */
async function clean(name: string): Promise<void> {
  const m = await layoutOf(page);
  expect(m.overflow, `${name}: ${m.where} is wider than the page`).toBeLessThanOrEqual(0);
  expect(await seriousViolations(page, name)).toBe('');
}

describe.skipIf(chromiumMissing && !inCi)('the request log in the dashboard, in Chromium', () => {
  useDashboard((s) => ({ sb, tb, page, token, problems } = s), {
    seed: async (s) => {
      narrow = (await s.admin.createApiToken(['contacts_read', 'contacts_write'])).token;
    },
  });

  it('the list shows the end of each id, the error message and the rule that refused it; the search finds a request by an e-mail in its body', async () => {
    const ok = await api('POST', '/v1/contacts', { email: 'findme@example.com', phone: '+14155550150' });
    const refused = await api('POST', '/v1/events', { event_type: 'viewed_product', email: 'findme@example.com' }, narrow);
    expect(refused.status).toBe(403);
    await open('requests');
    const row = page.locator(`tr[data-request-id="${requestId(refused)}"]`);
    await row.waitFor();
    const link = row.getByRole('link', { name: requestId(refused) });
    expect(await link.textContent()).toBe(`…${requestId(refused).slice(-8)}`);
    // Shown whole, not cut by its column.
    expect(
      await link.evaluate(
        (a) =>
          (a as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <=
          (a as unknown as { clientWidth: number }).clientWidth,
      ),
    ).toBe(true);
    expect(await row.locator('.error .message').textContent()).toMatch(/^insufficient_scope: .+/);
    expect(await row.locator('.error .reason').textContent()).toContain('this operation needs the scope events_write');
    // Every row's id, as shown, is told apart from the others.
    const shown = await page.locator('#requests td[data-label="Request"] a').allTextContents();
    expect(new Set(shown).size).toBe(shown.length);
    await page.getByLabel('Search e-mail, phone, id or body text').fill('findme@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/#/requests?search=findme%40example.com');
    await page.waitForFunction(drawn);
    expect(await page.locator(`tr[data-request-id="${requestId(ok)}"]`).count()).toBe(1);
    const listed = await http(sb.baseUrl, 'GET', '/_sandbox/requests?search=findme%40example.com');
    await expect
      .poll(() => page.locator('main .count').first().textContent())
      .toBe(`${listed.body.total} request${listed.body.total === 1 ? '' : 's'}`);
    await clean('requests, searched');
  });

  it("a request's page says what it did, by person; a contact, an order, an event and a side effect link back to their request", async () => {
    const c = await api('POST', '/v1/contacts', { email: 'effects@example.com' });
    const patch = await api('PATCH', `/v1/contacts/${c.body.id}`, { phone: '+14155550151', sms_consent: 'subscribed' });
    expect(patch.status).toBe(200);
    await open(`requests/${requestId(patch)}`);
    const did = page.getByRole('region', { name: 'What it did' });
    const person = did.locator('li.person').filter({ hasText: 'effects@example.com' });
    expect(await person.getByRole('link', { name: 'effects@example.com' }).getAttribute('href')).toBe(`#/contacts/${c.body.id}`);
    expect(await person.textContent()).toContain('Contact updated');
    expect(await person.textContent()).toContain('welcome_sms');
    expect(await person.textContent()).toContain('to +14155550151');
    await clean('a request with its effects');
    await page.screenshot({ path: join(SHOTS, 'dashboard-request-effects.png'), fullPage: true });
    // Back from the contact to the requests that created and changed it.
    await open(`contacts/${c.body.id}`);
    expect(await field('Created by').getByRole('link').getAttribute('href')).toBe(`#/requests/${requestId(c)}`);
    expect(await field('Last changed by').getByRole('link').getAttribute('href')).toBe(`#/requests/${requestId(patch)}`);
    // The welcome SMS, on the contact and on the timeline.
    const sms = page.locator('table.effects tbody tr').filter({ hasText: 'welcome_sms' });
    expect(await sms.locator('td[data-label="Request"] a').getAttribute('href')).toBe(`#/requests/${requestId(patch)}`);
    // An order and an event.
    const order = await api('POST', '/v1/orders/placed', {
      order_id: 'BACK-1',
      total: '9.00',
      currency: 'EUR',
      order_date: '2024-01-02',
      email: 'effects@example.com',
    });
    await open('orders/BACK-1');
    expect(await field('Created by').getByRole('link').getAttribute('href')).toBe(`#/requests/${requestId(order)}`);
    await sb.admin.createFlow('viewed_product', 'Browse follow-up');
    const event = await api('POST', '/v1/events', { event_type: 'viewed_product', email: 'effects@example.com' });
    await open('events');
    await page.getByRole('link', { name: event.body.id }).click();
    await page.waitForURL(`**/#/events/${event.body.id}`);
    await page.waitForFunction(drawn);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Event ${event.body.id}`);
    expect(await field('Sent by').getByRole('link').getAttribute('href')).toBe(`#/requests/${requestId(event)}`);
    await page.locator('table.effects tbody tr').filter({ hasText: 'flow_run' }).waitFor();
    await clean('an event');
    await page.screenshot({ path: join(SHOTS, 'dashboard-event.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await clean('an event at 390 px');
    await open(`requests/${requestId(patch)}`);
    await clean('a request at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  it('an injected 500 on a write says whether the write was applied, as the sandbox knows it', async () => {
    await sb.admin.setFaults({ error_rate: 1 });
    const failed = await api('POST', '/v1/contacts', { email: 'fault@example.com' });
    await sb.admin.setFaults({});
    expect(failed.status).toBe(500);
    const logged = await http(sb.baseUrl, 'GET', `/_sandbox/requests/${requestId(failed)}`);
    const applied = logged.body.fault.write_applied as boolean;
    await open(`requests/${requestId(failed)}`);
    expect(await field('Write applied').textContent()).toBe(applied ? 'yes' : 'no');
  });

  it('copy as curl: the copied command, run with SVC_TOKEN set, gets what the logged request got; no secret on the page', async () => {
    await tb.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sb.baseUrl });
    const c = (await api('POST', '/v1/contacts', { email: 'curl@example.com' })).body;
    const got = await api('GET', `/v1/contacts/${c.id}`);
    await open(`requests/${requestId(got)}`);
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Copy as curl' }).textContent()).toBe('Copied');
    const command = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    expect(command).toMatch(/\$\{?SVC_TOKEN\b/);
    expect(command).not.toContain(token);
    expect(await page.content()).not.toContain(token);
    const { stdout } = await run('bash', ['-c', `${command} -s`], { env: { ...process.env, SVC_TOKEN: token } });
    expect(JSON.parse(stdout)).toEqual(got.body);
  });

  it('replay: the new request appears in the log, marked as a replay and linked to its original', async () => {
    const original = await api('POST', '/v1/events', { event_type: 'replayed_event', email: 'effects@example.com' });
    await open(`requests/${requestId(original)}`);
    await page.getByRole('button', { name: 'Replay' }).click();
    const said = page.locator('.action-out .notice');
    await said.waitFor();
    expect(await said.textContent()).toMatch(/^Replayed: answered 200 as request …\w{8} \(in the log/);
    const replay = (await said.getByRole('link').getAttribute('aria-label')) as string;
    await said.getByRole('link').click();
    await page.waitForURL(`**/#/requests/${replay}`);
    await page.waitForFunction(drawn);
    expect(await page.locator('p.replay-of').getByRole('link').getAttribute('href')).toBe(`#/requests/${requestId(original)}`);
    await open('requests');
    const row = page.locator(`tr[data-request-id="${replay}"]`);
    await row.waitFor();
    expect(await row.locator('.badge.replay').count()).toBe(1);
    // The original lists it.
    await open(`requests/${requestId(original)}`);
    expect(await page.locator('p.replays').getByRole('link').getAttribute('href')).toBe(`#/requests/${replay}`);
  });

  it('export: the list downloads as HAR 1.2 and as NDJSON, with the search applied', async () => {
    await open('requests?search=effects%40example.com');
    const [har] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export HAR' }).click()]);
    const doc = JSON.parse(readFileSync((await har.path()) as string, 'utf8'));
    const expected = (await http(sb.baseUrl, 'GET', '/_sandbox/requests?search=effects%40example.com&limit=100')).body.total;
    expect(doc.log.version).toBe('1.2');
    expect(doc.log.entries.length).toBe(expected);
    expect(JSON.stringify(doc)).not.toContain(token);
    const [nd] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export NDJSON' }).click()]);
    const lines = readFileSync((await nd.path()) as string, 'utf8')
      .trim()
      .split('\n');
    expect(lines.length).toBe(expected);
    expect(JSON.parse(lines[0] as string).request_id).toMatch(/^req_/);
  });

  it('Settings says when each API token was last used, linked to its requests', async () => {
    await open('settings');
    const tokens = (await http(sb.baseUrl, 'GET', '/_sandbox/api-tokens')).body.data as { id: string; last_used_at: string | null }[];
    const used = tokens.find((t) => t.last_used_at !== null) as { id: string };
    const row = page.locator('table.tokens tbody tr').filter({ hasText: used.id });
    const link = row.locator('td[data-label="Last used"] a');
    expect(await link.getAttribute('href')).toBe(`#/requests?credential=${used.id}`);
    await link.click();
    await page.waitForFunction(drawn);
    expect(Number(((await page.locator('main .count').first().textContent()) ?? '').split(' ')[0])).toBeGreaterThan(0);
    await clean('requests of a token');
  });

  it('logged no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
