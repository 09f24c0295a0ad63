/**
 * A real headless Chromium (Debian's package, /usr/bin/chromium) driven by playwright-core, for
 * the dashboard's tests. Without chromium the tests are skipped with a message, except in CI
 * (CI=true), where they must run: .ci/run installs chromium when it is missing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

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
