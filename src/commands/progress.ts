/**
 * Progress of a bulk command on stderr, the same for every one of them: a spinner redrawn every
 * 200 ms on a terminal; otherwise one `progress:` line every 10 s at most (CI logs); nothing with
 * --json or --quiet. The line itself is io/progress.ts's.
 */

import type { OutageState } from '../bulk/outage.js';
import type { Context } from '../context.js';
import { estimatedRows, fitProgress, formatDuration, outageLine, type ProgressSource, planLine, progressLine } from '../io/progress.js';

const NON_TTY_PROGRESS_MS = 10_000;

/** Starts showing the progress of `src` (`unit`: rows, lines); returns the stop. */
export async function showProgress(
  ctx: Context,
  src: ProgressSource & { steadyWindow?(): { limit: number; windowMs: number } | undefined; outage?(): OutageState | undefined },
  opts: { unit: string; totalBytes: number | undefined; starting: string; countRows?: () => Promise<number> },
): Promise<() => void> {
  if (ctx.settings.quiet) return () => {};
  // --json hides notes, but waiting instead of finishing must be said: a warning.
  if (ctx.settings.json) return watchOutage(src, (line) => ctx.out.warn(line));
  const started = ctx.now();
  // The plan, once: when an answer told the service's steady window and the input's size is known.
  let planned = src.steadyWindow === undefined;
  let say = (line: string) => ctx.out.info(line);
  let counted: number | undefined;
  let counting = false;
  const plan = () => {
    if (planned) return clearInterval(planTimer);
    const w = src.steadyWindow?.();
    if (!w) return;
    const rows = estimatedRows(src, opts.totalBytes) ?? counted;
    if (rows === undefined) {
      // The input's size in rows is not known from what was read yet: count its lines, once.
      if (!counting && opts.countRows) {
        counting = true;
        opts.countRows().then(
          (n) => {
            counted = n;
          },
          () => undefined,
        );
      }
      return;
    }
    planned = true;
    say(`plan: ${planLine(rows, opts.unit, w.limit, w.windowMs)} (the service's limit)`);
  };
  const text = () => progressLine(src, opts.unit, (ctx.now() - started) / 1000, opts.totalBytes);
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
  const timer = setInterval(() => ctx.out.info(`progress: ${text()}`), NON_TTY_PROGRESS_MS);
  timer.unref();
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
  const timer = setInterval(() => {
    const now = src.outage?.();
    if (now && !shown) say(outageLine(now.sinceEpochMs));
    else if (!now && shown)
      say(
        `the service answers again after ${formatDuration(Math.max(1, Math.round((Date.now() - shown.sinceEpochMs) / 1000)))}; continuing`,
      );
    shown = now;
  }, 250);
  timer.unref();
  return () => clearInterval(timer);
}
