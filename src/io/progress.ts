/**
 * The one progress line of the bulk commands (orders import, contacts import, events send
 * --file): what was done, the rate, the share of the input read with an ETA, the counts so far,
 * and what limits the run when the service does. Pure: the commands' showProgress
 * (commands/progress.ts) draws it on a spinner or in log lines.
 */

/** What sets the pace of a run, when the service does (bulk/scheduler.ts's stats). */
export interface PaceInfo {
  /** The start rate in force (items/s), undefined when nothing but the concurrency limits. */
  rate: number | undefined;
  /** Starts held until then (ms, the run's clock) by a window the service closed, or 0. */
  heldUntil: number;
}

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
  /** Rows (or lines) read so far, with the bytes read: the input's size in rows is estimated from them. */
  rowsRead?(): number;
  /** This run's rate since its first row finished (rows/s), once known: better than done over elapsed, which counts the start. */
  sentRate?(): number | undefined;
  /** The line where the last row read starts (a CSV's header is line 1). */
  lastLine?(): number;
  /** The whole input has been read (rowsRead is then its size). */
  inputDone?(): boolean;
  /** The pace the service sets, if any. */
  pace?(): PaceInfo;
}

function formatRate(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/** A duration in words: `45 s`, `12 min`, `2 h 13 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return m > 0 ? `${h} h ${m} min` : `${h} h`;
}

/** `per minute`, `per second`, `per 10 s`. */
export function perWindow(windowMs: number): string {
  if (windowMs === 1000) return 'per second';
  if (windowMs === 60_000) return 'per minute';
  if (windowMs === 3_600_000) return 'per hour';
  if (windowMs === 86_400_000) return 'per day';
  return `per ${formatDuration(windowMs / 1000)}`;
}

/** The plan of a run whose window is known: `100,000 rows at 750 per minute: about 2 h 13 min`. */
export function planLine(rows: number, unit: string, limit: number, windowMs: number): string {
  const seconds = (rows * windowMs) / 1000 / limit;
  return `${rows.toLocaleString('en-US')} ${unit} at ${limit.toLocaleString('en-US')} ${perWindow(windowMs)}: about ${formatDuration(seconds)}`;
}

/**
 * The input's size in rows: exact once it has all been read; else, when the file's data lines
 * are counted (`dataLines`), those lines at the rows per line read so far (an order spans its
 * line items); else estimated from the rows and bytes read so far (at least 200 rows; the bytes
 * read run up to a parser's chunk ahead of the rows, so this one is low early in a run);
 * undefined when it cannot be told yet.
 */
export function estimatedRows(src: ProgressSource, totalBytes: number | undefined, dataLines?: number): number | undefined {
  const read = src.rowsRead?.();
  if (read === undefined) return undefined;
  if (src.inputDone?.()) return read;
  const linesRead = (src.lastLine?.() ?? 0) - 1;
  if (dataLines !== undefined && read > 0 && linesRead > 0) return Math.max(read, Math.round((dataLines * read) / linesRead));
  const bytes = src.bytesRead();
  if (!totalBytes || read < 200 || bytes <= 0 || bytes >= totalBytes) return undefined;
  return Math.round((read * totalBytes) / bytes);
}

/**
 * `1200 rows (512/s, 43%, ETA 2 s): 1100 created, …, 3 rate-limited retries`; without a size, no
 * share or ETA; when the service sets the pace, `limited by the service: 12.5 rows/s` (or, while
 * a window it closed is shut, `waiting for the service's rate-limit window`). The rate and the
 * ETA count only the rows this run sent (rows an earlier run finished go by without a request):
 * the rows left over this run's rate (never above the service's pace), after what is left of a
 * window the service closed. The share is of the rows
 * when their number is known (estimatedRows; `dataLines`: the file's counted data lines), else
 * of the bytes read.
 */
export function progressLine(
  src: ProgressSource,
  unit: string,
  elapsedSeconds: number,
  totalBytes: number | undefined,
  nowMs = Date.now(),
  dataLines?: number,
): string {
  const elapsed = Math.max(0.001, elapsedSeconds);
  const sent = src.done() - src.resumed();
  const rate = src.sentRate?.() ?? sent / elapsed;
  const pace = src.pace?.();
  const eta = etaText({ src, elapsed, rate, pace, totalBytes, nowMs, dataLines });
  const limited = src.rateLimited();
  const throttled = limited > 0 ? `, ${limited} rate-limited retries` : '';
  return `${src.done()} ${unit} (${formatRate(rate)}/s${eta}): ${src.counts()}${throttled}${paceText(pace, unit, nowMs)}`;
}

interface EtaInputs {
  src: ProgressSource;
  elapsed: number;
  rate: number;
  pace: PaceInfo | undefined;
  totalBytes: number | undefined;
  nowMs: number;
  dataLines: number | undefined;
}

/** `, 43%, ETA 2 s` once 1% is done and the size is known; else nothing. */
function etaText({ src, elapsed, rate, pace, totalBytes, nowMs, dataLines }: EtaInputs): string {
  // The share done: of the bytes read, or of the rows when they were all read first (an id list).
  const all = !totalBytes && src.inputDone?.() ? src.rowsRead?.() : undefined;
  const sized = totalBytes !== undefined && totalBytes > 0;
  if (!sized && !all) return '';
  let frac = sized ? Math.min(1, src.bytesRead() / totalBytes) : all ? src.done() / all : 0;
  if (frac <= 0.01) return '';
  const total = estimatedRows(src, totalBytes, dataLines);
  let left: number;
  if (total !== undefined && total > 0) {
    left = rowsSecondsLeft(src.done(), total, rate, pace, nowMs);
    frac = Math.min(1, src.done() / total);
  }
  // Without a row count: the share of the input read (resumed rows took no time).
  else left = Math.max(0, (elapsed / frac) * (1 - frac));
  return Number.isFinite(left) ? `, ${Math.round(frac * 100)}%, ETA ${formatDuration(left)}` : '';
}

/** Seconds until the rows left are done at this run's rate (never above the service's pace). */
function rowsSecondsLeft(done: number, total: number, rate: number, pace: PaceInfo | undefined, nowMs: number): number {
  const speed = pace?.rate !== undefined ? Math.min(rate, pace.rate) : rate;
  if (speed <= 0) return Number.POSITIVE_INFINITY;
  // A window the service closed holds every start until it reopens: that wait comes first.
  const held = pace && pace.heldUntil > nowMs ? (pace.heldUntil - nowMs) / 1000 : 0;
  return held + Math.max(0, total - done) / speed;
}

/** What the service's pace does to the run: a shut window being waited out, or the rate it allows. */
function paceText(pace: PaceInfo | undefined, unit: string, nowMs: number): string {
  if (pace && pace.heldUntil > nowMs)
    return `; waiting ${formatDuration((pace.heldUntil - nowMs) / 1000)} for the service's rate-limit window`;
  if (pace?.rate !== undefined) return `; limited by the service: ${formatRate(pace.rate)} ${unit}/s`;
  return '';
}

/**
 * A progress line within `width` (a terminal's, where the line is redrawn, so it never wraps):
 * the zero counts go first, then the retries and the service's pace say less, then the end is
 * cut with `…`.
 */
export function fitProgress(line: string, width: number): string {
  if (line.length <= width) return line;
  const [head = '', ...rest] = line.split('): ');
  const tail = rest.join('): ');
  const counts = tail
    .split(', ')
    .filter((c) => !/^0 /.test(c))
    .join(', ')
    .replace(/(\d+) rate-limited retries/, '$1 retried (429)')
    .replace(/; limited by the service: ([\d.]+) \S+\/s/, '; paced $1/s')
    .replace(/; waiting (.+) for the service's rate-limit window/, '; window shut $1');
  const short = `${head}): ${counts || tail}`;
  if (short.length <= width) return short;
  return `${short.slice(0, Math.max(1, width - 1))}…`;
}

/** The note of an outage being waited out, with the local time it began (HH:MM:SS). */
export function outageLine(sinceEpochMs: number): string {
  const d = new Date(sinceEpochMs);
  const hms = [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  return `cannot reach the service since ${hms}; waiting, Ctrl-C to stop and resume later`;
}
