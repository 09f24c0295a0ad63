/**
 * The sandbox dashboard in a real headless Chromium (test/helpers/browser.ts) against a sandbox on
 * port 0: what the public API writes shows up, the timeline is live, the Settings page's
 * credentials work and are shown once, Reveal, fault injection, axe-core on every page, no
 * console errors. Screenshots go to a temporary folder, or to docs/ with SVC_SCREENSHOTS=1.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, drawn, inCi, openRoute, seriousViolations, type TestBrowser, useDashboard } from '../helpers/browser.js';
import { layoutOf } from '../helpers/layout.js';
import { runCli } from '../helpers/run-cli.js';
import { http, type TestSandbox, tokenRequest } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/tmp.js';

const SHOTS = process.env.SVC_SCREENSHOTS === '1' ? 'docs' : mkdtempSync(join(tmpdir(), 'svc-shots-'));
mkdirSync(SHOTS, { recursive: true });

let sb: TestSandbox;
let tb: TestBrowser;
let page: Page;
let token: string;
let problems: string[];
const cfg = useTempDir('file');

const api = (method: string, path: string, json?: unknown) => http(sb.baseUrl, method, path, { token, json });
const open = (route: string) => openRoute(page, sb.baseUrl, route);

async function accessible(name: string): Promise<void> {
  expect(await seriousViolations(page, name)).toBe('');
}

describe.skipIf(chromiumMissing && !inCi)('the dashboard in Chromium', () => {
  useDashboard((s) => ({ sb, tb, page, token, problems } = s), {
    sandbox: { now: () => Date.parse('2026-11-26T09:30:00Z') + performance.now() },
  });

  it('every page has the seven links, the business switcher and a favicon', async () => {
    await open('contacts');
    const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    expect(await links.allTextContents()).toEqual(['Contacts', 'Orders', 'Events', 'Timeline', 'Flows', 'Requests', 'Settings']);
    for (const route of ['orders', 'events', 'timeline', 'settings']) {
      await open(route);
      await expect.poll(() => page.getByRole('combobox', { name: 'Business' }).inputValue()).toBe('biz_default');
    }
    const icon = await fetch(new URL((await page.locator('link[rel=icon]').getAttribute('href')) ?? '', sb.baseUrl));
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('a contact created through the public API appears on the Contacts page, with its orders and events', async () => {
    const created = await api('POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', phone: '+14155550101' });
    expect(created.status).toBe(201);
    await sb.admin.createFlow('viewed_product', 'Browse abandonment');
    expect(
      (
        await api('POST', '/v1/orders/placed', {
          order_id: 'A-1001',
          total: '49.90',
          currency: 'EUR',
          order_date: '2026-11-26',
          email: 'ada@example.com',
          line_items: [{ sku: 'TEA-01', name: 'Green tea', quantity: 2, price: '24.95' }],
        })
      ).status,
    ).toBe(201);
    expect(
      (await api('POST', '/v1/events', { event_type: 'viewed_product', email: 'ada@example.com', properties: { sku: 'TEA-01' } })).status,
    ).toBe(200);
    await open('contacts');
    await expect.poll(() => page.getByRole('cell', { name: 'ada@example.com' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'dashboard-contacts.png') });
    await page.getByRole('link', { name: created.body.id }).click();
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'A-1001' }).count()).toBeGreaterThan(0);
    // Counts on the contact's lists.
    const effects = (await http(sb.baseUrl, 'GET', `/_sandbox/outbox?contact_id=${created.body.id}`)).body.total as number;
    expect(effects).toBeGreaterThan(0);
    expect(await page.locator('main .count').allTextContents()).toEqual(['1 order', `${effects} side effect${effects === 1 ? '' : 's'}`]);
    await page.screenshot({ path: join(SHOTS, 'dashboard-contact.png'), fullPage: true });
    await open('orders/A-1001');
    await expect.poll(() => page.getByRole('cell', { name: 'Green tea' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'dashboard-order.png'), fullPage: true });
    await open('events');
    await expect.poll(() => page.getByRole('cell', { name: 'viewed_product' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'dashboard-events.png') });
  });

  it('a PATCH to SMS subscribed makes the welcome SMS appear on the open timeline without a reload', async () => {
    const c = await api('POST', '/v1/contacts', { email: 'grace@example.com', phone: '+14155550102' });
    await open('timeline');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.evaluate('window.notReloaded = true');
    expect((await api('PATCH', `/v1/contacts/${c.body.id}`, { sms_consent: 'subscribed' })).status).toBe(200);
    // The contact is shown by its e-mail (its id on hover).
    const row = page.getByRole('row').filter({ hasText: 'welcome_sms' }).filter({ hasText: 'grace@example.com' });
    await row.waitFor({ timeout: 10_000 });
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    // Counted as it comes in.
    const total = (await http(sb.baseUrl, 'GET', '/_sandbox/outbox')).body.total as number;
    await expect.poll(() => page.locator('main .count').textContent()).toBe(`${total} side effects`);
    // With its content: the phone and the text of the SMS.
    expect(await row.textContent()).toMatch(/To \+14155550102: “.*Reply STOP/);
    // The order's attribution shows its amount.
    await page.reload();
    await page.waitForFunction(drawn);
    await expect
      .poll(() => page.getByRole('row').filter({ hasText: 'revenue_attribution' }).filter({ hasText: '49.90 EUR attributed' }).count())
      .toBe(1);
    await page.screenshot({ path: join(SHOTS, 'dashboard-timeline.png') });
  });

  it("a contact's page is live: its welcome SMS appears at the top of its side effects, counted, without a reload", async () => {
    const c = await api('POST', '/v1/contacts', { email: 'linus@example.com', phone: '+14155550109' });
    await open(`contacts/${c.body.id}`);
    await expect.poll(() => page.locator('main .count').allTextContents()).toEqual(['0 orders', '0 side effects']);
    await page.evaluate('window.notReloaded = true');
    expect((await api('PATCH', `/v1/contacts/${c.body.id}`, { sms_consent: 'subscribed' })).status).toBe(200);
    // Another contact's side effect is not shown here.
    const other = await api('POST', '/v1/contacts', { email: 'other@example.com', phone: '+14155550110' });
    await api('PATCH', `/v1/contacts/${other.body.id}`, { sms_consent: 'subscribed' });
    const row = page.locator('table.effects tr.new').filter({ hasText: 'welcome_sms' });
    await row.waitFor({ timeout: 5000 });
    expect(await row.textContent()).toContain('To +14155550109');
    await expect.poll(() => page.locator('main .count').nth(1).textContent()).toBe('1 side effect');
    await new Promise((r) => setTimeout(r, 400));
    expect(await page.locator('table.effects tbody tr').count()).toBe(1);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  });

  it('an API token made on Settings works for svc contacts list and is not shown again after a reload', async () => {
    await open('settings');
    await page.getByLabel('Token name').fill('CI token');
    await page.getByRole('button', { name: 'Create API token' }).click();
    const shown = (await page.locator('#new-api-token').textContent()) ?? '';
    expect(shown).toMatch(/^sk_/);
    await page.screenshot({ path: join(SHOTS, 'dashboard-settings.png'), fullPage: true });
    const r = await runCli(['contacts', 'list', '--json'], {
      env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: shown },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ada@example.com');
    await page.reload();
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    expect(await page.locator('#new-api-token').count()).toBe(0);
    expect(await page.content()).not.toContain(shown);
    await expect.poll(() => page.getByRole('cell', { name: 'CI token' }).count()).toBe(1);
  });

  it('an OAuth secret is shown once; regenerate gives a new one and the old stops working', async () => {
    await open('settings');
    await page.getByLabel('Application name').fill('Shop app');
    await page.getByRole('group', { name: 'Scopes' }).nth(1).getByLabel('contacts_read').check();
    await page.getByRole('button', { name: 'Create application' }).click();
    const secret = (await page.locator('#new-client-secret').textContent()) ?? '';
    const clientId = /Client id: (\S+)/.exec((await page.getByText('Client id:').textContent()) ?? '')?.[1] ?? '';
    expect(secret).not.toBe('');
    const grant = { grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope: 'contacts_read' };
    expect((await tokenRequest(sb.baseUrl, grant)).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'OAuth applications' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: `Regenerate secret of ${clientId}` }).click();
    const fresh = (await page.locator('#new-client-secret').textContent()) ?? '';
    expect(fresh).not.toBe(secret);
    expect((await tokenRequest(sb.baseUrl, grant)).status).toBe(401);
    expect((await tokenRequest(sb.baseUrl, { ...grant, client_secret: fresh })).status).toBe(200);
  });

  it('Reveal shows a Custom Integration token; the active box deactivates it', async () => {
    await open('settings');
    await page.getByLabel('Integration name').fill('Shop sync');
    await page.getByRole('button', { name: 'Create Custom Integration' }).click();
    const reveal = page.getByRole('button', { name: /^Reveal the token of / });
    await reveal.waitFor();
    const id = ((await reveal.getAttribute('aria-label')) ?? '').replace('Reveal the token of ', '');
    expect(await page.content()).not.toContain((await sb.admin.revealIntegrationToken(id)).token);
    await reveal.click();
    const expected = (await sb.admin.revealIntegrationToken(id)).token;
    await expect.poll(() => page.locator(`#token-${id}`).textContent()).toBe(expected);
    await page.getByRole('checkbox', { name: 'Active' }).uncheck();
    await page.getByText(`${id} is now inactive.`).waitFor();
    const listed = await http(sb.baseUrl, 'GET', '/_sandbox/integrations');
    expect(listed.body.data.find((i: { id: string }) => i.id === id).active).toBe(false);
  });

  it('Copy buttons, reached and pressed with the keyboard, put ids and tokens on the clipboard', async () => {
    // The page's clipboard permission, so the test reads what the button really wrote.
    await tb.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sb.baseUrl });
    const clipboard = () =>
      page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      );
    const pressed = async (button: ReturnType<Page['getByRole']>, from: ReturnType<Page['getByRole']>) => {
      await from.focus();
      await page.keyboard.press('Tab');
      expect(await button.evaluate((b) => (b as unknown as { matches(s: string): boolean }).matches(':focus'))).toBe(true);
      await page.keyboard.press('Enter');
      await expect.poll(() => button.textContent()).toBe('Copied');
    };
    // A contact's id, on its page: Tab from the link before it.
    const contact = (await http(sb.baseUrl, 'GET', '/_sandbox/contacts?q=ada')).body.data[0].id as string;
    await open(`contacts/${contact}`);
    await page.getByRole('button', { name: `Copy ${contact}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(clipboard).toBe(contact);
    expect(await page.locator('#copy-status').textContent()).toBe(`Copied ${contact}.`);
    // An order id in the contact's orders, by Tab from its link.
    await pressed(page.getByRole('button', { name: 'Copy A-1001' }).first(), page.getByRole('link', { name: 'A-1001' }).first());
    expect(await clipboard()).toBe('A-1001');
    // An API token's id; a Custom Integration's token once revealed (the Copy button takes the focus).
    await open('settings');
    const tokenId = ((await http(sb.baseUrl, 'GET', '/_sandbox/api-tokens')).body.data as { id: string }[])[0]?.id as string;
    await page.getByRole('button', { name: `Copy ${tokenId}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(clipboard).toBe(tokenId);
    const integration = ((await http(sb.baseUrl, 'GET', '/_sandbox/integrations')).body.data as { id: string }[])[0]?.id as string;
    await page.getByRole('button', { name: `Reveal the token of ${integration}` }).press('Enter');
    const copy = page.getByRole('button', { name: `Copy the token of ${integration}` });
    await expect.poll(() => copy.evaluate((b) => (b as unknown as { matches(s: string): boolean }).matches(':focus'))).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(clipboard).toBe((await sb.admin.revealIntegrationToken(integration)).token);
    // The secret is not read out: the status line names what was copied, not its value.
    expect(await page.locator('#copy-status').textContent()).toBe(`Copied the token of ${integration}.`);
    // A new API token, shown once, with its Copy button.
    await page.getByLabel('Token name').fill('Copied token');
    await page.getByRole('button', { name: 'Create API token' }).click();
    const shown = (await page.locator('#new-api-token').textContent()) ?? '';
    await page.getByRole('button', { name: /^Copy API token / }).press('Enter');
    await expect.poll(clipboard).toBe(shown);
  });

  it('a fault set on the page makes the next API call fail as set; Clear ends it', async () => {
    await open('settings');
    await page.getByLabel('Error rate (500), 0 to 1').fill('1');
    await page.getByRole('button', { name: 'Set faults' }).click();
    await expect.poll(() => page.locator('#faults-now').textContent()).toBe('{"error_rate":1}');
    expect((await api('GET', '/v1/contacts')).status).toBe(500);
    await page.getByRole('button', { name: 'Clear faults' }).click();
    await expect.poll(() => page.locator('#faults-now').textContent()).toBe('{}');
    expect((await api('GET', '/v1/contacts')).status).toBe(200);
  });

  it('rate limits set on the page: a window of 1 per minute with headers answers 429 with Retry-After', async () => {
    await open('settings');
    await page.getByLabel('Headers on answers').selectOption('ratelimit');
    await page.getByLabel('Windows (JSON)').fill('[{"limit": 1, "window_s": 60}]');
    await page.getByRole('button', { name: 'Set faults' }).click();
    await expect
      .poll(() => page.locator('#faults-now').textContent())
      .toBe('{"rate_limits":{"per":"token","headers":"ratelimit","windows":[{"limit":1,"window_s":60}]}}');
    const first = await api('GET', '/v1/contacts');
    expect(first.headers.get('ratelimit-policy')).toBe('1;w=60');
    const second = await api('GET', '/v1/contacts');
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await page.getByLabel('Windows (JSON)').fill('[{"limit": 1,');
    await page.getByRole('button', { name: 'Set faults' }).click();
    await page.getByText('Windows: not valid JSON').waitFor();
    await page.getByRole('button', { name: 'Clear faults' }).click();
    await expect.poll(() => page.locator('#faults-now').textContent()).toBe('{}');
  });

  it('every page at 1280 and 390 px: nothing wider than the page, rows one line at 1280, labelled cards at 390, axe-core clean', async () => {
    const contact = (await http(sb.baseUrl, 'GET', '/_sandbox/contacts?q=ada')).body.data[0].id;
    const flow = (await http(sb.baseUrl, 'GET', '/_sandbox/flows')).body.data[0].id;
    const request = (await api('GET', '/v1/contacts?limit=1')).headers.get('x-request-id');
    // Each page, and a field its 390 px cards must show (the one that matters most).
    const routes: [string, string | null][] = [
      ['contacts', 'E-mail'],
      [`contacts/${contact}`, 'Order'],
      ['orders', 'Contact'],
      ['orders/A-1001', 'Name'],
      ['events', 'Type'],
      ['timeline', 'Content'],
      ['flows', 'Runs'],
      [`flows/${flow}`, 'Content'],
      ['requests', 'Status'],
      [`requests/${request}`, null],
      ['settings', 'Token'],
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const [route, field] of routes) {
        await open(route);
        const name = `${route} at ${width}px`;
        const m = await layoutOf(page);
        expect(m.overflow, `${name}: ${m.where} is wider than the page`).toBeLessThanOrEqual(0);
        if (field) expect(m.rowHeights.length, `${name} has rows`).toBeGreaterThan(0);
        // A row is one line; a refused request's two (its error, then the rule that refused it).
        const lines = route === 'requests' ? 70 : 45;
        if (width === 1280) expect(Math.max(0, ...m.rowHeights), `${name}: a row is one line`).toBeLessThan(lines);
        else {
          expect(m.visibleHeads, `${name}: every table is cards`).toBe(0);
          expect(m.unlabelled, `${name}: every card field is labelled`).toBe(0);
          if (field) expect(await page.locator(`main td[data-label="${field}"]`).first().isVisible(), `${name} shows ${field}`).toBe(true);
        }
        await accessible(name);
      }
    }
    await open('contacts');
    await page.screenshot({ path: join(SHOTS, 'dashboard-mobile.png'), fullPage: true });
    await open(`contacts/${contact}`);
    await page.screenshot({ path: join(SHOTS, 'dashboard-contact-mobile.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 240_000);

  it('is keyboard navigable: Tab reaches the skip link, then the navigation', async () => {
    await open('contacts');
    await page.reload();
    await page.waitForFunction(drawn);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Contacts');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  });

  it('the business switcher shows another business', async () => {
    const biz = await sb.admin.createBusiness('Second shop');
    await open('contacts');
    await page.getByRole('combobox', { name: 'Business' }).selectOption(biz.id);
    await page.waitForURL(`**/#/contacts?biz=${biz.id}`);
    await page.getByText('No contacts yet.').waitFor();
  });

  it('logged no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
