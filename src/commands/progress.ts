/**
 * Progress of a bulk command on stderr, the same for every one of them: a spinner redrawn every
 * 200 ms on a terminal; otherwise one `progress:` line every 10 s at most (CI logs;
 * SVC_PROGRESS_INTERVAL sets the period, and asks for the lines with --json too); nothing with
 * --quiet. The line itself is io/progress.ts's.
 */

import { type BulkProgress, countDataLines, type OutageState } from '../bulk/index.js';
import type { Context } from '../context.js';
import { escapeControls } from '../io/escape.js';
import { estimatedRows, fitProgress, formatDuration, outageLine, type ProgressSource, planLine, progressLine } from '../io/progress.js';

const NON_TTY_PROGRESS_MS = 10_000;

/**
 * SVC_PROGRESS_INTERVAL: seconds between two `progress:` lines outside a terminal (default 10;
 * 0 for none), undefined when unset. Bad values are said once and the default kept.
 */
function progressInterval(ctx: Context): number | undefined {
  const raw = ctx.env.SVC_PROGRESS_INTERVAL?.trim();
  if (raw === undefined || raw === '') return undefined;
  const s = Number(raw);
  if (/^\d+(\.\d+)?$/.test(raw) && s <= 86_400) return s * 1000;
  ctx.out.warn(`SVC_PROGRESS_INTERVAL: "${raw}" is not a number of seconds from 0 to 86400; progress every 10 s`);
  return NON_TTY_PROGRESS_MS;
}

/** Starts showing the progress of `src` (`unit`: rows, lines); returns the stop. */
export async function showProgress(
  ctx: Context,
  src: ProgressSource & { steadyWindow?(): { limit: number; windowMs: number } | undefined; outage?(): OutageState | undefined },
  opts: { unit: string; totalBytes: number | undefined; starting: string; countRows?: () => Promise<number> },
): Promise<() => void> {
  if (ctx.settings.quiet) return () => {};
  const interval = progressInterval(ctx);
  // --json hides notes, but waiting instead of finishing must be said: a warning. Progress lines
  // only when SVC_PROGRESS_INTERVAL asks for them (a script logging stderr).
  if (ctx.settings.json && !(interval && !ctx.policy.canAnimate)) return watchOutage(src, (line) => ctx.out.warn(line));
  const started = ctx.now();
  // The plan, once: when an answer told the service's steady window and the input's size is known.
  let planned = src.steadyWindow === undefined;
  let say = ctx.settings.json ? (line: string) => ctx.io.stderr.write(`${escapeControls(line)}\n`) : (line: string) => ctx.out.info(line);
  // The file's data lines, counted once in the background: the ETA's and the plan's row count
  // (the bytes read run ahead of the rows by a parser's chunk, which a small file is whole).
  let counted: number | undefined;
  if (opts.countRows && opts.totalBytes)
    opts.countRows().then(
      (n) => {
        counted = n;
      },
      () => undefined,
    );
  const plan = () => {
    if (planned) return clearInterval(planTimer);
    const w = src.steadyWindow?.();
    if (!w) return;
    const rows = estimatedRows(src, opts.totalBytes, counted) ?? counted;
    if (rows === undefined) return;
    planned = true;
    say(`plan: ${planLine(rows, opts.unit, w.limit, w.windowMs)} (the service's limit)`);
  };
  const text = () => progressLine(src, opts.unit, (ctx.now() - started) / 1000, opts.totalBytes, Date.now(), counted);
  const planTimer = planned ? undefined : setInterval(plan, 250);
  planTimer?.unref();
  const stopOutage = watchOutage(src, (line) => say(line));
  if (ctx.policy.canAnimate) {
    const spinner = await ctx.spinner(opts.starting);
    say = (line) => spinner.note(line);
    // The spinner's frame and a space go first; a line as wide as the terminal would wrap.
    const width = Math.max(20, (ctx.io.columns ?? 80) - 3);
    const timer = setInterval(() => spinner.update(fitProgress(text(), width)), 200);
    timer.unref();
    return () => {
      clearInterval(timer);
      clearInterval(planTimer);
      stopOutage();
      spinner.stop();
    };
  }
  const every = interval ?? NON_TTY_PROGRESS_MS;
  const timer = every > 0 ? setInterval(() => say(`progress: ${text()}`), every) : undefined;
  timer?.unref();
  return () => {
    clearInterval(timer);
    clearInterval(planTimer);
    stopOutage();
  };
}

/**
 * Says when the service stops answering (the run waits: bulk/outage.ts) and when it answers
 * again. Returns the stop.
 */
function watchOutage(src: { outage?(): OutageState | undefined }, say: (line: string) => void): () => void {
  if (!src.outage) return () => {};
  let shown: OutageState | undefined;
  const look = (stopping = false) => {
    const now = src.outage?.();
    // "waiting" is not said by a run that is ending: its summary or error says the rest.
    if (now && !shown && !stopping) say(outageLine(now.sinceEpochMs));
    else if (!now && shown)
      say(
        `the service answers again after ${formatDuration(Math.max(1, Math.round((Date.now() - shown.sinceEpochMs) / 1000)))}; continuing`,
      );
    shown = now;
  };
  const timer = setInterval(look, 250);
  timer.unref();
  // A run that finishes within a tick of the service's return still says it answered again.
  return () => {
    clearInterval(timer);
    look(true);
  };
}

/**
 * A bulk run's progress: rows, rate, share of the input read, ETA, the outcome counts in words.
 * `file`: a regular file whose rows can be counted for the plan.
 */
export function showImportProgress<O extends string>(
  ctx: Context,
  p: BulkProgress<O> & { bytesRead(): number },
  totalBytes: number | undefined,
  counts: () => string,
  words: { unit?: string; starting?: string; file?: string } = {},
): Promise<() => void> {
  const file = words.file;
  return showProgress(
    ctx,
    {
      done: () => p.summary.rows,
      resumed: () => p.summary.resumed,
      bytesRead: () => p.bytesRead(),
      rateLimited: () => p.rateLimited,
      counts,
      rowsRead: () => p.rowsRead,
      lastLine: () => p.lastLine,
      sentRate: () => p.sentRate(),
      inputDone: () => p.inputDone,
      pace: () => ({ rate: p.scheduler()?.pace, heldUntil: p.scheduler()?.heldUntil ?? 0 }),
      steadyWindow: () => p.scheduler()?.steadyWindow,
      outage: () => p.outage(),
    },
    {
      unit: words.unit ?? 'rows',
      totalBytes,
      starting: words.starting ?? 'importing…',
      countRows: file === undefined ? undefined : () => countDataLines(file),
    },
  );
}
