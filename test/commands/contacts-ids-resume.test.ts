/**
 * `contacts unsubscribe|delete --ids-file` on the bulk engine's journal: failed ids keep the
 * journal and the printed --resume command sends only those; a killed delete resumed counts the
 * ids it had sent as deleted (their 404 is our own delete); the journal lock; an outage past
 * --max-outage stops with the resume command and the journal kept.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultJournalPath } from '../../src/bulk/journal.js';
import { dataDir } from '../../src/store/paths.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { expectStoppedPastMaxOutage, journalHasDoneRow, waitUntil, withRestartableSandbox } from '../helpers/outage.js';
import { runCli } from '../helpers/run-cli.js';
import { ensureBuilt, killWhen, spawnSvc } from '../helpers/spawn-cli.js';

const suite = cliSuite();
beforeAll(ensureBuilt);

/** Creates n contacts (one import) and writes their ids to a file; returns its path and the ids. */
async function idsFile(n: number, env: Record<string, string>, dir: string, name = 'ids.txt'): Promise<{ file: string; ids: string[] }> {
  const csv = join(dir, `${name}.csv`);
  writeFileSync(csv, `email,email_consent\n${Array.from({ length: n }, (_, i) => `p${i}@example.com,subscribed`).join('\n')}\n`);
  const imported = await runCli(['contacts', 'import', csv, '--json'], { env });
  expect(imported.code, imported.stderr).toBe(0);
  const listed = await runCli(['contacts', 'list', '--all', '--json'], { env });
  const ids = (JSON.parse(listed.stdout) as Array<{ id: string }>).map((c) => c.id);
  expect(ids).toHaveLength(n);
  const file = join(dir, name);
  writeFileSync(file, `id\n${ids.join('\n')}\n`);
  return { file, ids };
}

async function remaining(env: Record<string, string>): Promise<number> {
  return (JSON.parse((await runCli(['contacts', 'list', '--all', '--json'], { env })).stdout) as unknown[]).length;
}

describe('svc contacts unsubscribe|delete --ids-file: resume, lock', () => {
  it('failed ids keep the journal; the printed --resume command sends only those', async () => {
    const { file } = await idsFile(30, suite.env(), suite.tmp.dir);
    const journal = join(suite.tmp.dir, 'u.journal');
    await suite.sb.admin.setFaults({ rate_limits: { windows: [{ limit: 12, window_s: 60 }] } });
    const first = await runCli(['contacts', 'unsubscribe', '--ids-file', file, '--journal', journal, '--max-retry-wait', '1', '--json'], {
      env: suite.env(),
    });
    expect(first.code).toBe(4);
    const a = JSON.parse(first.stdout);
    expect(a.failed).toBe(30 - a.unsubscribed);
    expect(a.failed).toBeGreaterThan(0);
    const command = `svc contacts unsubscribe --ids-file ${file} --resume --journal ${journal}`;
    expect(JSON.parse(first.stderr).error.hint).toBe(
      `${a.failed} row(s) failed (the service did not take them); progress saved in ${journal}: send only those again with: ${command}`,
    );
    expect(existsSync(journal)).toBe(true);

    await suite.sb.admin.setFaults({});
    const second = await runCli([...command.split(' ').slice(1), '--json'], { env: suite.env() });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({
      rows: 30,
      unsubscribed: 30,
      not_found: 0,
      rejected: 0,
      failed: 0,
      resumed: a.unsubscribed,
    });
    expect(existsSync(journal)).toBe(false);
  });

  it('a killed delete, resumed: every id ends deleted (a 404 for an id the killed run sent is its own delete), none not_found', async () => {
    const total = 60;
    const { file } = await idsFile(total, suite.env(), suite.tmp.dir);
    await suite.sb.admin.setFaults({ latency_ms: 40 });
    const first = await spawnSvc(['contacts', 'delete', '--ids-file', file, '--yes', '--json'], suite.env(), {
      onSpawn: killWhen(async () => (await remaining(suite.env())) <= total - 12, 'SIGKILL', 30),
    });
    await suite.sb.admin.setFaults({});
    expect(first.signal).toBe('SIGKILL');
    const again = await runCli(['contacts', 'delete', '--ids-file', file, '--yes', '--resume', '--json'], { env: suite.env() });
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s).toMatchObject({ rows: total, deleted: total, not_found: 0, failed: 0 });
    expect(s.resumed).toBeGreaterThan(0);
    expect(await remaining(suite.env())).toBe(0);
  }, 30_000);

  it('the journal lock: a second run on the same ids file is refused while the first runs', async () => {
    const { file } = await idsFile(20, suite.env(), suite.tmp.dir);
    await suite.sb.admin.setFaults({ latency_ms: 100 });
    const running = runCli(['contacts', 'unsubscribe', '--ids-file', file, '--json'], { env: suite.env() });
    // The first run holds the lock once its journal's lock file exists (about 0.5 s of sending follows).
    const lock = `${defaultJournalPath(file, undefined, dataDir(suite.env()), 'contacts-unsubscribe')}.lock`;
    await waitUntil("the first run's journal lock", () => existsSync(lock));
    const second = await runCli(['contacts', 'unsubscribe', '--ids-file', file, '--json'], { env: suite.env() });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another import of this file is running \(pid \d+\)/);
    expect((await running).code).toBe(0);
    await suite.sb.admin.setFaults({});
    const stdin = await runCli(['contacts', 'unsubscribe', '--ids-file', '-', '--resume'], { env: suite.env(), stdin: 'ct_1\n' });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('--resume needs a file');
    const single = await runCli(['contacts', 'unsubscribe', 'ct_1', '--resume'], { env: suite.env() });
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--resume goes with --ids-file');
  });
});

describe('svc contacts unsubscribe --ids-file: an outage past --max-outage', () => {
  it('stops with exit 1, the journal kept and the exact resume command; --resume finishes every id', async () => {
    await withRestartableSandbox('svc-ids-outage-', async ({ dir, env, sb, stop, restart }) => {
      const { file } = await idsFile(80, env, dir);
      const journal = join(dir, 'ids.journal');
      // 80 ids four at a time at 100 ms each: about 2 s to stop the sandbox in, once an id is done
      // (stopped before the first answer, the ids would fail instead of waiting).
      await sb.admin.setFaults({ latency_ms: 100 });
      const running = runCli(['contacts', 'unsubscribe', '--ids-file', file, '--journal', journal, '--max-outage', '2s'], { env });
      await waitUntil('an id done in the journal', () => journalHasDoneRow(journal));
      await stop();
      const command = `svc contacts unsubscribe --ids-file ${file} --resume --journal ${journal}`;
      expectStoppedPastMaxOutage(await running, journal, command);

      await restart();
      const again = await runCli([...command.split(' ').slice(1), '--json'], { env });
      expect(again.code, again.stderr).toBe(0);
      const s = JSON.parse(again.stdout);
      expect(s).toMatchObject({ rows: 80, unsubscribed: 80, failed: 0 });
      expect(s.resumed).toBeGreaterThan(0);
    });
  }, 40_000);
});
