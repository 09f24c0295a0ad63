import { describe, expect, it } from 'vitest';
import { StartBucket } from '../../src/bulk/start-bucket.js';

describe('StartBucket (the start-rate cap)', () => {
  it('a start told to wait that comes late is credited its lateness: the rate is kept', () => {
    const b = new StartBucket(0);
    // 6 per second, one start at most at once.
    let t = 0;
    let starts = 0;
    // The caller looks again only every 20 ms (a loaded event loop): 166.7 ms become 180 ms without the credit.
    while (t < 60_000) {
      if (b.delay(t, 6, 1) === 0) {
        b.take();
        starts++;
      }
      t += 20;
    }
    expect(starts).toBeGreaterThanOrEqual(359);
    expect(starts).toBeLessThanOrEqual(361);
  });

  it('the credit is one start at most: a long stall is not a burst', () => {
    const b = new StartBucket(0);
    expect(b.delay(0, 6, 1)).toBe(0);
    b.take();
    const wait = b.delay(0, 6, 1);
    expect(wait).toBe(167);
    // Back 10 s later (a stalled machine): the start due, one more credited, then the rate again.
    expect(b.delay(10_000, 6, 1)).toBe(0);
    b.take();
    expect(b.delay(10_000, 6, 1)).toBe(0);
    b.take();
    expect(b.delay(10_000, 6, 1)).toBeGreaterThan(0);
  });

  it('a hold (a closed window) clears the credit: no pair into the reopened window', () => {
    const b = new StartBucket(0);
    b.take();
    expect(b.delay(0, 6, 1)).toBe(167);
    b.held();
    // The hold ends at 5 s: one start, not two.
    expect(b.delay(5000, 6, 1)).toBe(0);
    b.take();
    expect(b.delay(5000, 6, 1)).toBeGreaterThan(0);
  });
});
