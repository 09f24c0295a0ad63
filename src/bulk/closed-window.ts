/**
 * When a long rate-limit window that 429s closed opens again (rate-controller.ts). A wait in whole
 * seconds (Retry-After rounds up) means the window reopens up to a second sooner: between `lo` and
 * `hi`. Every refusal of the same closed window (its range overlaps) narrows that range; starts are
 * held until its end, the earliest time every refusal agrees the window is open. Before, the
 * requests in flight when the window closed, refused a little later with a wait rounded up again,
 * held the run up to a second longer, and the rate learned over that time was as much too low.
 * Pure: the caller gives the time.
 */
export class ClosedWindow {
  private range: { lo: number; hi: number } | undefined;

  /**
   * A 429 at `t` asked to wait `waitMs`: until when starts are held for it, and whether it is a
   * refusal of the window already closed (`same`: a request sent before it closed, not a new
   * congestion). A refusal that ends before the closed window reopens (a shorter window's) leaves
   * the range as it is.
   */
  close(t: number, waitMs: number): { until: number; same: boolean } {
    const hi = t + waitMs;
    const lo = waitMs % 1000 === 0 ? hi - 1000 : hi;
    const c = this.range;
    if (c !== undefined && t < c.hi && lo <= c.hi && hi >= c.lo) {
      c.lo = Math.max(c.lo, lo);
      c.hi = Math.min(c.hi, hi);
      return { until: c.hi, same: true };
    }
    if (c !== undefined && t < c.hi && hi <= c.hi) return { until: c.hi, same: true };
    this.range = { lo, hi };
    return { until: hi, same: false };
  }

  /** The end of the range: starts are held until then. */
  get until(): number | undefined {
    return this.range?.hi;
  }

  /** When the window reopens, as best known (the middle of its range), or `fallback`. */
  reopensAt(fallback: number): number {
    const c = this.range;
    return c === undefined ? fallback : (c.lo + c.hi) / 2;
  }
}
