/**
 * The engine's rule for verbs that must never send a row twice (events): each row's start is in
 * the journal before its request (an exact `X` record, beside the fsynced window marks), and a resumed run finishes
 * the rows the earlier run may have sent with the verb's `possiblySent` result instead of sending
 * them again. The upsert verbs (no possiblySent) keep the write-ahead window and resend.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileFingerprint, Journal, type JournalIdentity } from '../../src/bulk/journal.js';
import type { RowResult } from '../../src/bulk/outcome.js';
import { createBulkRun, type WorkItem } from '../../src/bulk/run.js';

let dir: string;
let identity: JournalIdentity;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-possibly-sent-'));
  const input = join(dir, 'in.ndjson');
  writeFileSync(input, '{}\n');
  identity = { kind: 'events', file: fileFingerprint(input), options: {} };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const items = (n: number): WorkItem[] => Array.from({ length: n }, (_, i) => ({ seq: i + 1, line: i + 1, lines: 1, id: `r${i + 1}` }));
const ok = (w: WorkItem): RowResult<string> => ({ seq: w.seq, line: w.line, id: w.id, outcome: 'accepted', status: 200 });
const unconfirmed = (w: WorkItem): RowResult<string> => ({
  seq: w.seq,
  line: w.line,
  id: w.id,
  outcome: 'unconfirmed',
  errorCode: 'unanswered',
});
const marks = (path: string, kind = 'S') =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${kind} `))
    .map((l) => Number(l.slice(2)));

function run(
  rows: WorkItem[],
  opts: { journal: Journal; resume?: Awaited<ReturnType<typeof Journal.resume>>['state']; exact: boolean; stopAfter?: number },
) {
  const sent: number[] = [];
  const abort = new AbortController();
  const job = createBulkRun<WorkItem, string>({
    outcomes: ['accepted', 'unconfirmed', 'rejected', 'failed'],
    rows: (async function* () {
      yield rows;
    })(),
    concurrency: 4,
    signal: abort.signal,
    journal: opts.journal,
    resume: opts.resume,
    ...(opts.exact ? { possiblySent: unconfirmed } : {}),
    async send(w) {
      sent.push(w.seq);
      if (opts.stopAfter !== undefined && sent.length === opts.stopAfter) abort.abort();
      await new Promise((r) => setTimeout(r, 2));
      return ok(w);
    },
  });
  return { sent, result: job.run() };
}

describe('bulk run: rows that must never be sent twice (possiblySent)', () => {
  it('names every row started in an exact record before sending it, beside fsynced window marks far fewer than rows', async () => {
    const path = join(dir, 'j');
    const journal = await Journal.create(path, identity);
    const { sent, result } = run(items(40), { journal, exact: true });
    await result;
    await journal.close();
    const x = marks(path, 'X');
    expect(sent).toHaveLength(40);
    // One exact record per row, in the order started, the last one the last row: nothing ahead.
    expect(x).toEqual(sent);
    expect(Math.max(...x)).toBe(40);
    // The fsynced window: one mark covers many rows.
    expect(marks(path).length).toBeLessThanOrEqual(2);
    expect(Math.max(...marks(path))).toBeGreaterThanOrEqual(40);
    // The run's boot record comes first, and says the run was exact.
    const records = readFileSync(path, 'utf8').split('\n').slice(1);
    expect(records[0]).toMatch(/^B \S+ exact$/);
  });

  it('an upsert verb (no possiblySent) keeps marking a window ahead', async () => {
    const path = join(dir, 'j');
    const journal = await Journal.create(path, identity);
    await run(items(10), { journal, exact: false }).result;
    await journal.close();
    expect(Math.max(...marks(path))).toBeGreaterThan(10);
  });

  it('on resume, a row started but not recorded finishes unconfirmed and is not sent; failed rows are sent again; the rest are sent', async () => {
    const path = join(dir, 'j');
    // What a killed run leaves: rows 1-6 started (the mark), 1, 2 and 4 answered, 3 failed; 5 and 6 in flight.
    const first = await Journal.create(path, identity);
    await first.markStartedExact(6);
    first.markDone(ok(items(1)[0] as WorkItem));
    first.markDone(ok(items(2)[1] as WorkItem));
    first.markDone({ seq: 3, line: 3, id: 'r3', outcome: 'failed', errorCode: 'network_refused' });
    first.markDone(ok(items(4)[3] as WorkItem));
    await first.close();

    const opened = await Journal.resume(path, identity, 'hint');
    expect(opened.state.maybeSentUpTo).toBe(6);
    const { sent, result } = run(items(10), { journal: opened.journal, resume: opened.state, exact: true });
    const r = await result;
    await opened.journal.close();
    expect(sent.sort((a, b) => a - b)).toEqual([3, 7, 8, 9, 10]);
    expect(r.summary).toMatchObject({ rows: 10, accepted: 8, unconfirmed: 2, resumed: 3 });

    // A second resume keeps them unconfirmed (recorded now), and sends nothing.
    const again = await Journal.resume(path, identity, 'hint');
    const second = run(items(10), { journal: again.journal, resume: again.state, exact: true });
    const r2 = await second.result;
    await again.journal.close();
    expect(second.sent).toEqual([]);
    expect(r2.summary).toMatchObject({ rows: 10, accepted: 8, unconfirmed: 2, resumed: 10 });
  });

  it('Ctrl-C: the rows started settle and are recorded, so a resume sends exactly the others, none twice', async () => {
    const path = join(dir, 'j');
    const journal = await Journal.create(path, identity);
    const first = run(items(30), { journal, exact: true, stopAfter: 5 });
    const r1 = await first.result;
    await journal.close();
    expect(r1.interrupted).toBe(true);
    const opened = await Journal.resume(path, identity, 'hint');
    const second = run(items(30), { journal: opened.journal, resume: opened.state, exact: true });
    const r2 = await second.result;
    await opened.journal.close();
    expect([...first.sent, ...second.sent].sort((a, b) => a - b)).toEqual(items(30).map((w) => w.seq));
    expect(r2.summary).toMatchObject({ rows: 30, accepted: 30, unconfirmed: 0, resumed: first.sent.length });
  });
});
