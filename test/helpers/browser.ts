/**
 * A real headless Chromium (Debian's package, /usr/bin/chromium) driven by playwright-core, for
 * the dashboard's tests. Without chromium the tests are skipped with a message, except in CI
 * (CI=true), where they must run: .ci/run installs chromium when it is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { type TestSandbox, type WithSandboxOptions, withSandbox } from './sandbox.js';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumMissing = !existsSync(CHROMIUM);
export const inCi = process.env.CI === 'true';

if (chromiumMissing && !inCi)
  console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; in CI they must run)`);

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile folder (--user-data-dir), its window of the given size, and any more switches. */
export async function launchBrowser(width = 1280, height = 900, extraArgs: string[] = []): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  // A persistent context: playwright's way to give Chromium its own --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
    timeout: 60_000,
    viewport: { width, height },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The page has drawn the route in the address bar (a function: the dashboard's CSP forbids eval). */
export const drawn = (): boolean => {
  const g = globalThis as unknown as {
    document: { getElementById(id: string): { dataset: Record<string, string | undefined> } | null };
    location: { hash: string };
  };
  return g.document.getElementById('main')?.dataset.drawn === g.location.hash;
};

/** Opens the dashboard's `route` (`#/route`) and waits until it is drawn. */
export async function openRoute(page: Page, baseUrl: string, route: string): Promise<void> {
  await page.goto(`${baseUrl}/#/${route}`);
  await page.waitForFunction(drawn);
}

/**
 * axe-core's serious and critical findings on the page, one line each, prefixed `name: ` ('' when none).
 * axe.run in the page itself (AxeBuilder's legacy mode): the dashboard has no frames, so the
 * rules and the findings are the same as the default mode's, which runs each frame apart and
 * then opens a new tab to merge their results: a renderer started per check, seconds each on a
 * busy machine, for pages with no frame to merge.
 */
export async function seriousViolations(page: Page, name: string): Promise<string> {
  if (page.frames().length > 1) throw new Error(`${name}: the page has frames; check them with AxeBuilder's default mode`);
  const result = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${name}: ${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
    .join('\n');
}

export interface DashboardSession {
  sb: TestSandbox;
  /** An API token with every scope. */
  token: string;
  tb: TestBrowser;
  /** The first tab of a fresh Chromium, watched: see `problems`. */
  page: Page;
  /** What went wrong in the page so far: console errors, page errors, answers of 400 and above. */
  problems: string[];
}

/**
 * One sandbox and one Chromium tab for the dashboard tests of a `describe` (call it inside the
 * describe that is skipped without Chromium): started before its tests (`seed` runs before the
 * browser starts), both stopped after. `set` receives them once started.
 */
export function useDashboard(
  set: (s: DashboardSession) => void,
  opts: { sandbox?: WithSandboxOptions; seed?: (sb: TestSandbox, token: string) => Promise<void> } = {},
): void {
  let s: DashboardSession | undefined;
  beforeAll(async () => {
    const sb = await withSandbox(opts.sandbox);
    const token = await sb.tokenWithAllScopes();
    await opts.seed?.(sb, token);
    const tb = await launchBrowser();
    const page = tb.context.pages()[0] ?? (await tb.context.newPage());
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    s = { sb, token, tb, page, problems };
    set(s);
  }, 90_000);
  afterAll(async () => {
    await s?.tb.close();
    await s?.sb.close();
  });
}
