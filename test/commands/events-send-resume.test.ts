/**
 * `events send --file` on the bulk engine's journal: --resume after a killed process (the lines it
 * may have sent are reported unconfirmed, never sent again), failed lines resent by --resume
 * only, the journal lock, and the checks of --resume. Events are not idempotent: every test
 * counts the flow runs to prove that no line was stored twice.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { expectStoppedPastMaxOutage, waitUntil, withRestartableSandbox } from '../helpers/outage.js';
import { runCli } from '../helpers/run-cli.js';
import { ensureBuilt, killWhen, spawnSvc } from '../helpers/spawn-cli.js';

const suite = cliSuite();
beforeAll(ensureBuilt);

function eventsFile(n: number, type: string): string {
  const file = join(suite.tmp.dir, `${type}.ndjson`);
  writeFileSync(
    file,
    `${Array.from({ length: n }, (_, i) => JSON.stringify({ event_type: type, email: `${type}${i}@example.com` })).join('\n')}\n`,
  );
  return file;
}

/** Flow runs per contact: a contact with two got its event twice. */
async function runsPerContact(): Promise<Map<string, number>> {
  const per = new Map<string, number>();
  for (const r of await suite.sb.admin.outbox({ type: 'flow_run' })) per.set(r.contact_id, (per.get(r.contact_id) ?? 0) + 1);
  return per;
}

describe('svc events send --file --resume', () => {
  it('after a killed process: the lines it may have sent are unconfirmed and never resent; the rest are sent once', async () => {
    await suite.sb.admin.createFlow('killed');
    const total = 200;
    const file = eventsFile(total, 'killed');
    const journal = join(suite.tmp.dir, 'events.journal');
    const unconfirmed = join(suite.tmp.dir, 'unconfirmed.ndjson');
    await suite.sb.admin.setFaults({ latency_ms: 30 });
    const first = await spawnSvc(['events', 'send', '--file', file, '--journal', journal, '--concurrency', '8', '--json'], suite.env(), {
      onSpawn: killWhen(async () => (await suite.sb.admin.outbox({ type: 'flow_run' })).length >= 30, 'SIGKILL', 20),
    });
    await suite.sb.admin.setFaults({});
    expect(first.signal).toBe('SIGKILL');
    expect(existsSync(journal)).toBe(true);
    const storedBefore = (await suite.sb.admin.outbox({ type: 'flow_run' })).length;
    expect(storedBefore).toBeLessThan(total);

    const again = await runCli(
      ['events', 'send', '--file', file, '--journal', journal, '--resume', '--unconfirmed-out', unconfirmed, '--json'],
      { env: suite.env() },
    );
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.rows).toBe(total);
    expect(s.accepted + s.unconfirmed).toBe(total);
    expect(s.resumed).toBeGreaterThan(0);
    const per = await runsPerContact();
    // Never twice; every line not unconfirmed stored once.
    expect(Math.max(...per.values())).toBe(1);
    expect(per.size).toBeGreaterThanOrEqual(s.accepted);
    expect(per.size).toBeLessThanOrEqual(total);
    // The unconfirmed lines are the ones the killed run had in flight: listed, written out, not resent.
    expect(s.unconfirmed_lines).toHaveLength(s.unconfirmed);
    const written = readFileSync(unconfirmed, 'utf8').trim().split('\n').filter(Boolean);
    expect(written).toHaveLength(s.unconfirmed);
    for (const n of s.unconfirmed_lines as number[]) expect(written).toContain(readFileSync(file, 'utf8').split('\n')[n - 1]);
    expect(existsSync(journal)).toBe(false);
  }, 40_000);

  it('failed lines keep the journal and the printed --resume command sends only those, once', async () => {
    await suite.sb.admin.createFlow('failing');
    const file = eventsFile(40, 'failing');
    const journal = join(suite.tmp.dir, 'failing.journal');
    // 15 per minute, with a wait the client will not take (--max-retry-wait 1): the rest fail.
    await suite.sb.admin.setFaults({ rate_limits: { windows: [{ limit: 15, window_s: 60 }] } });
    const first = await runCli(
      ['events', 'send', '--file', file, '--journal', journal, '--max-retry-wait', '1', '--concurrency', '4', '--json'],
      { env: suite.env() },
    );
    expect(first.code).toBe(4);
    const a = JSON.parse(first.stdout);
    expect(a.failed).toBe(40 - a.accepted);
    expect(a.failed).toBeGreaterThan(0);
    const command = `svc events send --file ${file} --resume --concurrency 4 --journal ${journal}`;
    expect(a.resume_command).toBe(command);
    expect(JSON.parse(first.stderr).error.hint).toBe(
      `${a.failed} line(s) failed (certainly not processed); progress saved in ${journal}: send only those again with: ${command}`,
    );

    await suite.sb.admin.setFaults({});
    const second = await runCli([...command.split(' ').slice(1), '--json'], { env: suite.env() });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 40, accepted: 40, failed: 0, unconfirmed: 0, resumed: a.accepted });
    const per = await runsPerContact();
    expect(per.size).toBe(40);
    expect(Math.max(...per.values())).toBe(1);
    expect(existsSync(journal)).toBe(false);
  });

  it('the journal lock: a second run on the same file is refused while the first one runs; nothing sent twice', async () => {
    await suite.sb.admin.createFlow('locked');
    const file = eventsFile(60, 'locked');
    // 60 events two at a time at 50 ms each: about 1.5 s for the second run to meet the first.
    await suite.sb.admin.setFaults({ latency_ms: 50 });
    const running = runCli(['events', 'send', '--file', file, '--concurrency', '2', '--json'], { env: suite.env() });
    await waitUntil('2 flow runs', async () => (await suite.sb.admin.outbox({ type: 'flow_run' })).length >= 2);
    const second = await runCli(['events', 'send', '--file', file, '--json'], { env: suite.env() });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/another import of this file is running \(pid \d+\)/);
    const first = await running;
    await suite.sb.admin.setFaults({});
    expect(first.code, first.stderr).toBe(0);
    expect((await runsPerContact()).size).toBe(60);
    expect((await suite.sb.admin.outbox({ type: 'flow_run' })).length).toBe(60);
  });

  it('--resume needs a file and an unfinished run: stdin, a dry run and a finished run are refused (exit 2)', async () => {
    const file = eventsFile(3, 'checks');
    const stdin = await runCli(['events', 'send', '--file', '-', '--resume'], { env: suite.env(), stdin: '{}\n' });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('--resume needs a file: stdin cannot be read again');
    const dry = await runCli(['events', 'send', '--file', file, '--resume', '--dry-run'], { env: suite.env() });
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('--dry-run and --resume do not go together');
    const done = await runCli(['events', 'send', '--file', file, '--json'], { env: suite.env() });
    expect(done.code).toBe(0);
    const nothing = await runCli(['events', 'send', '--file', file, '--resume'], { env: suite.env() });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to resume');
    const single = await runCli(['events', 'send', '--type', 'x', '--email', 'a@example.com', '--resume'], { env: suite.env() });
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--resume only applies with --file');
  });
});

