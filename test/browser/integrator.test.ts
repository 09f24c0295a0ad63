/**
 * The integrator's pages of the dashboard (Requests, the deprecations panel, Flows) in a real
 * headless Chromium against a sandbox on port 0: a request refused for curl appears live with its
 * explanation, a deprecated call appears in the panel of the first page, a flow created in the page
 * runs on `svc events send` and is named on the timeline, no horizontal overflow at 1280 and 390
 * pixels, axe-core finds nothing serious. Screenshots go to a temporary folder, or to docs/ with SVC_SCREENSHOTS=1.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, drawn, inCi, openRoute, seriousViolations, useDashboard } from '../helpers/browser.js';
import { layoutOf } from '../helpers/layout.js';
import { runCli } from '../helpers/run-cli.js';
import { http, type TestSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/tmp.js';

const SHOTS = process.env.SVC_SCREENSHOTS === '1' ? 'docs' : mkdtempSync(join(tmpdir(), 'svc-shots-'));
mkdirSync(SHOTS, { recursive: true });
const run = promisify(execFile);

let sb: TestSandbox;
let page: Page;
let token: string;
let problems: string[];
const cfg = useTempDir('file');

const open = (route: string) => openRoute(page, sb.baseUrl, route);

/** Nothing wider than the page (nor a table than its box); axe-core only where `axe` (the pages this file fills in its own way). */
async function checks(name: string, axe: boolean): Promise<void> {
  const m = await layoutOf(page);
  expect(m.overflow, `${name}: ${m.where} is wider than the page`).toBeLessThanOrEqual(0);
  if (!axe) return;
  expect(await seriousViolations(page, name)).toBe('');
}

