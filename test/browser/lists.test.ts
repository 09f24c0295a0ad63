/**
 * The dashboard's lists in a real headless Chromium: counts ("3 contacts"), relative times with the
 * full time on hover, live rows (highlighted, counted, nothing lost between the load and the first
 * poll), search by order id and event id, the event-type filter from the types seen, the side
 * effects' content; no table wider than its page and rows one line high at 1280 px, cards at 390 px
 * (with long e-mails; axe-core on every page is in dashboard.test.ts).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, drawn, inCi, openRoute, useDashboard } from '../helpers/browser.js';
import { layoutOf } from '../helpers/layout.js';
import { http, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let page: Page;
let token: string;
let problems: string[];

const api = (method: string, path: string, json?: unknown) => http(sb.baseUrl, method, path, { token, json });

const open = (route: string) => openRoute(page, sb.baseUrl, route);

describe.skipIf(chromiumMissing && !inCi)('the lists of the dashboard in Chromium', () => {
  useDashboard((s) => ({ sb, page, token, problems } = s), {
    seed: async (s, t) => {
      for (let i = 1; i <= 3; i++)
        await http(s.baseUrl, 'POST', '/v1/contacts', {
          token: t,
          json: {
            email: `a.very.long.address.number.${i}@a-rather-long-domain-name.example.com`,
            phone: `+1415555010${i}`,
            first_name: 'Margaret',
            last_name: 'Hamilton-Lovelace',
          },
        });
    },
  });

  it('Contacts counts its rows, shows relative times with the full time on hover, and is live', async () => {
    await open('contacts');
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('3 contacts');
    const time = page.locator('table.contacts time').first();
    expect(await time.locator('.rel').textContent()).toMatch(/just now|\d+ s ago/);
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await page.evaluate('window.notReloaded = true');
    await api('POST', '/v1/contacts', { email: 'new.one@example.com' });
    const row = page.locator('table.contacts tr.new').filter({ hasText: 'new.one@example.com' });
    await row.waitFor({ timeout: 5000 });
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('4 contacts');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    // A copy button beside each id.
    expect(await page.getByRole('button', { name: /^Copy ct_/ }).count()).toBe(4);
  });

  it('Orders and Events: live, searched by order id and event id, filtered by the event types seen', async () => {
    await open('orders');
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('0 orders');
    await api('POST', '/v1/orders/placed', {
      order_id: 'SHOP-7781',
      total: '12.00',
      currency: 'USD',
      order_date: '2026-11-20',
      email: 'new.one@example.com',
    });
    await page.locator('table.orders tr.new').filter({ hasText: 'SHOP-7781' }).waitFor({ timeout: 5000 });
    await api('POST', '/v1/orders/placed', {
      order_id: 'SHOP-9000',
      total: '3.00',
      currency: 'USD',
      order_date: '2026-11-21',
      email: 'new.one@example.com',
    });
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('2 orders');
    await page.getByLabel('Search order id').fill('7781');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(drawn);
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('1 order');
    expect(await page.locator('table.orders').textContent()).not.toContain('SHOP-9000');

    const sent = await api('POST', '/v1/events', { event_type: 'viewed_product', email: 'new.one@example.com' });
    await api('POST', '/v1/events', { event_type: 'started_checkout', email: 'new.one@example.com' });
    const eventId = (sent.body as { id: string }).id;
    await open('events');
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('2 events');
    expect(await page.getByLabel('Event type').locator('option').allTextContents()).toEqual([
      'all types',
      'started_checkout',
      'viewed_product',
    ]);
    await page.getByLabel('Event type').selectOption('viewed_product');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(drawn);
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('1 event');
    await open(`events?q=${eventId}`);
    await expect.poll(() => page.locator('.count').first().textContent()).toBe('1 event');
    expect(await page.locator('table.events').textContent()).toContain(eventId);
  });

  it('Events is live: a new event appears at the top, highlighted and counted, without a reload; rows shown are not repeated; the type filter holds', async () => {
    await open('events');
    const shown = await page.locator('table.events tbody tr').count();
    const total = Number(((await page.locator('.count').first().textContent()) ?? '').split(' ')[0]);
    await page.evaluate('window.notReloaded = true');
    // Sent as soon as the page is drawn, before its first poll: the page asks for what came after its last row.
    const sent = await api('POST', '/v1/events', {
      event_type: 'added_to_cart',
      email: 'new.one@example.com',
      properties: { sku: 'MUG-2' },
    });
    const id = (sent.body as { id: string }).id;
    const first = page.locator('table.events tbody tr').first();
    await page.locator('table.events tr.new').filter({ hasText: id }).waitFor({ timeout: 5000 });
    expect(await first.textContent()).toContain(id);
    expect(await first.textContent()).toContain('new.one@example.com');
    await expect.poll(() => page.locator('.count').first().textContent()).toBe(`${total + 1} events`);
    expect(await page.locator('table.events tbody tr').count()).toBe(shown + 1);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    // Filtered by type, only the matching new events come in.
    await open('events?event_type=viewed_product');
    const other = await api('POST', '/v1/events', { event_type: 'started_checkout', email: 'new.one@example.com' });
    const match = await api('POST', '/v1/events', { event_type: 'viewed_product', email: 'new.one@example.com' });
    await page
      .locator('table.events tr.new')
      .filter({ hasText: (match.body as { id: string }).id })
      .waitFor({ timeout: 5000 });
    expect(await page.locator('table.events').textContent()).not.toContain((other.body as { id: string }).id);
  });

  it('no table wider than the page, rows one line high at 1280 px; cards at 390 px (long e-mails and names)', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const route of ['contacts', 'orders', 'events', 'timeline']) {
        await open(route);
        const m = await layoutOf(page);
        expect(m.overflow, `${route} at ${width}px: ${m.where}`).toBeLessThanOrEqual(0);
        if (width === 1280) expect(Math.max(0, ...m.rowHeights), `${route}: a row is one line`).toBeLessThan(45);
        else expect(m.visibleHeads, `${route}: cards`).toBe(0);
      }
      await open('contacts');
      const first = page.locator('table.contacts tbody tr').first();
      const height = (await first.boundingBox())?.height ?? 0;
      if (width === 1280) expect(height, 'a contact row is one line').toBeLessThan(45);
      else {
        // A card: the e-mail is shown with its label, the header row is hidden.
        expect(height).toBeGreaterThan(100);
        expect(await first.locator('td[data-label="E-mail"]').isVisible()).toBe(true);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  it('the Snapshots panel of Settings saves, lists, restores and deletes a snapshot', async () => {
    await open('settings');
    const panel = page.getByRole('region', { name: 'Snapshots' }).or(page.locator('section[aria-labelledby="snapshots-h"]')).first();
    const before = ((await http(sb.baseUrl, 'GET', '/_sandbox/contacts')).body as { total: number }).total;
    await page.getByLabel('Snapshot name').fill('before-test');
    await page.getByRole('button', { name: 'Save snapshot' }).click();
    await page.getByText(`Snapshot “before-test” saved: ${before} contacts,`).waitFor();
    expect(await panel.textContent()).toContain('before-test');
    await api('POST', '/v1/contacts', { email: 'after.snapshot@example.com' });
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Restore before-test' }).click();
    // The page is drawn again from the restored state, the notice above it.
    await page.getByText(/^Restored snapshot before-test at \d\d:\d\d UTC in [\d.]+ ms: this page shows the restored data\.$/).waitFor();
    await page.waitForFunction(drawn);
    const contacts = (await http(sb.baseUrl, 'GET', '/_sandbox/contacts')).body as { total: number };
    expect(contacts.total).toBe(before);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete before-test' }).click();
    await page.getByText('Snapshot “before-test” deleted.').waitFor();
    expect(await page.getByText('No snapshots yet.').count()).toBe(1);
  });

  it('logged no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