describe('svc events send --file: an outage past --max-outage', () => {
  it('stops with exit 1, the journal kept and the exact resume command; --resume sends the rest, none twice', async () => {
    await withRestartableSandbox('svc-events-outage-', async ({ dir, env, sb, stop, restart }) => {
      await sb.admin.createFlow('outage');
      const total = 150;
      const file = join(dir, 'events.ndjson');
      writeFileSync(
        file,
        `${Array.from({ length: total }, (_, i) => JSON.stringify({ event_type: 'outage', email: `o${i}@example.com` })).join('\n')}\n`,
      );
      const journal = join(dir, 'events.journal');
      await sb.admin.setFaults({ latency_ms: 50 });
      const running = runCli(['events', 'send', '--file', file, '--journal', journal, '--concurrency', '4', '--max-outage', '2s'], { env });
      // Stopped once events are answered (before the first answer they would fail instead of waiting).
      await waitUntil('20 flow runs', async () => (await sb.admin.outbox({ type: 'flow_run' })).length >= 20);
      await stop();
      const command = `svc events send --file ${file} --resume --concurrency 4 --journal ${journal}`;
      expectStoppedPastMaxOutage(await running, journal, command);

      const back = await restart();
      const again = await runCli([...command.split(' ').slice(1), '--json'], { env });
      expect(again.code, again.stderr).toBe(0);
      const s = JSON.parse(again.stdout);
      expect(s.rows).toBe(total);
      expect(s.accepted + s.unconfirmed).toBe(total);
      expect(s.resumed).toBeGreaterThan(0);
      const per = new Map<string, number>();
      for (const x of await back.admin.outbox({ type: 'flow_run' })) per.set(x.contact_id, (per.get(x.contact_id) ?? 0) + 1);
      expect(Math.max(...per.values())).toBe(1);
      expect(per.size).toBeGreaterThanOrEqual(s.accepted);
    });
  }, 40_000);
});
