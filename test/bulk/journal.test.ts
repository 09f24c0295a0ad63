import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileFingerprint, Journal, type JournalIdentity } from '../../src/bulk/journal.js';
import type { RowResult } from '../../src/bulk/outcome.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function setup(): { dir: string; file: string; identity: JournalIdentity } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-journal-'));
  dirs.push(dir);
  const file = join(dir, 'orders.csv');
  writeFileSync(file, 'order_id,total\n1,2\n');
  return { dir, file, identity: { kind: 'orders', file: fileFingerprint(file), options: { initial_sync: true, map: [] } } };
}

describe('journal', () => {
  it('records finished rows and start marks durably and reads them back for --resume', async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const j = await Journal.create(path, identity);
    await j.markStarted(1);
    j.markDone({ seq: 1, line: 2, id: 'A', outcome: 'created', status: 201 });
    j.markDone({ seq: 3, line: 4, id: 'C', outcome: 'rejected', errorCode: 'invalid_row', message: 'total: bad, "x"' });
    await j.close();
    const { journal, state } = await Journal.resume(path, identity, 'hint');
    expect(state.maybeSentUpTo).toBe(256);
    expect([...state.done.values()]).toEqual([
      { seq: 1, line: 2, id: 'A', outcome: 'created', status: 201 },
      { seq: 3, line: 4, id: 'C', outcome: 'rejected', errorCode: 'invalid_row', message: 'total: bad, "x"' },
    ]);
    // appending continues the same file
    journal.markDone({ seq: 2, line: 3, id: 'B', outcome: 'updated', status: 200 });
    await journal.close();
    // header, the run's boot record, one start mark, three finished rows
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(6);
  });

  it("keeps a row's report id cells and marks (contacts import), and writes plain rows as before", async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const rows: RowResult<string>[] = [
      {
        seq: 1,
        line: 2,
        id: 'a@x.io',
        outcome: 'created',
        status: 201,
        ids: ['a@x.io', '+14155550100', 'ct_1'],
        marks: ['sms_subscribed'],
      },
      { seq: 2, line: 3, id: 'b@x.io', outcome: 'skipped', status: 409, ids: ['b@x.io', '', 'ct_2'] },
      { seq: 3, line: 4, id: 'A', outcome: 'created', status: 201 },
    ];
    const j = await Journal.create(path, identity);
    for (const r of rows) j.markDone(r);
    await j.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('\nD [3,4,"A","created",201,null,null]\n');
    // A row with report ids and nothing else: the whole array's JSON, written without building it.
    expect(text).toContain(`\nD ${JSON.stringify([2, 3, 'b@x.io', 'skipped', 409, null, null, ['b@x.io', '', 'ct_2']])}\n`);
    const { journal, state } = await Journal.resume(path, identity, 'hint');
    await journal.close();
    expect([...state.done.values()]).toEqual(rows);
  });

  it('ignores a torn last line (a kill mid-write)', async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const j = await Journal.create(path, identity);
    j.markDone({ seq: 1, line: 2, id: 'A', outcome: 'created', status: 201 });
    await j.close();
    appendFileSync(path, 'D [2,3,"B","upd');
    const { journal, state } = await Journal.resume(path, identity, 'hint');
    expect([...state.done.keys()]).toEqual([1]);
    journal.markDone({ seq: 2, line: 3, id: 'B', outcome: 'updated', status: 200 });
    await journal.close();
    const again = await Journal.resume(path, identity, 'hint');
    expect([...again.state.done.keys()]).toEqual([1, 2]);
    await again.journal.close();
  });

  it('refuses another file, other options, or no journal at all', async () => {
    const { dir, file, identity } = setup();
    const path = join(dir, 'j');
    await (await Journal.create(path, identity)).close();
    await expect(Journal.resume(path, { ...identity, options: { initial_sync: false, map: [] } }, 'hint')).rejects.toThrow(
      /different options: initial_sync was true, now false/,
    );
    writeFileSync(file, 'order_id,total\n1,3\n');
    await expect(Journal.resume(path, { ...identity, file: fileFingerprint(file) }, 'hint')).rejects.toThrow(/different file/);
    await expect(Journal.resume(join(dir, 'none'), identity, 'hint')).rejects.toThrow(/nothing to resume/);
  });

  it('writes the next start mark ahead so sending rarely waits', async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const j = await Journal.create(path, identity);
    await j.markStarted(1);
    for (let seq = 2; seq <= 200; seq++) expect(j.markStarted(seq)).toBeUndefined();
    await j.flush();
    expect(j.markStarted(300)).toBeUndefined();
    await j.remove();
    expect(() => readFileSync(path)).toThrow();
  });
});

describe('journal lock', () => {
  it('a second run on a journal in use is refused, naming the pid; the lock goes with close()', async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const first = await Journal.create(path, identity);
    expect(readFileSync(`${path}.lock`, 'utf8').trim()).toBe(String(process.pid));
    await expect(Journal.create(path, identity)).rejects.toThrow(`another import of this file is running (pid ${process.pid})`);
    await expect(Journal.resume(path, identity, 'hint')).rejects.toThrow(/another import of this file is running/);
    await first.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    const { journal } = await Journal.resume(path, identity, 'hint');
    await journal.remove();
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(existsSync(path)).toBe(false);
  });

  it('takes over a stale lock whose process is gone (a killed run)', async () => {
    const { dir, identity } = setup();
    const path = join(dir, 'j');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    writeFileSync(`${path}.lock`, `${dead}\n`);
    const j = await Journal.create(path, identity);
    expect(readFileSync(`${path}.lock`, 'utf8').trim()).toBe(String(process.pid));
    await j.close();
  });
});
