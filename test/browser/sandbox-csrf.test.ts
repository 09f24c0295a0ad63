/**
 * A hostile web page in a real Chromium cannot reset the sandbox: neither by a cross-site
 * bodyless POST (fetch no-cors, a form) nor through a name rebound to 127.0.0.1 (simulated with
 * Chromium's --host-resolver-rules). The records are still there afterwards.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, inCi, launchBrowser, type TestBrowser } from '../helpers/browser.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let tb: TestBrowser;
let attacker: Server;
let attackerPort: number;
let token: string;

/** The attacker's page: fires the requests a page can make without any permission, then says so. */
function attackPage(target: string): string {
  return `<!doctype html><title>cute cats</title>
<form id="f" method="POST" action="${target}/_sandbox/reset" target="sink"></form><iframe name="sink"></iframe>
<script>
(async () => {
  const results = [];
  try { await fetch('${target}/_sandbox/reset', { method: 'POST', mode: 'no-cors' }); results.push('no-cors sent'); } catch (e) { results.push('no-cors failed'); }
  try { await fetch('${target}/_sandbox/api-tokens', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' }); } catch {}
  navigator.sendBeacon('${target}/_sandbox/reset');
  document.getElementById('f').submit();
  await new Promise((r) => setTimeout(r, 500));
  document.title = 'done';
})();
</script>`;
}

async function contactCount(): Promise<number> {
  const res = await fetch(`${sb.baseUrl}/v1/contacts`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { data: unknown[] }).data.length;
}

describe.skipIf(chromiumMissing && !inCi)('a hostile page in Chromium', () => {
  beforeAll(async () => {
    sb = await withSandbox();
    token = await sb.tokenWithAllScopes();
    const res = await fetch(`${sb.baseUrl}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com' }),
    });
    expect(res.status).toBe(201);
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(attackPage(`http://127.0.0.1:${sb.port}`));
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerPort = (attacker.address() as AddressInfo).port;
    // evil.test and rebound.test resolve to this machine, as a rebinding DNS server would make them.
    tb = await launchBrowser(800, 600, ['--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebound.test 127.0.0.1']);
  }, 90_000);
  afterAll(async () => {
    await tb?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await sb?.close();
  });

  it('a page on another origin cannot reset the sandbox (fetch no-cors, beacon, form)', async () => {
    const page = await tb.context.newPage();
    await page.goto(`http://evil.test:${attackerPort}/`);
    await page.waitForFunction("document.title === 'done'", undefined, { timeout: 10_000 });
    await page.close();
    expect(await contactCount()).toBe(1);
  });

  it('a name rebound to 127.0.0.1 reaches neither the dashboard nor the admin API', async () => {
    const page = await tb.context.newPage();
    const dashboard = await page.goto(`http://rebound.test:${sb.port}/`);
    expect(dashboard?.status()).toBe(403);
    // The page now runs under http://rebound.test:PORT, the sandbox's own address: same-origin to it.
    const status = await page.evaluate(async () => (await fetch('/_sandbox/reset', { method: 'POST' })).status);
    expect(status).toBe(403);
    const secret = await page.evaluate(async () => (await fetch('/_sandbox/businesses')).status);
    expect(secret).toBe(403);
    await page.close();
    expect(await contactCount()).toBe(1);
  });
});
