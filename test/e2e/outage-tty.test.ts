/**
 * An outage in a real pseudo-terminal (tmux): `svc orders import` keeps its status line, says
 * above it that the service cannot be reached and that it waits (Ctrl-C to stop and resume
 * later), then that the service answers again, and finishes with its summary, exit 0. (A run
 * that ends between two looks of the progress display still says the return: that race is tested
 * deterministically in test/commands/progress-outage.test.ts.) Skipped without tmux or a build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type RestartableSandbox, withRestartableSandbox } from '../helpers/outage.js';
import { runCli } from '../helpers/run-cli.js';
import { ordersCsv } from '../helpers/spawn-cli.js';
import { describeTty, exitOf, inSession, joinedLines, keys, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const ROWS = 120;
/**
 * The status line once the service has answered a row: the outage gate waits out an outage only
 * for a service known to be there. (`\d+ rows (` also matches the `0 rows` line drawn before the
 * first answer: stopped then, on a loaded machine, the rows failed instead of waiting.)
 */
const ANSWERED = /\b[1-9]\d* rows \([\d.,]+\/s/;

/**
 * Imports ROWS orders (`PREFIX-1`…) in a terminal at 40 ms a request, two at a time; stops the
 * sandbox once the status line counts a row done (ANSWERED), waits until the screen says it
 * waits, then hands the session to `then` (the session ends after it).
 */
async function importThroughOutage<T>(
  s: RestartableSandbox,
  prefix: string,
  then: (session: string, run: { file: string; args: string[] }) => Promise<T>,
): Promise<T> {
  const file = join(s.dir, 'orders.csv');
  writeFileSync(file, ordersCsv(ROWS, prefix));
  await s.sb.admin.setFaults({ latency_ms: 40 });
  const args = ['orders', 'import', '--live', file, '--concurrency', '2'];
  return inSession(startSvc(args, { ...s.env, ...TTY_ENV }), async (session) => {
    await waitFor(session, ANSWERED);
    await s.stop();
    await waitFor(session, /cannot reach the service since \d\d:\d\d:\d\d; waiting, Ctrl-C to stop and resume later/);
    return then(session, { file, args });
  });
}

/** Every order of the file is stored once in the (restarted) sandbox. */
async function expectEveryOrder(s: RestartableSandbox['sb'], prefix: string): Promise<void> {
  let stored = 0;
  for (let i = 1; i <= ROWS; i++) if (await s.admin.order(`${prefix}-${i}`)) stored++;
  expect(stored).toBe(ROWS);
}

describeTty('an outage on a terminal', () => {
  it('orders import: says the outage and the return above the status line, then the summary (exit 0)', async () => {
    await withRestartableSandbox('svc-outage-tty-', async (s) => {
      // Stopped once a row is done: the other rows go once the sandbox is back (without latency).
      await importThroughOutage(s, 'OT', async (session) => {
        await new Promise((r) => setTimeout(r, 1500));
        const back = await s.restart();
        const end = await exitOf(session);
        expect(end.code, end.screen).toBe(0);
        const lines = joinedLines(session, 200).join('\n');
        expect(lines).toMatch(/the service answers again after \d+ s; continuing/);
        expect(lines.indexOf('cannot reach the service')).toBeLessThan(lines.indexOf('answers again'));
        expect(end.screen).toMatch(/^rows +120$/m);
        expect(end.screen).toMatch(/^failed +0$/m);
        await expectEveryOrder(back, 'OT');
      });
    });
  }, 60_000);

  it('Ctrl-C typed while it waits: progress saved, the resume command, exit 130; --resume finishes once the service is back', async () => {
    await withRestartableSandbox('svc-outage-ctrl-c-', async (s) => {
      const { end, file, args } = await importThroughOutage(s, 'OC', async (session, run) => {
        keys(session, 'C-c');
        return { end: await exitOf(session, 15_000), ...run };
      });
      expect(end.code, end.screen).toBe(130);
      const flat = end.screen.replace(/\s+/g, ' ');
      expect(flat).toContain('progress saved in');
      expect(flat).toContain(`continue with: svc orders import ${file} --resume`);
      const back = await s.restart();
      const again = await runCli([...args, '--resume', '--json'], { env: s.env });
      expect(again.code, again.stderr).toBe(0);
      const doc = JSON.parse(again.stdout);
      expect(doc.rows).toBe(ROWS);
      expect(doc.failed).toBe(0);
      expect(doc.resumed).toBeGreaterThan(0);
      expect(doc.created + doc.updated + doc.unconfirmed).toBe(ROWS);
      await expectEveryOrder(back, 'OC');
    });
  }, 60_000);
});
