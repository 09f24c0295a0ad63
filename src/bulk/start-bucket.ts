/**
 * The start-rate cap's token bucket (rate-controller.ts): starts at `rate` per second, at most
 * `burst` at once. A start told to wait that comes late (timers firing late on a loaded machine)
 * is credited its lateness, one start at most: the rate is kept and no burst is allowed (without
 * it, a 6/s pace whose timers fired 20 ms late lost a tenth of its rate, on a service's sliding
 * window as much as the bench measured). Pure: the caller gives the time.
 */
export class StartBucket {
  private tokens = 1;
  private at: number;
  /** When the start last told to wait may go. */
  private dueAt: number | undefined;

  constructor(t: number) {
    this.at = t;
  }

  /** Milliseconds until a start is allowed (0: now). */
  delay(t: number, rate: number, burst: number): number {
    const due = this.dueAt;
    this.dueAt = undefined;
    const upTo = due !== undefined && due > this.at && due < t ? due : t;
    this.tokens = Math.min(burst, this.tokens + ((upTo - this.at) * rate) / 1000) + Math.min(1, ((t - upTo) * rate) / 1000);
    this.at = t;
    if (this.tokens >= 1) return 0;
    const wait = Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / rate));
    this.dueAt = t + wait;
    return wait;
  }

  /** A start (or a retry charged to the cap) takes a token. */
  take(): void {
    this.tokens -= 1;
  }

  /** Nothing saved up: starts from `t` on at the rate. */
  empty(t: number): void {
    this.tokens = Math.min(this.tokens, 0);
    this.at = t;
    this.dueAt = undefined;
  }

  /** At most one start at once (a new reading of the service's headers). */
  capAtOne(): void {
    if (this.tokens > 1) this.tokens = 1;
  }

  /** Starts are held (a closed window): a start due before is not late when the hold ends. */
  held(): void {
    this.dueAt = undefined;
  }
}
