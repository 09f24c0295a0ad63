/**
 * A spinner on stderr (ora), only when animation is allowed (stderr a TTY, not CI, not --json,
 * not --quiet). Otherwise a silent stand-in, so commands call it unconditionally.
 */
import { escapeControls } from './escape.js';
import type { IOStreams } from './streams.js';

export interface Spinner {
  update(text: string): void;
  /** Prints a line above the spinner, which goes on below it. */
  note(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  stop(): void;
}

const silent: Spinner = { update() {}, note() {}, succeed() {}, fail() {}, stop() {} };

export async function startSpinner(io: IOStreams, enabled: boolean, text: string, color: boolean): Promise<Spinner> {
  if (!enabled) return silent;
  const { default: ora } = await import('ora');
  // discardStdin off: ora would put the terminal in raw mode, so Ctrl-C, Ctrl-\ and Ctrl-Z typed
  // during a long run would never become signals and the run could not be interrupted.
  const spinner = ora({
    text: escapeControls(text),
    stream: io.stderr as NodeJS.WritableStream,
    isEnabled: true,
    color: color ? 'cyan' : false,
    discardStdin: false,
  }).start();
  return {
    update: (t) => {
      spinner.text = escapeControls(t);
    },
    note: (t) => {
      spinner.clear();
      io.stderr.write(`${escapeControls(t)}\n`);
      spinner.render();
    },
    succeed: (t) => spinner.succeed(t === undefined ? t : escapeControls(t)),
    fail: (t) => spinner.fail(t === undefined ? t : escapeControls(t)),
    stop: () => spinner.stop(),
  };
}
