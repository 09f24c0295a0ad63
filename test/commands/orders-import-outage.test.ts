/**
 * An outage in the middle of an import (bulk/outage.ts): the sandbox is stopped and started again
 * on the same port and database file; the import waits and finishes, or stops past --max-outage
 * with its journal kept, and --resume finishes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const ROWS = 300;
let dir: string;
let config: { dir: string; cleanup: () => void };
let sb: TestSandbox | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-outage-'));
  config = tempConfigDir();
});
afterEach(async () => {
  await sb?.close().catch(() => undefined);
  sb = undefined;
  config.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function writeOrders(path: string): void {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= ROWS; i++) lines.push(`O-${i},${i}.00,EUR,2024-01-01,c${i % 40}@example.com`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** Starts the import, stops the sandbox once order O-60 is stored; resolves once it is stopped, with the run. */
async function importWithOutage(args: string[], env: Record<string, string>) {
  const first = sb as TestSandbox;
  await first.admin.setFaults({ latency_ms: 10 });
  let stopped: Promise<void> | undefined;
  const watch = setInterval(() => {
    if (stopped) return;
    first.admin.order('O-60').then(
      (o) => {
        if (o && !stopped) stopped = first.close();
      },
      () => undefined,
    );
  }, 20);
  const run = runCli(args, { env });
  let settled = false;
  void run.then(() => {
    settled = true;
  });
  while (!stopped && !settled) await new Promise((r) => setTimeout(r, 20));
  if (!stopped) throw new Error(`the import ended before the outage: ${JSON.stringify(await run)}`);
  clearInterval(watch);
  await stopped;
  sb = undefined;
  return { run };
}

async function countOrders(s: TestSandbox): Promise<number> {
  let n = 0;
  for (let i = 1; i <= ROWS; i++) if (await s.admin.order(`O-${i}`)) n++;
  return n;
}

describe('svc orders import: outages waited out', () => {
  it('waits while the service is down and finishes every row once it is back (exit 0)', async () => {
    const db = join(dir, 'sandbox.db');
    sb = await withSandbox({ db });
    const port = sb.port;
    const token = await sb.tokenWithAllScopes();
    const file = join(dir, 'orders.csv');
    writeOrders(file);
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token };
    const { run } = await importWithOutage(['orders', 'import', file, '--initial-sync', '--concurrency', '4', '--json'], env);
    await new Promise((r) => setTimeout(r, 2500));
    sb = await withSandbox({ db, port });
    const r = await run;
    expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting, Ctrl-C to stop and resume later/);
    expect(r.stderr).toMatch(/the service answers again after \d+ s; continuing/);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows).toBe(ROWS);
    expect(doc.failed).toBe(0);
    expect(doc.created + doc.updated + doc.unconfirmed).toBe(ROWS);
    expect(await countOrders(sb)).toBe(ROWS);
  }, 30_000);

  it('--max-outage exceeded: exit 1, the journal kept and the resume command; --resume finishes every row', async () => {
    const db = join(dir, 'sandbox.db');
    sb = await withSandbox({ db });
    const port = sb.port;
    const token = await sb.tokenWithAllScopes();
    const file = join(dir, 'orders.csv');
    const journal = join(dir, 'orders.journal');
    writeOrders(file);
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token, SVC_MAX_OUTAGE: '30s' };
    const { run } = await importWithOutage(
      ['orders', 'import', file, '--initial-sync', '--concurrency', '4', '--journal', journal, '--max-outage', '2s'],
      env,
    );
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting/);
    expect(r.stderr).toMatch(/cannot reach the service for longer than --max-outage \(2 s\)/);
    expect(r.stderr).toContain(`progress saved in ${journal}; once fixed, continue with: svc orders import ${file} --resume`);
    expect(r.stdout).toMatch(/^rows\t\d+/m);
    const failed = /^failed\t(\d+)/m.exec(r.stdout);
    expect(failed?.[1]).toBe('0');

    sb = await withSandbox({ db, port });
    const again = await runCli(
      ['orders', 'import', file, '--initial-sync', '--concurrency', '4', '--journal', journal, '--resume', '--json'],
      { env },
    );
    expect(again.code).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(doc.rows).toBe(ROWS);
    expect(doc.failed).toBe(0);
    expect(doc.resumed).toBeGreaterThan(0);
    expect(await countOrders(sb)).toBe(ROWS);
  }, 30_000);
});
