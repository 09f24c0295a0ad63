/**
 * A bulk run's recent rate in rows per second, the ETA's (io/progress.ts): over the last part of
 * the run rather than all of it, so that its start (connections, token, warm-up, the first 429s
 * of a cap) does not weigh on the ETA of a long run. The window is half the time since the run's
 * first row finished, at least 2 s and at most 60 s (a service's one-minute window is seen
 * whole), or two of the service's windows when they are longer. Sampled when asked (the progress line asks every 200 ms on a terminal), at most every
 * 250 ms; samples older than two minutes are dropped. Pure: the caller gives the time.
 */
interface Sample {
  t: number;
  n: number;
}

const KEEP_MS = 120_000;

export class RecentRate {
  private firstAt: number | undefined;
  private readonly samples: Sample[] = [];

  /** A row this run sent finished at `t` (only the first call counts). */
  first(t: number): void {
    this.firstAt ??= t;
  }

  /**
   * The rate with `sent` rows finished at `now`; undefined before two rows finished. `windowMs`:
   * the service's longest rate-limit window known; the rate spans at least two of them (a window
   * that lets its rows through at once and then holds the run is seen whole).
   */
  at(sent: number, now: number, windowMs = 0): number | undefined {
    const first = this.firstAt;
    if (first === undefined || sent < 2 || now <= first) return undefined;
    const last = this.samples[this.samples.length - 1];
    if (last === undefined || now - last.t >= 250) this.samples.push({ t: now, n: sent });
    while ((this.samples[0]?.t ?? now) < now - KEEP_MS) this.samples.shift();
    const window = Math.max(2 * windowMs, Math.min(60_000, Math.max(2000, (now - first) / 2)));
    // From the latest sample at least a window old; before there is one, from the first row.
    let base: Sample = { t: first, n: 1 };
    for (const s of this.samples) {
      if (s.t > now - window) break;
      base = s;
    }
    return now > base.t ? ((sent - base.n) * 1000) / (now - base.t) : undefined;
  }
}
