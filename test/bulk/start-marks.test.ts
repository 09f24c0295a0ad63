/**
 * What a resumed run takes as "may have been sent" from the start marks of the earlier runs
 * (bulk/start-marks.ts): an exact verb's `X` records when that run was on this boot of the machine
 * (a killed process's writes survive in the page cache), else the fsynced window marks `S`.
 */
import { describe, expect, it } from 'vitest';
import { bootId, isThisBoot, readMarks } from '../../src/bulk/start-marks.js';

const here = bootId();

describe('start marks on resume', () => {
  it('an exact run on this boot: the exact records count, not the window written ahead', () => {
    expect(readMarks(['{}', `B ${here} exact`, 'S 256', 'X 1', 'X 2', 'X 7', 'D [1]'])).toEqual({ coveredUpTo: 256, maybeSentUpTo: 7 });
    // Killed after its window mark, before its first request: nothing sent.
    expect(readMarks(['{}', `B ${here} exact`, 'S 256'])).toEqual({ coveredUpTo: 256, maybeSentUpTo: 0 });
  });

  it('an exact run on another boot (a crash or power cut since): the fsynced window counts', () => {
    expect(readMarks(['{}', 'B 00000000-0000-4000-8000-000000000000 exact', 'S 256', 'X 7'])).toEqual({
      coveredUpTo: 256,
      maybeSentUpTo: 256,
    });
  });

  it('an upsert run, or a journal of an earlier version (no boot record): the window marks', () => {
    expect(readMarks(['{}', `B ${here}`, 'S 256', 'S 512'])).toEqual({ coveredUpTo: 512, maybeSentUpTo: 512 });
    expect(readMarks(['{}', 'S 6', 'D [1]'])).toEqual({ coveredUpTo: 6, maybeSentUpTo: 6 });
  });

  it('several runs: the highest of what each may have sent; a torn record is ignored', () => {
    const lines = ['{}', 'B 00000000-0000-4000-8000-000000000000 exact', 'S 256', 'X 40', `B ${here} exact`, 'S 512', 'X 300', 'X 3'];
    expect(readMarks(lines)).toEqual({ coveredUpTo: 512, maybeSentUpTo: 300 });
    expect(readMarks(['{}', `B ${here} exact`, 'S 256', 'X 9', 'X 1'])).toEqual({ coveredUpTo: 256, maybeSentUpTo: 9 });
    expect(readMarks(['{}', `B ${here} exact`, 'S 256', 'X 9', 'X 1x'])).toEqual({ coveredUpTo: 256, maybeSentUpTo: 9 });
  });

  it('boots: the same id, or boot times a few seconds apart (a clock adjusted a little), are one boot', () => {
    expect(isThisBoot(here)).toBe(true);
    expect(isThisBoot('t1000', 't1008')).toBe(true);
    expect(isThisBoot('t1000', 't1011')).toBe(false);
    expect(isThisBoot('t1000', '736944c2-1dee-4a87-8434-d67fa110799e')).toBe(false);
    expect(isThisBoot('tx', 'tx2')).toBe(false);
  });
});
