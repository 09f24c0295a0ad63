import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { ctrlCWhen, runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

function writeOrders(path: string, n: number, opts: { invalidEvery?: number; repeatEvery?: number } = {}): void {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= n; i++) {
    if (opts.invalidEvery && i % opts.invalidEvery === 0) lines.push(`X-${i},not-a-number,EUR,2024-01-01,x@example.com`);
    else if (opts.repeatEvery && i % opts.repeatEvery === 0) lines.push(`R-${i - 1},${i}.00,EUR,2024-01-01,c${i % 50}@example.com`);
    else lines.push(`R-${i},${i}.00,EUR,2024-01-01,c${i % 50}@example.com`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/**
 * An import of `file` with its journal at `journal`, interrupted (Ctrl-C) once the
 * service has stored R-3: a state, not a time (a Ctrl-C 150 ms after the start came, at load 8,
 * before the journal was made). 50 rows 2 at a time at 20 ms each leave it about half a second.
 */
async function interruptedImport(file: string, journal: string): Promise<void> {
  await suite.sb.admin.setFaults({ latency_ms: 20 });
  const ctrlC = ctrlCWhen(() => suite.sb.admin.order('R-3'));
  const r = await runCli(['orders', 'import', '--live', file, '--journal', journal, '--concurrency', '2'], {
    env: env(),
    signal: ctrlC.signal,
  });
  ctrlC.stop();
  await suite.sb.admin.setFaults({});
  expect(r.code).toBe(130);
}

describe('svc orders import: interruption and --resume', () => {
  it('Ctrl-C saves progress and exits 130 with the resume command; --resume finishes with the totals of one run', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const report = join(suite.tmp.dir, 'report.csv');
    writeOrders(file, 400, { invalidEvery: 37, repeatEvery: 11 });
    await suite.sb.admin.setFaults({ latency_ms: 10 });
    const ctrlC = ctrlCWhen(() => suite.sb.admin.order('R-150'), 20);
    const first = await runCli(['orders', 'import', file, '--initial-sync', '--report', report, '--concurrency', '8'], {
      env: env(),
      signal: ctrlC.signal,
    });
    ctrlC.stop();
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(/interrupted after \d+ finished row/);
    expect(first.stderr).toContain(`continue with: svc orders import ${file} --resume --initial-sync --concurrency 8 --report ${report}`);

    // Another file or other options are refused.
    const other = await runCli(['orders', 'import', '--live', file, '--resume', '--report', report], { env: env() });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/different options: initial_sync was true, now false/);

    await suite.sb.admin.setFaults({});
    const second = await runCli(['orders', 'import', file, '--initial-sync', '--report', report, '--resume', '--json'], { env: env() });
    expect(second.code).toBe(4);
    const s = JSON.parse(second.stdout);
    // The uninterrupted run: 400 rows, 10 invalid, 35 repeats (updates), 355 creates. Rows the first
    // run may have sent but not recorded are sent again and count as unconfirmed when they answer 200.
    expect(s.rows).toBe(400);
    expect(s.rejected).toBe(10);
    expect(s.failed).toBe(0);
    expect(s.created + s.updated + s.unconfirmed).toBe(390);
    expect(s.created).toBeLessThanOrEqual(355);
    expect(s.updated).toBeLessThanOrEqual(35);
    expect(s.created + s.unconfirmed).toBeGreaterThanOrEqual(355);
    expect(s.resumed).toBeGreaterThan(50);
    expect(s.resumed).toBeLessThan(400);
    const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(401);
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(Array.from({ length: 400 }, (_, i) => i + 2));
    for (let i = 1; i <= 400; i++) if (i % 37 !== 0 && i % 11 !== 0) expect(await suite.sb.admin.order(`R-${i}`), `R-${i}`).toBeDefined();
    // Finished: the journal is gone, so resuming again has nothing to do.
    const again = await runCli(['orders', 'import', file, '--initial-sync', '--report', report, '--resume'], { env: env() });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/nothing to resume/);
  });

  it('refuses to resume from a journal made from a different file', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const journal = join(suite.tmp.dir, 'j.journal');
    writeOrders(file, 50);
    await interruptedImport(file, journal);
    writeOrders(file, 51);
    const r = await runCli(['orders', 'import', '--live', file, '--journal', journal, '--resume'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/different file/);
  });
});

describe('svc orders import: a run that cannot start leaves no journal', () => {
  it('without credentials: exit 3, no journal, and the next run does not warn about an unfinished import', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    writeOrders(file, 5);
    const journalsDir = join(suite.tmp.dir, 'data', 'journals');
    const r = await runCli(['orders', 'import', '--live', file], {
      env: { SVC_CONFIG_DIR: suite.tmp.dir, SVC_BASE_URL: suite.sb.baseUrl },
    });
    expect(r.code).toBe(3);
    expect(existsSync(journalsDir) ? readdirSync(journalsDir) : []).toEqual([]);
    const ok = await runCli(['orders', 'import', '--live', file], { env: env() });
    expect(ok.code).toBe(0);
    expect(ok.stderr).not.toMatch(/unfinished import/);
  });

  it('when the report cannot be written, the journal of an earlier unfinished run is kept', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const journal = join(suite.tmp.dir, 'j.journal');
    writeOrders(file, 50);
    await interruptedImport(file, journal);
    const before = readFileSync(journal, 'utf8');
    const bad = await runCli(
      ['orders', 'import', '--live', file, '--journal', journal, '--report', join(suite.tmp.dir, 'no-such-dir', 'r.csv')],
      {
        env: env(),
      },
    );
    expect(bad.code).not.toBe(0);
    expect(readFileSync(journal, 'utf8')).toBe(before);
    const resumed = await runCli(['orders', 'import', '--live', file, '--journal', journal, '--resume', '--json'], { env: env() });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 50, failed: 0, rejected: 0 });
  });

  it('when the report cannot be written: a new journal is removed', async () => {
    const file = join(suite.tmp.dir, 'orders.csv');
    const journal = join(suite.tmp.dir, 'j.journal');
    writeOrders(file, 5);
    const r = await runCli(
      ['orders', 'import', '--live', file, '--journal', journal, '--report', join(suite.tmp.dir, 'no-such-dir', 'r.csv')],
      {
        env: env(),
      },
    );
    expect(r.code).not.toBe(0);
    expect(existsSync(journal)).toBe(false);
    expect(await suite.sb.admin.order('R-1')).toBeUndefined();
  });
});
