/**
 * An outage in the middle of a contacts import (bulk/outage.ts), as for orders: the sandbox is
 * stopped and started again on the same port and database file; the import waits and finishes
 * with every contact once, or stops past --max-outage with its journal kept, exit 1 and the
 * exact resume command, and --resume finishes it.
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
  dir = mkdtempSync(join(tmpdir(), 'svc-contacts-outage-'));
  config = tempConfigDir();
});
afterEach(async () => {
  await sb?.close().catch(() => undefined);
  sb = undefined;
  config.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function writeContacts(path: string): void {
  const lines = ['email,first_name,email_consent'];
  for (let i = 1; i <= ROWS; i++) lines.push(`c${i}@example.com,C${i},subscribed`);
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** Whether the service has the contact (its public list, filtered by e-mail). */
async function hasContact(s: TestSandbox, token: string, email: string): Promise<boolean> {
  const res = await fetch(`${s.baseUrl}/v1/contacts?email=${encodeURIComponent(email)}`, { headers: { authorization: `Bearer ${token}` } });
  return res.ok && (await res.text()).includes(`"${email}"`);
}

/** Starts the import, stops the sandbox once contact 60 is stored; resolves once it is stopped, with the run. */
async function importWithOutage(args: string[], env: Record<string, string>, token: string) {
  const first = sb as TestSandbox;
  await first.admin.setFaults({ latency_ms: 10 });
  let stopped: Promise<void> | undefined;
  const watch = setInterval(() => {
    if (stopped) return;
    hasContact(first, token, 'c60@example.com').then(
      (yes) => {
        if (yes && !stopped) stopped = first.close();
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
  clearInterval(watch);
  if (!stopped) throw new Error(`the import ended before the outage: ${JSON.stringify(await run)}`);
  await stopped;
  sb = undefined;
  return { run };
}

/** Every contact of the file present once. */
async function expectEveryContactOnce(env: Record<string, string>): Promise<void> {
  const list = await runCli(['contacts', 'list', '--all', '--page-size', '250', '--format', 'ndjson'], { env });
  expect(list.code, list.stderr).toBe(0);
  const emails = list.stdout
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { email: string }).email);
  expect(emails).toHaveLength(ROWS);
  expect(new Set(emails).size).toBe(ROWS);
}

describe('svc contacts import: outages waited out', () => {
  it('waits while the service is down and finishes every row once it is back (exit 0)', async () => {
    const db = join(dir, 'sandbox.db');
    sb = await withSandbox({ db });
    const port = sb.port;
    const token = await sb.tokenWithAllScopes();
    const file = join(dir, 'contacts.csv');
    writeContacts(file);
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token };
    const { run } = await importWithOutage(['contacts', 'import', file, '--concurrency', '4', '--json'], env, token);
    await new Promise((r) => setTimeout(r, 2500));
    sb = await withSandbox({ db, port });
    const r = await run;
    expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting, Ctrl-C to stop and resume later/);
    expect(r.stderr).toMatch(/the service answers again after \d+ s; continuing/);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.rows).toBe(ROWS);
    expect(doc.failed).toBe(0);
    expect(doc.created + doc.updated + doc.unconfirmed).toBe(ROWS);
    await expectEveryContactOnce(env);
  }, 30_000);

  it('--max-outage exceeded: exit 1, the journal kept and the resume command; --resume finishes every row', async () => {
    const db = join(dir, 'sandbox.db');
    sb = await withSandbox({ db });
    const port = sb.port;
    const token = await sb.tokenWithAllScopes();
    const file = join(dir, 'contacts.csv');
    const journal = join(dir, 'contacts.journal');
    writeContacts(file);
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token, SVC_MAX_OUTAGE: '30s' };
    const { run } = await importWithOutage(
      ['contacts', 'import', file, '--concurrency', '4', '--journal', journal, '--max-outage', '2s'],
      env,
      token,
    );
    const r = await run;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting/);
    expect(r.stderr).toMatch(/cannot reach the service for longer than --max-outage \(2 s\)/);
    expect(r.stderr).toContain(`progress saved in ${journal}; once fixed, continue with: svc contacts import ${file} --resume`);
    expect(r.stdout).toMatch(/^rows\t\d+/m);
    expect(/^failed\t(\d+)/m.exec(r.stdout)?.[1]).toBe('0');

    sb = await withSandbox({ db, port });
    const again = await runCli(['contacts', 'import', file, '--concurrency', '4', '--journal', journal, '--resume', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    const doc = JSON.parse(again.stdout);
    expect(doc.rows).toBe(ROWS);
    expect(doc.failed).toBe(0);
    expect(doc.resumed).toBeGreaterThan(0);
    await expectEveryContactOnce(env);
  }, 30_000);
});
