/** Lines within a terminal's width (issue 30): the progress line and the hanging wrap of listings. */
import { describe, expect, it } from 'vitest';
import { fitProgress, progressLine } from '../../src/io/progress.js';
import { wrapHanging } from '../../src/io/wrap.js';

const src = (counts: string, limited = 0) => ({
  done: () => 123456,
  resumed: () => 0,
  bytesRead: () => 500,
  rateLimited: () => limited,
  counts: () => counts,
});
const COUNTS = '123000 created, 0 updated, 0 unconfirmed, 456 rejected, 0 failed';

describe('the progress line within a width', () => {
  it('keeps every count when it fits', () => {
    expect(fitProgress(progressLine(src(COUNTS), 'rows', 100, 1000), 200)).toBe(
      '123456 rows (1235/s, 50%, ETA 2 min): 123000 created, 0 updated, 0 unconfirmed, 456 rejected, 0 failed',
    );
  });

  it('drops the zero counts first, then shortens the retries, then cuts with …', () => {
    expect(fitProgress(progressLine(src(COUNTS), 'rows', 100, 1000), 77)).toBe(
      '123456 rows (1235/s, 50%, ETA 2 min): 123000 created, 456 rejected',
    );
    expect(fitProgress(progressLine(src(COUNTS, 12), 'rows', 100, 1000), 77)).toBe(
      '123456 rows (1235/s, 50%, ETA 2 min): 123000 created, 456 rejected, 12 retri…',
    );
    for (const width of [30, 50, 77])
      expect(fitProgress(progressLine(src(COUNTS, 12), 'rows', 100, 1000), width).length).toBeLessThanOrEqual(width);
  });
});

describe('wrapHanging', () => {
  it('breaks between words, continuation lines indented, none wider than the width', () => {
    const text = 'line 431 (SO-90004): rejected invalid_row: order_date: "05/04/2023" is ambiguous (day/month or month/day)';
    const lines = wrapHanging(text, 40, '  ');
    expect(lines[0]).toBe('  line 431 (SO-90004): rejected');
    expect(lines.slice(1).every((l) => l.startsWith('      ') && !l.startsWith('       '))).toBe(true);
    expect(lines.every((l) => l.length <= 40)).toBe(true);
    expect(lines.map((l) => l.trim()).join(' ')).toBe(text);
  });

  it('cuts a word longer than a line, losing nothing; no width: one line', () => {
    const long = 'x'.repeat(50);
    const lines = wrapHanging(`id ${long}`, 20, '');
    expect(lines.every((l) => l.length <= 20)).toBe(true);
    expect(lines.map((l) => l.trim()).join('')).toBe(`id${long}`);
    expect(wrapHanging('a b c', undefined, '  ')).toEqual(['  a b c']);
  });
});
