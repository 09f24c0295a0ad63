/**
 * The dashboard's figures tell the truth, in a real headless Chromium: relative times age (the
 * page's clock advanced by playwright), with the exact time on tap and in the phone layout; a
 * contact, an order and the lists update every field live; after a restore or a reset every open
 * tab reloads and says so; the skip link moves the focus to the content; order dates are dates.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, drawn, inCi, openRoute, seriousViolations, type TestBrowser, useDashboard } from '../helpers/browser.js';
import { layoutOf } from '../helpers/layout.js';
import { http, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let tb: TestBrowser;
let page: Page;
let token: string;
let problems: string[];

const api = (method: string, path: string, json?: unknown) => http(sb.baseUrl, method, path, { token, json });
const open = (route: string, p: Page = page) => openRoute(p, sb.baseUrl, route);
const contacts = (n: number) => `${n} contact${n === 1 ? '' : 's'}`;
/** Whether an element is shown in full (a visually hidden one is a 1-pixel box, which playwright counts as visible). */
const shown = (l: ReturnType<Page['locator']>) =>
  l.evaluate((el) => (el as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width > 1);
/** The text of a field of the page's definition list (a contact's, an order's). */
const field = (label: string, p: Page = page) => p.locator('dl.fields dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');

describe.skipIf(chromiumMissing && !inCi)('truthful figures in Chromium', () => {
  useDashboard((s) => ({ sb, tb, page, token, problems } = s));

  it("a contact's page updates every field live: phone and SMS consent beside the welcome SMS it shows", async () => {
    const c = await api('POST', '/v1/contacts', { email: 'live.fields@example.com' });
    await open(`contacts/${c.body.id}`);
    expect(await field('Phone').textContent()).toBe('—');
    expect(await field('SMS consent').textContent()).toBe('never_subscribed');
    await page.evaluate('window.notReloaded = true');
    expect((await api('PATCH', `/v1/contacts/${c.body.id}`, { phone: '+14155550177', sms_consent: 'subscribed' })).status).toBe(200);
    await page.locator('table.effects tr.new').filter({ hasText: 'welcome_sms' }).waitFor({ timeout: 10_000 });
    await expect.poll(() => field('Phone').textContent(), { timeout: 10_000 }).toBe('+14155550177');
    expect(await field('SMS consent').textContent()).toBe('subscribed');
    // The changed fields are highlighted, the others not.
    expect(await field('Phone').getAttribute('class')).toBe('changed');
    expect(await field('E-mail').getAttribute('class')).toBeNull();
    // An order placed for the contact: counted on its page, its statistics too.
    await api('POST', '/v1/orders/placed', {
      order_id: 'LIVE-1',
      total: '20.00',
      currency: 'EUR',
      order_date: '2024-03-15',
      email: 'live.fields@example.com',
    });
    await expect.poll(() => field('Orders').textContent(), { timeout: 10_000 }).toBe('1');
    await expect.poll(() => page.locator('main .count').first().textContent()).toBe('1 order');
    expect(await field('Total spent').textContent()).toBe('20.00 EUR');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  });

  it("an order's page and the lists update changed rows, not only new ones", async () => {
    await open('orders/LIVE-1');
    await page.evaluate('window.notReloaded = true');
    await api('POST', '/v1/orders/placed', {
      order_id: 'LIVE-1',
      total: '25.50',
      currency: 'EUR',
      order_date: '2024-03-15',
      email: 'live.fields@example.com',
      line_items: [{ sku: 'MUG', name: 'Mug', quantity: 1, price: '25.50' }],
    });
    await expect.poll(() => field('Total').textContent(), { timeout: 10_000 }).toBe('25.50 EUR');
    await expect.poll(() => page.getByRole('cell', { name: 'Mug', exact: true }).count()).toBe(1);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    // The Contacts list: a changed contact's row is redrawn in place, highlighted, not added again.
    const c = (await http(sb.baseUrl, 'GET', '/_sandbox/contacts?q=live.fields')).body.data[0];
    await open('contacts');
    const rows = await page.locator('table.contacts tbody tr').count();
    const row = page.locator(`table.contacts tr[data-key="${c.id}"]`);
    expect(await row.locator('td[data-label="Name"]').textContent()).toBe('—');
    await api('PATCH', `/v1/contacts/${c.id}`, { first_name: 'Livia' });
    await expect.poll(() => row.locator('td[data-label="Name"]').textContent(), { timeout: 10_000 }).toBe('Livia');
    expect(await row.getAttribute('class')).toBe('new');
    expect(await page.locator('table.contacts tbody tr').count()).toBe(rows);
    // The Orders list: the new total in place.
    await open('orders');
    await api('POST', '/v1/orders/placed', {
      order_id: 'LIVE-1',
      total: '30.00',
      currency: 'EUR',
      order_date: '2024-03-15',
      email: 'live.fields@example.com',
    });
    await expect
      .poll(() => page.locator('table.orders tr[data-key="LIVE-1"] td[data-label="Total"]').textContent(), { timeout: 10_000 })
      .toBe('30.00 EUR');
  });

  it('order dates are dates, on the lists, the order and the contact, at 1280 and 390 pixels', async () => {
    await api('POST', '/v1/orders/placed', {
      order_id: 'HIST-2',
      total: '5.00',
      currency: 'EUR',
      order_date: '2023-06-01T14:02:00Z',
      email: 'live.fields@example.com',
    });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      await open('orders');
      expect(await page.locator('table.orders tr[data-key="LIVE-1"] td[data-label="Date"]').textContent()).toBe('2024-03-15');
      expect(await page.locator('table.orders tr[data-key="HIST-2"] td[data-label="Date"]').textContent()).toMatch(/2023-06-01 14:02 UTC$/);
      await open('orders/HIST-2');
      expect(await field('Date').textContent()).toBe('2023-06-01 14:02 UTC');
      const contact = (await http(sb.baseUrl, 'GET', '/_sandbox/orders/LIVE-1')).body.contact_id;
      await open(`contacts/${contact}`);
      expect(await page.locator('table.contact-orders td[data-label="Date"]').allTextContents()).toEqual(
        expect.arrayContaining(['2024-03-15']),
      );
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the skip link, the first Tab stop, moves the focus to the page content and stays on the page', async () => {
    await open('orders');
    await page.reload();
    await page.waitForFunction(drawn);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('main');
    expect(page.url()).toMatch(/#\/orders$/);
    expect(await page.getByText('There is no such page.').count()).toBe(0);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Orders');
    // The next Tab goes on from the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.closest("main") !== null')).toBe(true);
  });

  it('after a restore, then a reset, every open tab reloads its data and says so', async () => {
    expect((await http(sb.baseUrl, 'POST', '/_sandbox/snapshots', { json: { name: 'seeded' } })).status).toBe(201);
    const before = await http(sb.baseUrl, 'GET', '/_sandbox/contacts');
    for (let i = 0; i < 3; i++) {
      const c = await api('POST', '/v1/contacts', { email: `after.${i}@example.com`, phone: `+1415555019${i}` });
      await api('PATCH', `/v1/contacts/${c.body.id}`, { sms_consent: 'subscribed' });
    }
    const second = await tb.context.newPage();
    try {
      await open('contacts');
      await open('timeline', second);
      await expect.poll(() => page.locator('main .count').first().textContent()).toBe(contacts(before.body.total + 3));
      await page.evaluate('window.notReloaded = true');
      const restored = await http(sb.baseUrl, 'POST', '/_sandbox/snapshots/seeded/restore');
      expect(restored.status).toBe(200);
      const notice = /^Restored snapshot seeded at \d\d:\d\d UTC: this page shows the restored data\.$/;
      await expect.poll(() => page.locator('#state-notice').textContent(), { timeout: 10_000 }).toMatch(notice);
      await expect.poll(() => second.locator('#state-notice').textContent(), { timeout: 10_000 }).toMatch(notice);
      // The tabs show the server's figures (the page itself was not reloaded: its data was).
      await expect.poll(() => page.locator('main .count').first().textContent()).toBe(contacts(before.body.total));
      expect(await page.getByRole('cell', { name: 'after.0@example.com' }).count()).toBe(0);
      const effects = (await http(sb.baseUrl, 'GET', '/_sandbox/outbox')).body.total as number;
      await expect.poll(() => second.locator('main .count').first().textContent()).toBe(`${effects} side effects`);
      expect(await page.evaluate('window.notReloaded')).toBe(true);
      expect(await seriousViolations(page, 'contacts after a restore')).toBe('');
      // A reset: both say so and show the emptied sandbox.
      expect((await http(sb.baseUrl, 'POST', '/_sandbox/reset')).status).toBe(200);
      await expect.poll(() => page.locator('#state-notice').textContent(), { timeout: 10_000 }).toMatch(/^Reset at \d\d:\d\d UTC/);
      await expect.poll(() => second.locator('#state-notice').textContent(), { timeout: 10_000 }).toMatch(/^Reset at \d\d:\d\d UTC/);
      await expect.poll(() => page.locator('main .count').first().textContent()).toBe('0 contacts');
      await expect.poll(() => second.locator('main .count').first().textContent()).toBe('0 side effects');
      // Gone on the next navigation.
      await page.getByRole('link', { name: 'Orders' }).click();
      await page.waitForFunction(drawn);
      expect(await page.locator('#state-notice').textContent()).toBe('');
    } finally {
      await second.close();
    }
  });

  it('a restore made on the Settings page redraws it and says how long it took', async () => {
    token = await sb.tokenWithAllScopes();
    await api('POST', '/v1/contacts', { email: 'kept@example.com' });
    await http(sb.baseUrl, 'POST', '/_sandbox/snapshots', { json: { name: 'one-contact' } });
    await api('POST', '/v1/contacts', { email: 'dropped@example.com' });
    await open('settings');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Restore one-contact' }).click();
    await expect
      .poll(() => page.locator('#state-notice').textContent(), { timeout: 10_000 })
      .toMatch(/^Restored snapshot one-contact at \d\d:\d\d UTC in [\d.]+ ms: this page shows the restored data\.$/);
    expect((await http(sb.baseUrl, 'GET', '/_sandbox/contacts')).body.total).toBe(1);
  });

  it('at 390 px with a second business of a long name no page scrolls sideways; the Requests filters fold behind one button', async () => {
    await sb.admin.createBusiness('The Extraordinarily Long-Named Second Business of Our Integration Tests Ltd');
    const contact = (await api('POST', '/v1/contacts', { email: 'narrow@example.com' })).body.id;
    await page.setViewportSize({ width: 390, height: 844 });
    for (const route of ['contacts', `contacts/${contact}`, 'orders', 'events', 'timeline', 'flows', 'requests', 'settings']) {
      await open(route);
      const m = await layoutOf(page);
      expect(m.overflow, `${route} at 390 px: ${m.where} is wider than the page`).toBeLessThanOrEqual(0);
    }
    // Requests: the search box, then one button for the filters, folded.
    await open('requests');
    const toggle = page.getByRole('button', { name: 'Filters' });
    expect(await page.getByLabel('Search e-mail, phone, id or body text').isVisible()).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByLabel('Path starts with').isVisible()).toBe(false);
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL('**/#/requests?status=4xx');
    await page.waitForFunction(drawn);
    // Folded again, saying how many filters are set.
    expect(await page.getByRole('button', { name: 'Filters (1 set)' }).getAttribute('aria-expanded')).toBe('false');
    expect(await seriousViolations(page, 'requests at 390 px')).toBe('');
    // At 1280 px the filters are shown and the button is not.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.getByLabel('Path starts with').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Filters (1 set)' }).isVisible()).toBe(false);
  });

  it('the exact time on tap and in the phone layout; relative times age ("just now", then "1 min ago" 70 s later)', async () => {
    await api('POST', '/v1/contacts', { email: 'aging@example.com' });
    await open('contacts');
    const time = page.locator('table.contacts tbody tr').first().locator('td[data-label="Created"] time');
    // The exact time: hidden at 1280 px until tapped (shown in a bubble), then tapped away.
    const exact = time.locator('.abs');
    expect(await shown(exact)).toBe(false);
    expect(await exact.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await time.click();
    await expect.poll(() => shown(exact)).toBe(true);
    // A bubble under the relative time, inside the window, the relative time still shown.
    const bubble = await exact.boundingBox();
    const rel = await time.locator('.rel').boundingBox();
    expect(bubble && rel && bubble.y >= rel.y + rel.height && bubble.x + bubble.width <= 1280).toBe(true);
    await time.locator('.rel').click();
    await expect.poll(() => shown(exact)).toBe(false);
    // The phone layout shows both.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => shown(exact)).toBe(true);
    expect(await shown(time.locator('.rel'))).toBe(true);
    expect(await seriousViolations(page, 'contacts at 390 px')).toBe('');
    await page.setViewportSize({ width: 1280, height: 900 });
    // The context's clock, installed last in this file (it stays for the context): the page,
    // loaded again on it, is 70 seconds older after a fast-forward.
    await tb.context.clock.install();
    await page.reload();
    await page.waitForFunction(drawn);
    await expect.poll(() => time.locator('.rel').textContent()).toMatch(/^(just now|[1-4]?\d s ago)$/);
    await page.clock.fastForward(70_000);
    await expect.poll(() => time.locator('.rel').textContent()).toBe('1 min ago');
  });

  it('logged no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
