/**
 * Every wait stays below Node's timer limit (2^31−1 ms): --max-retry-wait is a number of seconds
 * with a stated upper bound, and a service asking for longer (Retry-After: 2147484, a far
 * RateLimit-Reset, a far HTTP date) gets one request and the "too long" message — never a timer
 * that fires at once and turns the retries into a burst. The service here is a tiny HTTP server on
 * 127.0.0.1 that answers every request with a 429 and the headers under test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_OPTIONS, MAX_TIMER_MS, planRetry, RetryBudget } from '../../src/client/retry.js';
import { MAX_WAIT_SECONDS, resolveSettings } from '../../src/store/settings.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

let server: Server;
let baseUrl: string;
let requests = 0;
let answer: Record<string, string> = {};
const cfg = tempConfigDir();

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(429, { 'content-type': 'application/json', ...answer });
    res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  cfg.cleanup();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  requests = 0;
});

const env = () => ({ SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: baseUrl, SVC_TOKEN: 'token-1' });

describe('--max-retry-wait', () => {
  it('is bounded below the timer limit, with the bound in the message', async () => {
    expect(MAX_WAIT_SECONDS).toBe(2147483);
    for (const value of ['99999999999', '1e9', '2147484', '35792m']) {
      const r = await runCli(['contacts', 'list', '--max-retry-wait', value], { env: env() });
      expect(r.code, value).toBe(2);
      expect(r.stderr).toContain(`--max-retry-wait must be at most 2147483 seconds (about 24 days`);
      expect(r.stderr).toContain(JSON.stringify(value));
    }
    expect(requests).toBe(0);
  });

  it('reads plain numbers, decimals, exponents and units alike; the variable is named when it is the source', () => {
    expect(resolveSettings({ maxRetryWait: '1e3' }, {}).maxRetryWaitMs).toBe(1_000_000);
    expect(resolveSettings({ maxRetryWait: '2147483' }, {}).maxRetryWaitMs).toBe(2_147_483_000);
    expect(resolveSettings({ maxRetryWait: '1.5' }, {}).maxRetryWaitMs).toBe(1500);
    expect(resolveSettings({ maxRetryWait: '500ms' }, {}).maxRetryWaitMs).toBe(500);
    expect(() => resolveSettings({}, { SVC_MAX_RETRY_WAIT: '1e12' })).toThrow(/^SVC_MAX_RETRY_WAIT must be at most 2147483 seconds/);
    expect(() => resolveSettings({ maxRetryWait: '-1' }, {})).toThrow(/must be a number of seconds/);
  });
});

describe('a wait longer than the maximum', () => {
  it('Retry-After: 2147484 with the largest maximum: one request, the "too long" message', async () => {
    answer = { 'retry-after': '2147484' };
    const started = Date.now();
    const r = await runCli(['contacts', 'list', '--max-retry-wait', '2147483'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/asked to wait 2147484 s before retrying \(HTTP 429\), more than the maximum of 2147483 s/);
    expect(requests).toBe(1);
    // Not waited at all (the wait asked is 24 days): a bound with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a RateLimit-Reset or an HTTP date weeks ahead fails the same way', async () => {
    answer = { 'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 40 * 86_400) };
    const reset = await runCli(['contacts', 'list', '--max-retry-wait', '2147483'], { env: env() });
    expect(reset.stderr).toMatch(/asked to wait \d+ s before retrying \(HTTP 429\), more than the maximum of 2147483 s/);
    answer = { 'retry-after': new Date(Date.now() + 30 * 86_400_000).toUTCString() };
    const dated = await runCli(['contacts', 'list', '--max-retry-wait', '2147483'], { env: env() });
    expect(dated.stderr).toMatch(/more than the maximum of 2147483 s/);
    expect(requests).toBe(2);
  });

  it('the retry policy never plans a wait a timer cannot hold, whatever maximum it is given', () => {
    const plan = planRetry({
      outcome: { status: 429 },
      idempotency: 'idempotent',
      attempt: 1,
      backoffRetries: 0,
      headers: { 'retry-after': '2147484' },
      options: { ...DEFAULT_RETRY_OPTIONS, maxRetryWaitMs: Number.MAX_SAFE_INTEGER, maxDelayMs: Number.MAX_SAFE_INTEGER },
      budget: new RetryBudget(10, 1),
      now: Date.now(),
      random: () => 0.999,
    });
    expect(plan).toEqual({ kind: 'wait_too_long', delayMs: 2_147_484_000 });
    const backoff = planRetry({
      outcome: { status: 503 },
      idempotency: 'idempotent',
      attempt: 1,
      backoffRetries: 60,
      options: { ...DEFAULT_RETRY_OPTIONS, maxAttempts: 100, maxTotalAttempts: 100, maxDelayMs: Number.MAX_SAFE_INTEGER },
      budget: new RetryBudget(10, 1),
      now: Date.now(),
      random: () => 0.999,
    });
    expect(backoff.kind).toBe('retry');
    expect((backoff as { delayMs: number }).delayMs).toBeLessThanOrEqual(MAX_TIMER_MS);
  });
});
