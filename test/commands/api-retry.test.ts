/**
 * Server-directed waits through the CLI: a 429 with Retry-After: 3 is waited for at least 3 s;
 * one longer than --max-retry-wait fails at once with a clear message. The sandbox's clock is
 * the only fake: held still so that its one-second rate-limit window answers Retry-After: 3.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { fakeIO, runCli } from '../helpers/run-cli.js';

let offset = 0;
/** While set, the sandbox's clock stands still at this instant. */
let frozen: number | undefined;
/** The sandbox's fault dice, scripted: values are used first, then 0.99 (no fault unless a rate is 1). */
const dice: number[] = [];
const fx = cliSuite({
  reset: false,
  config: 'file',
  sandbox: { now: () => frozen ?? Date.now() + offset, random: () => dice.shift() ?? 0.99 },
});

/** Makes every request of `token` answer 429 with Retry-After: 3 until the clock runs again. */
async function armRetryAfter3(): Promise<void> {
  frozen = undefined;
  offset += 5000; // a fresh window
  await fx.sb.admin.setFaults({ rate_limit_rps: 1 });
  const first = await fetch(`${fx.sb.baseUrl}/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${fx.token}` } });
  expect(first.status).toBe(200);
  // The window opened "2 s in the future" and the clock stands still: 3 s always remain.
  frozen = Date.now() + offset - 2000;
  const probe = await fetch(`${fx.sb.baseUrl}/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${fx.token}` } });
  expect(probe.status).toBe(429);
  expect(probe.headers.get('retry-after')).toBe('3');
}

function release(): void {
  frozen = undefined;
  offset += 10_000; // a new window by the time the client comes back
}

describe('Retry-After honoured exactly', () => {
  it('waits at least 3 s on a 429 with Retry-After: 3, then succeeds', async () => {
    await armRetryAfter3();
    const f = fakeIO();
    let sawAt = 0;
    f.io.stderr.on('data', (d: Buffer) => {
      if (!sawAt && d.toString().includes('→ 429')) {
        sawAt = Date.now();
        release();
      }
    });
    const code = await main(['contacts', 'list', '--json', '--debug'], {
      io: f.io,
      env: fx.env(),
    });
    const waited = Date.now() - sawAt;
    expect(code, f.stderr()).toBe(0);
    expect(sawAt).toBeGreaterThan(0);
    expect(f.stderr()).toMatch(/waiting 3000 ms as the service asked before attempt 2/);
    expect(f.stderr()).toMatch(/GET \S+\/v1\/contacts\S* → 200 .*attempt 2/);
    expect(waited).toBeGreaterThanOrEqual(2990);
  });

  it('fails at once when Retry-After exceeds --max-retry-wait (no silent cap)', async () => {
    await armRetryAfter3();
    const started = Date.now();
    const r = await runCli(['contacts', 'list', '--max-retry-wait', '2'], {
      env: fx.env(),
    });
    release();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/asked to wait 3 s .* more than the maximum of 2 s; raise it with --max-retry-wait/);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe('500s and destroyed connections through the CLI', () => {
  const env = () => fx.env();

  it('a contact create that meets a 500 is not retried (it may have been applied); a list is', async () => {
    frozen = undefined;
    await fx.sb.admin.setFaults({ error_rate: 1 });
    const create = await runCli(['contacts', 'create', '--email', 'five-hundred@example.com', '--debug'], { env: env() });
    expect(create.code).toBe(1);
    expect(create.stderr.match(/POST \S+\/v1\/contacts → /g)).toHaveLength(1);
    expect(create.stderr).not.toMatch(/retry:/);

    // A list meets a 500, then a destroyed connection, then succeeds on its third attempt.
    await fx.sb.admin.setFaults({ error_rate: 0.5, reset_rate: 0.3 });
    dice.push(0.1, 0.2, 0.6, 0.7);
    const list = await runCli(['contacts', 'list', '--json', '--debug'], { env: env() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toMatch(/GET \S+ → 500 .*attempt 1/);
    expect(list.stderr).toMatch(/GET \S+ → connection lost before an answer .*attempt 2/);
    expect(list.stderr).toMatch(/GET \S+ → 200 .*attempt 3/);
    expect(list.stderr.match(/retry:/g)).toHaveLength(2);
    await fx.sb.admin.setFaults({ reset_rate: 1 });
    const reset = await runCli(['contacts', 'create', '--email', 'reset@example.com', '--debug'], { env: env() });
    expect(reset.code).toBe(1);
    expect(reset.stderr).toMatch(/connection lost before an answer/);
    expect(reset.stderr).not.toMatch(/retry:/);
    await fx.sb.admin.setFaults({});
  });

  it('a delete whose first attempt was applied before a 500 is retried, and its 404 means deleted', async () => {
    frozen = undefined;
    const made = await runCli(['contacts', 'create', '--email', 'gone-twice@example.com', '--json'], { env: env() });
    const id = JSON.parse(made.stdout).id as string;
    // First DELETE: a 500 after the write was applied (dice 0.1 = fault, 0.2 = after the write); then no fault.
    await fx.sb.admin.setFaults({ error_rate: 0.5 });
    dice.push(0.1, 0.2);
    const r = await runCli(['contacts', 'delete', id, '--yes', '--debug'], { env: env() });
    await fx.sb.admin.setFaults({});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/DELETE \S+ → 500 .*attempt 1/);
    expect(r.stderr).toMatch(/DELETE \S+ → 404 .*attempt 2/);
    expect(r.stderr).toContain(`Deleted contact ${id} (an earlier, interrupted attempt had deleted it)`);
    // A 404 on the first attempt is still an error.
    const again = await runCli(['contacts', 'delete', id, '--yes'], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no contact with id/);
  });
});
