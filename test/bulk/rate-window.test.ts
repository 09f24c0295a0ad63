import { describe, expect, it } from 'vitest';
import { RecentRate } from '../../src/bulk/rate-window.js';

describe('RecentRate (the ETA rate)', () => {
  it('undefined before two rows; then from the first row finished (the start before it not counted)', () => {
    const r = new RecentRate();
    expect(r.at(0, 1000)).toBeUndefined();
    r.first(5000);
    expect(r.at(1, 5000)).toBeUndefined();
    // 11 rows, the 10 after the first in 1 s: 10/s (not 11 over the 6 s since the start).
    expect(r.at(11, 6000)).toBe(10);
  });

  it('over the recent half of the run (2 s to 60 s): a slow start weighs nothing once it is old', () => {
    const r = new RecentRate();
    r.first(0);
    let sent = 1;
    // 10 s at 5 rows/s (warm-up), then 10 s at 20 rows/s, asked every 250 ms as a terminal does.
    for (let t = 250; t <= 20_000; t += 250) {
      sent += t <= 10_000 ? 1.25 : 5;
      r.at(Math.round(sent), t);
    }
    // Over the whole run: about 12.5/s; over its last 10 s: 20/s.
    expect(r.at(Math.round(sent), 20_000)).toBeCloseTo(20, 0);
  });

  it('never over more than the last minute', () => {
    const r = new RecentRate();
    r.first(0);
    let sent = 1;
    for (let t = 250; t <= 600_000; t += 250) {
      sent += t <= 500_000 ? 10 : 2.5;
      r.at(Math.round(sent), t);
    }
    // 40/s for 500 s then 10/s for the last 100 s: the last minute says 10/s.
    expect(r.at(Math.round(sent), 600_000)).toBeCloseTo(10, 0);
  });

  it("spans two of the service's windows when they are longer: a window's rows at once, then a wait, is its rate", () => {
    const r = new RecentRate();
    r.first(0);
    // 60 rows per 10 s, all at the start of each window; asked every 250 ms for 25 s.
    let sent = 60;
    for (let t = 250; t <= 25_000; t += 250) {
      if (t % 10_000 === 0) sent += 60;
      r.at(sent, t, 10_000);
    }
    // Half the run (12.5 s) holds one window's rows: 4.8/s; two whole windows: 6/s.
    expect(r.at(sent, 25_000)).toBeCloseTo(4.8, 1);
    expect(r.at(sent, 25_000, 10_000)).toBeCloseTo(6, 1);
  });
});
