/** The scheduler's small waiting tools: a wake-up signal and an abortable sleep. */

/** A promise that resolves when `wake()` is called (any number of waiters, one-shot per cycle). */
export class Signal {
  /** One promise shared by everyone waiting until the next wake: nothing is allocated by a wake nobody waits for. */
  private pending: Promise<void> | undefined;
  private resolvePending: (() => void) | undefined;
  wait(): Promise<void> {
    this.pending ??= new Promise((resolve) => {
      this.resolvePending = resolve;
    });
    return this.pending;
  }
  wake(): void {
    const resolve = this.resolvePending;
    if (resolve === undefined) return;
    this.pending = undefined;
    this.resolvePending = undefined;
    resolve();
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