describe.skipIf(chromiumMissing && !inCi)('the Requests, deprecations and Flows of the dashboard in Chromium', () => {
  useDashboard((s) => ({ sb, page, problems } = s), {
    seed: async (s) => {
      token = (await s.admin.createApiToken(['contacts_read', 'contacts_write'])).token;
    },
  });

  it('a request refused for curl appears on the open Requests page within a second, with its explanation', async () => {
    await http(sb.baseUrl, 'GET', '/v1/contacts?limit=5', { token });
    await open('requests');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // The banner names the database and the business on every page.
    await expect.poll(() => page.locator('#banner').textContent()).toMatch(/Database: in memory.*Business: .*\(biz_default\)/);
    await page.evaluate('window.notReloaded = true');
    const { stdout } = await run('curl', [
      '-s',
      '-i',
      '-X',
      'POST',
      `${sb.baseUrl}/v1/events`,
      '-H',
      `Authorization: Bearer ${token}`,
      '-H',
      'Content-Type: application/json',
      '-d',
      '{"event_type":"viewed_product","email":"ada@example.com"}',
    ]);
    const id = /x-request-id: (\S+)/i.exec(stdout)?.[1] as string;
    expect(id).toMatch(/^req_/);
    const started = Date.now();
    const row = page.locator(`tr[data-request-id="${id}"]`);
    await row.waitFor({ timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await row.textContent()).toContain('insufficient_scope');
    expect(await row.textContent()).toContain('Test token (API token)');
    expect(await row.getByRole('button', { name: `Copy ${id}` }).count()).toBe(1);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await expect.poll(() => page.locator('.count').textContent()).toBe('2 requests');
    await page.screenshot({ path: join(SHOTS, 'dashboard-requests.png') });
    await row.getByRole('link', { name: id }).click();
    await page.getByRole('heading', { name: 'Why it was refused' }).waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('this operation needs the scope events_write');
    expect(text).toContain('What to change');
    expect(text).toContain('Create an API token with events_write');
    expect(text).toContain('Answer body');
    expect(text).not.toContain(token);
    await page.screenshot({ path: join(SHOTS, 'dashboard-request.png'), fullPage: true });
  });

  it('the filters narrow the list and the stream (status 2xx)', async () => {
    await open('requests?status=2xx');
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const bad = await http(sb.baseUrl, 'GET', '/v1/contacts?color=red', { token });
    const good = await http(sb.baseUrl, 'GET', '/v1/contacts?limit=2', { token });
    await page.locator(`tr[data-request-id="${good.headers.get('x-request-id')}"]`).waitFor({ timeout: 2000 });
    expect(await page.locator(`tr[data-request-id="${bad.headers.get('x-request-id')}"]`).count()).toBe(0);
  });

  it('a deprecated call appears in the panel of the first page, linked to its request', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'old@example.com' } });
    const u = await http(sb.baseUrl, 'POST', `/v1/contacts/${(c.body as { id: string }).id}/unsubscribe`, { token });
    await open('contacts');
    const panel = page.getByRole('region', { name: 'Deprecated usage seen' });
    await panel.waitFor();
    expect(await panel.textContent()).toContain('the deprecated unsubscribe endpoint');
    expect(await panel.textContent()).toContain('Test token (API token)');
    await panel.getByRole('link', { name: 'example' }).click();
    await page.waitForURL(`**/#/requests/${u.headers.get('x-request-id')}`);
    await page.getByRole('heading', { name: 'Deprecated or removed usage' }).waitFor();
  });

  it('a flow created on the Flows page runs on `svc events send`, and the timeline names it', async () => {
    await open('flows');
    await page.getByLabel('Flow name').fill('Browse abandonment');
    await page.getByLabel('Runs when').selectOption('event');
    await page.getByLabel('Event type').fill('viewed_product');
    await page.getByRole('button', { name: 'Create flow' }).click();
    await page.getByText('Flow “Browse abandonment” created').waitFor();
    expect(await page.locator('.count').textContent()).toBe('1 flow');
    const all = await sb.tokenWithAllScopes();
    const sent = await runCli(['events', 'send', '--type', 'viewed_product', '--email', 'ada@example.com'], {
      env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: all },
    });
    expect(sent.code, sent.stderr).toBe(0);
    // The open list is live: the run is counted without a reload, the row highlighted.
    await page.evaluate('window.notReloaded = true');
    const row = page.getByRole('row').filter({ hasText: 'Browse abandonment' });
    await expect.poll(() => row.getByRole('link', { name: '1' }).count(), { timeout: 5000 }).toBe(1);
    expect(await row.getAttribute('class')).toBe('new');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'dashboard-flows.png') });
    // The flow's page: its fields and its run, with the event's contact.
    await row.getByRole('link', { name: 'Browse abandonment' }).click();
    await page.waitForFunction(drawn);
    const run = page.locator('main table tbody tr').filter({ hasText: 'flow_run' });
    await run.waitFor();
    expect(await run.textContent()).toContain('ada@example.com');
    expect(await page.locator('main .count').textContent()).toBe('1 run');
    await page.screenshot({ path: join(SHOTS, 'dashboard-flow.png'), fullPage: true });
    await open('timeline');
    const named = page.getByRole('row').filter({ hasText: 'flow_run' }).filter({ hasText: '“Browse abandonment” on viewed_product' });
    await named.waitFor();
    // The timeline links the run to its flow's page.
    expect(await named.getByRole('link', { name: 'Browse abandonment' }).getAttribute('href')).toMatch(/^#\/flows\/flow_/);
    // Disabled, it runs nothing.
    await open('flows');
    await page.getByRole('checkbox', { name: 'Enabled: Browse abandonment' }).uncheck();
    await page.getByText('“Browse abandonment” is now disabled.').waitFor();
    await runCli(['events', 'send', '--type', 'viewed_product', '--email', 'ada@example.com'], {
      env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: all },
    });
    expect((await sb.admin.outbox({ type: 'flow_run' })).length).toBe(1);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete Browse abandonment' }).click();
    await page.getByText('“Browse abandonment” deleted.').waitFor();
  });

  it('no page scrolls sideways at 1280 and 390 pixels; axe-core finds nothing serious on the deprecations panel and a refused request', async () => {
    // Every page is swept with axe-core in dashboard.test.ts; here the ones with this file's data.
    const refused = await http(sb.baseUrl, 'POST', '/v1/events', { token, json: { event_type: 'x', email: 'ada@example.com' } });
    expect(refused.status).toBe(403);
    const id = refused.headers.get('x-request-id') as string;
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const route of ['contacts', 'requests', `requests/${id}`, 'flows', 'timeline']) {
        await open(route);
        await checks(`${route} at ${width}px`, route === 'contacts' || route.startsWith('requests/'));
      }
    }
    await open('requests');
    await page.screenshot({ path: join(SHOTS, 'dashboard-requests-mobile.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  it('logged no console error and no failed request', () => {
    expect(problems).toEqual([]);
  });
});
