/**
 * The service's cap on requests in flight, learned from its refusals (rate-controller.ts asks).
 * A service with such a cap answers 429 at once to a request over it, with a Retry-After like a
 * rate window's; the refusal is told from a rate refusal by where the request stood:
 * - the 429 carries `RateLimit-Remaining` > 0: the window had room, so something else refused it;
 * - without headers: the request was sent with more requests in flight than any request that
 *   succeeded, or than the cap already learned (a rate window refuses whatever is in flight);
 *   once a rate window's 429 came first, only the latter (the retries of a window's 429s come
 *   back together, more of them in flight than ever succeeded).
 * The cap is then the requests still in flight when the refusal came (what the service counted;
 * a burst of refusals keeps the lowest): the concurrency limit comes down to it and the rate is
 * left alone. Every `probeMs` of quiet the limit probes one request more (2 s, doubling to 16 s
 * while the probes are refused); a probe that runs full that long without a refusal raises the
 * cap. Pure: the caller gives the time.
 */

/** Where a refused request stood (the scheduler knows): tells an in-flight refusal from a rate refusal. */
export interface RefusalContext {
  /** Requests in flight when the refused request was sent, itself included. */
  sentAt: number;
  /** Requests in flight when the refusal came, the refused one (and refused ones waiting) excluded. */
  active: number;
  /** `RateLimit-Remaining` of the 429 itself, when it carried one. */
  remaining?: number;
}

/** A 429 for too many requests in flight, or for a rate window. */
export type RefusalKind = 'in_flight' | 'rate';

const PROBE_MS = 2000;
const PROBE_MAX_MS = 16_000;

export class InFlightCap {
  /** The cap, once a refusal told it; refusals over it. */
  cap: number | undefined;
  refusals = 0;
  /** The most requests in flight at the sending of a request that succeeded. */
  private okInFlight = 0;
  /** When the cap was last refused, probed or changed; the quiet before the next probe; whether the probe ran full. */
  private changedAt = 0;
  private probeMs = PROBE_MS;
  private probeFull = false;
  /** A rate window refused a request before any cap was found. */
  private rateFirst = false;

  /** Whether a 429 refused the request over an in-flight cap. `longWindow`: a window over a second is known or said. */
  explains(at: RefusalContext | undefined, longWindow: boolean): boolean {
    // Alone in flight, a request is over no cap (a service's cap is at least one).
    if (at === undefined || (at.sentAt <= 1 && at.active === 0)) return false;
    if (at.remaining !== undefined) return at.remaining > 0;
    if (this.cap !== undefined && at.sentAt > this.cap) return true;
    // A long window's 429 sent with more in flight (retries coming back) is still the window's;
    // so is a 429 of a run whose first 429s were a window's (its retries come back together).
    if (longWindow || this.rateFirst) return false;
    return at.sentAt > this.okInFlight;
  }

  /** A refusal over the cap: the concurrency limit it leaves. */
  refused(at: RefusalContext, limit: number, t: number): number {
    this.refusals++;
    const probing = this.cap !== undefined && limit > this.cap;
    this.cap = Math.max(1, Math.min(this.cap ?? Number.POSITIVE_INFINITY, at.active));
    // A refused probe waits twice as long for the next.
    if (probing) this.probeMs = Math.min(PROBE_MAX_MS, this.probeMs * 2);
    this.changedAt = t;
    return Math.min(limit, this.cap);
  }

  /** A rate refusal changed the limit: the next probe waits a quiet spell from now. */
  touched(t: number): void {
    this.changedAt = t;
    if (this.cap === undefined) this.rateFirst = true;
  }

  /** A request sent with `sentAt` in flight succeeded: the concurrency limit from now (a probe, or as it was). */
  succeeded(sentAt: number | undefined, limit: number, ceiling: number, t: number): number {
    if (sentAt !== undefined && sentAt > this.okInFlight) this.okInFlight = sentAt;
    const cap = this.cap;
    if (cap === undefined) return limit;
    if (limit > cap) {
      if (sentAt !== undefined && sentAt > cap) this.probeFull = true;
      if (this.probeFull && t - this.changedAt >= this.probeMs) {
        this.cap = limit;
        this.probeMs = PROBE_MS;
        this.changedAt = t;
      }
      return limit;
    }
    if (limit === cap && limit < ceiling && t - this.changedAt >= this.probeMs) {
      this.probeFull = false;
      this.changedAt = t;
      return limit + 1;
    }
    return limit;
  }
}
