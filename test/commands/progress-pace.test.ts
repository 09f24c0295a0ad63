/** The progress line of long runs (pure): what limits the run, the ETA of a resumed run, the plan. */
import { describe, expect, it } from 'vitest';
import { formatDuration, type ProgressSource, planLine, progressLine } from '../../src/io/progress.js';

const src = (o: { done: number; resumed?: number; bytes: number; read?: number; rate?: number; heldUntil?: number }): ProgressSource => ({
  done: () => o.done,
  resumed: () => o.resumed ?? 0,
  bytesRead: () => o.bytes,
  rateLimited: () => 0,
  counts: () => `${o.done} created`,
  rowsRead: () => o.read ?? o.done,
  inputDone: () => false,
  pace: () => ({ rate: o.rate, heldUntil: o.heldUntil ?? 0 }),
});

describe('progress of long runs', () => {
  it('a resumed run: the rate and the ETA count only the rows this run sent', () => {
    // 10,000 rows in 100,000 bytes; 5,000 resumed from the journal in no time, 500 sent in 50 s.
    const line = progressLine(src({ done: 5500, resumed: 5000, bytes: 55_000, read: 5500 }), 'rows', 50, 100_000, 0);
    // 4,500 rows left at 10 rows/s: 450 s (counting resumed rows as sent would say 41 s).
    expect(line).toBe('5500 rows (10.0/s, 55%, ETA 8 min): 5500 created');
  });

  it('says when the service sets the pace, and the ETA never assumes more than that pace', () => {
    const line = progressLine(src({ done: 1000, bytes: 10_000, read: 1000, rate: 12.5 }), 'rows', 40, 100_000, 0);
    // 9,000 rows left at 12.5/s (the run measured 25/s, its first burst included): 12 min.
    expect(line).toBe('1000 rows (25.0/s, 10%, ETA 12 min): 1000 created; limited by the service: 12.5 rows/s');
  });

  it('a file read whole by the parser (bytes all read, rows not): the rows from its counted lines, not 100% and ETA 0', () => {
    const small: ProgressSource = {
      ...src({ done: 30, bytes: 20_000, read: 128, rate: 6 }),
      lastLine: () => 129,
    };
    // Without the count, only the share read is known: the whole file.
    expect(progressLine(small, 'rows', 5, 20_000, 0)).toBe(
      '30 rows (6.0/s, 100%, ETA 0 s): 30 created; limited by the service: 6.0 rows/s',
    );
    // 300 data lines at one row per line: 270 rows left at 6/s.
    expect(progressLine(small, 'rows', 5, 20_000, 0, 300)).toBe(
      '30 rows (6.0/s, 10%, ETA 45 s): 30 created; limited by the service: 6.0 rows/s',
    );
    // Orders of three lines each: 128 orders read over 382 lines, so 900 lines are 302 orders.
    const orders: ProgressSource = { ...small, lastLine: () => 383 };
    expect(progressLine(orders, 'rows', 5, 20_000, 0, 900)).toMatch(/^30 rows \(6\.0\/s, 10%, ETA 45 s\)/);
  });

  it("the ETA's rate is the run's since its first row finished (its start, token and connections, excluded)", () => {
    const started: ProgressSource = { ...src({ done: 300, bytes: 30_000, read: 300 }), sentRate: () => 20 };
    // 300 rows in 20 s of which 5 before the first answer: 20/s, not 15/s; 700 left: 35 s.
    expect(progressLine(started, 'rows', 20, 100_000, 0)).toBe('300 rows (20.0/s, 30%, ETA 35 s): 300 created');
  });

  it('while a window the service closed is shut, the ETA counts what is left of it first', () => {
    const held: ProgressSource = { ...src({ done: 60, bytes: 20_000, read: 150, rate: 6, heldUntil: 9000 }), lastLine: () => 151 };
    const line = progressLine(held, 'rows', 5, 20_000, 0, 150);
    // 9 s of the closed window, then 90 rows at 6/s: 24 s (not 15).
    expect(line).toBe("60 rows (12.0/s, 40%, ETA 24 s): 60 created; waiting 9 s for the service's rate-limit window");
  });

  it('while a window the service closed is shut, it says so', () => {
    const line = progressLine(src({ done: 300, bytes: 3000, read: 300, rate: 30, heldUntil: 7000 }), 'rows', 10, undefined, 1000);
    expect(line).toBe("300 rows (30.0/s): 300 created; waiting 6 s for the service's rate-limit window");
  });

  it('the plan of a run at a known limit', () => {
    expect(planLine(100_000, 'rows', 750, 60_000)).toBe('100,000 rows at 750 per minute: about 2 h 13 min');
    expect(planLine(100_000, 'rows', 400, 60_000)).toBe('100,000 rows at 400 per minute: about 4 h 10 min');
    expect(planLine(90, 'rows', 60, 3000)).toBe('90 rows at 60 per 3 s: about 5 s');
    expect(formatDuration(3600)).toBe('1 h');
    expect(formatDuration(89)).toBe('89 s');
  });
});
