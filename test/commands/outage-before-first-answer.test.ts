/**
 * An outage that begins before a bulk run's first row is answered (bulk/outage.ts): waited out
 * like any other once the address is known to be the service's, never failed row by row. Known by
 * any HTTP answer the client had from it (here the rows' 503s, retried), or by the journal of an
 * earlier run against the same address (resuming it). The real sandbox is stopped and started again on the
 * same port and database file (test/helpers/outage.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  expectStoppedPastMaxOutage,
  journalHasDoneRow,
  type RestartableSandbox,
  waitUntil,
  withRestartableSandbox,
} from '../helpers/outage.js';
import { runCli } from '../helpers/run-cli.js';
import { ordersCsv } from '../helpers/spawn-cli.js';

const WAITING = /cannot reach the service since \d\d:\d\d:\d\d; waiting, Ctrl-C to stop and resume later/;

/** `svc ARGS` in-process, its stderr readable while it runs. */
function running(args: string[], env: Record<string, string>) {
  let stderr = '';
  const run = runCli(args, {
    env,
    onStderr: (text) => {
      stderr += text;
    },
  });
  return { run, stderr: () => stderr };
}

/** Every order `PREFIX-1`…`PREFIX-n` is stored in the (restarted) sandbox. */
async function expectEveryOrder(sb: RestartableSandbox['sb'], prefix: string, n: number): Promise<void> {
  let stored = 0;
  for (let i = 1; i <= n; i++) if (await sb.admin.order(`${prefix}-${i}`)) stored++;
  expect(stored).toBe(n);
}

it('the service answered only 503s, then went away before any row was done: waited out, every row stored (exit 0)', async () => {
  await withRestartableSandbox('svc-first-answer-', async (s) => {
    const file = join(s.dir, 'orders.csv');
    writeFileSync(file, ordersCsv(20, 'FA'));
    // Every request is answered 503 (not processed, retried by the client): no row is done, but
    // the address has answered. The restarted sandbox has no faults.
    await s.sb.admin.setFaults({ unavailable_rate: 1 });
    const cli = running(['orders', 'import', '--live', file, '--concurrency', '2', '--json', '--debug'], s.env);
    await waitUntil('a row answered 503', () => /POST \S+\/v1\/orders\/placed → 503/.test(cli.stderr()));
    await s.stop();
    await waitUntil('the waiting line', () => WAITING.test(cli.stderr()));
    const back = await s.restart();
    const r = await cli.run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/the service answers again after \d+ s; continuing/);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ rows: 20, failed: 0 });
    await expectEveryOrder(back, 'FA', 20);
  });
}, 60_000);

it('--resume while the service is still down: the journal says this address answered, so the outage is waited out (exit 0)', async () => {
  await withRestartableSandbox('svc-resume-down-', async (s) => {
    const file = join(s.dir, 'orders.csv');
    const journal = join(s.dir, 'orders.journal');
    writeFileSync(file, ordersCsv(200, 'RD'));
    await s.sb.admin.setFaults({ latency_ms: 20 });
    // The first run: stopped past --max-outage once rows are answered, its journal kept.
    const first = running(['orders', 'import', '--live', file, '--journal', journal, '--concurrency', '2', '--max-outage', '2s'], s.env);
    await waitUntil('a row done in the journal', () => journalHasDoneRow(journal));
    await s.stop();
    const stopped = await first.run;
    const command = /continue with: (svc .*--resume.*)$/m.exec(stopped.stderr)?.[1] ?? '';
    expectStoppedPastMaxOutage(stopped, journal, command);

    // Resumed with the service still down: no answer yet in this run, the journal vouches.
    const again = running([...command.split(' ').slice(1), '--json'], s.env);
    await waitUntil('the waiting line', () => WAITING.test(again.stderr()));
    const back = await s.restart();
    const r = await again.run;
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ rows: 200, failed: 0 });
    expect(doc.resumed).toBeGreaterThan(0);
    await expectEveryOrder(back, 'RD', 200);
  });
}, 60_000);
