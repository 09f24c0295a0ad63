/**
 * Whether the address has answered any request of a client (any HTTP status: a retried 429 or
 * 503, the token request's, the route probe's). A bulk run reads it to know that the address is
 * the service's before a row of its own is answered (bulk/outage.ts): an outage that begins then
 * is waited out instead of failing every row.
 */
export class FirstAnswer {
  /** The address has answered. */
  heard = false;
  private resolveHeard: () => void = () => undefined;
  private readonly answered = new Promise<void>((resolve) => {
    this.resolveHeard = resolve;
  });

  /** An answer came (cheap to call on every answer). */
  hear(): void {
    if (this.heard) return;
    this.heard = true;
    this.resolveHeard();
  }

  /** Resolves true once the address has answered (never, if it does not: nothing waits on it). */
  wait(): Promise<boolean> {
    return this.answered.then(() => true);
  }
}
