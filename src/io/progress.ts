/**
 * The one progress line of the bulk commands (orders import, contacts import, events send
 * --file): what was done, the rate, the share of the input read with an ETA, the counts so far.
 * Pure: the commands' showProgress (commands/progress.ts) draws it on a spinner or in log lines.
 */

/** What a bulk run reports while it goes. */
export interface ProgressSource {
  /** Rows (or lines) finished so far. */
  done(): number;
  /** Of those, how many an earlier run had finished (--resume): not counted in the rate. */
  resumed(): number;
  /** Bytes of the input read so far (for the share read and the ETA). */
  bytesRead(): number;
  /** Requests answered 429 so far. */
  rateLimited(): number;
  /** The outcome counts so far, in words: `3 created, 0 updated, …`. */
  counts(): string;
}

function formatRate(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/** `1200 rows (512/s, 43%, ETA 2 s): 1100 created, …, 3 rate-limited retries`; without a size, no share or ETA. */
export function progressLine(src: ProgressSource, unit: string, elapsedSeconds: number, totalBytes: number | undefined): string {
  const elapsed = Math.max(0.001, elapsedSeconds);
  const rate = (src.done() - src.resumed()) / elapsed;
  let eta = '';
  if (totalBytes && totalBytes > 0) {
    const frac = Math.min(1, src.bytesRead() / totalBytes);
    if (frac > 0.01) {
      const left = Math.max(0, (elapsed / frac) * (1 - frac));
      eta = `, ${Math.round(frac * 100)}%, ETA ${left >= 90 ? `${Math.round(left / 60)} min` : `${Math.round(left)} s`}`;
    }
  }
  const limited = src.rateLimited();
  const throttled = limited > 0 ? `, ${limited} rate-limited retries` : '';
  return `${src.done()} ${unit} (${formatRate(rate)}/s${eta}): ${src.counts()}${throttled}`;
}
