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

/**
 * `1200 rows (512/s, 43%, ETA 2 s): 1100 created, …, 3 rate-limited retries`; without a size, no
 * share or ETA. Within `width` (a terminal's, where the line is redrawn): the zero counts go
 * first, then the retries say less, then the end is cut with `…`, so the line never wraps.
 */
export function progressLine(
  src: ProgressSource,
  unit: string,
  elapsedSeconds: number,
  totalBytes: number | undefined,
  width = Number.POSITIVE_INFINITY,
): string {
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
  const head = `${src.done()} ${unit} (${formatRate(rate)}/s${eta})`;
  const limited = src.rateLimited();
  const counts = src.counts();
  const full = `${head}: ${counts}${limited > 0 ? `, ${limited} rate-limited retries` : ''}`;
  if (full.length <= width) return full;
  const nonZero = counts
    .split(', ')
    .filter((c) => !/^0 /.test(c))
    .join(', ');
  const short = `${head}: ${nonZero || counts}${limited > 0 ? `, ${limited} retried (429)` : ''}`;
  if (short.length <= width) return short;
  return `${short.slice(0, Math.max(1, width - 1))}…`;
}
