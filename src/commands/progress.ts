/**
 * Progress of a bulk command on stderr, the same for every one of them: a spinner redrawn every
 * 200 ms on a terminal; otherwise one `progress:` line every 10 s at most (CI logs); nothing with
 * --json or --quiet. The line itself is io/progress.ts's.
 */
import type { Context } from '../context.js';
import { type ProgressSource, progressLine } from '../io/progress.js';

const NON_TTY_PROGRESS_MS = 10_000;

/** Starts showing the progress of `src` (`unit`: rows, lines); returns the stop. */
export async function showProgress(
  ctx: Context,
  src: ProgressSource,
  opts: { unit: string; totalBytes: number | undefined; starting: string },
): Promise<() => void> {
  if (ctx.settings.json || ctx.settings.quiet) return () => {};
  const started = ctx.now();
  const text = (width?: number) => progressLine(src, opts.unit, (ctx.now() - started) / 1000, opts.totalBytes, width);
  if (ctx.policy.canAnimate) {
    const spinner = await ctx.spinner(opts.starting);
    // The spinner's frame and a space go first; a line as wide as the terminal would wrap.
    const width = Math.max(20, (ctx.io.columns ?? 80) - 3);
    const timer = setInterval(() => spinner.update(text(width)), 200);
    timer.unref();
    return () => {
      clearInterval(timer);
      spinner.stop();
    };
  }
  const timer = setInterval(() => ctx.out.info(`progress: ${text()}`), NON_TTY_PROGRESS_MS);
  timer.unref();
  return () => clearInterval(timer);
}
