/**
 * IOStreams: the three standard streams with their TTY flags, as in gh's iostreams. Commands
 * write through this, never to process.*, so tests can run them in-process with fake streams.
 */
import { fstatSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';

const fdIsTTY = (fd: number): boolean => isatty(fd);

export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for tables, when stdout is a TTY. */
  columns?: number;
  /**
   * The files stdout and stderr write to, by device and inode (a bulk run refuses a report that
   * is one of them); absent when the streams are not the process's (tests).
   */
  standardFiles?: () => Array<{ name: 'stdout' | 'stderr'; key: string }>;
}

/** The real process streams. Only main.ts/bin call this. */
export function systemStreams(proc: NodeJS.Process): IOStreams {
  // process.stdin is created on first access, which costs start-up time: only touch it when used.
  return {
    get stdin() {
      return proc.stdin;
    },
    stdout: proc.stdout,
    stderr: proc.stderr,
    get stdinIsTTY() {
      return fdIsTTY(0);
    },
    stdoutIsTTY: proc.stdout.isTTY === true,
    stderrIsTTY: proc.stderr.isTTY === true,
    columns: proc.stdout.columns,
    standardFiles: () =>
      (
        [
          [1, 'stdout'],
          [2, 'stderr'],
        ] as const
      ).flatMap(([fd, name]) => {
        try {
          const st = fstatSync(fd);
          return [{ name, key: `${st.dev}:${st.ino}` }];
        } catch {
          return [];
        }
      }),
  };
}

/** True when the environment says we run in CI (any non-empty, non-"false" CI variable). */
export function isCI(env: Record<string, string | undefined>): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

export interface TerminalPolicy {
  /** Prompts only when stdin and stderr are terminals, not in CI, not with --json. */
  canPrompt: boolean;
  /**
   * Spinners/progress redraws on stderr: stderr a TTY, not CI, not --json, not --quiet, and not
   * TERM=dumb (a terminal that cannot move the cursor back gets progress lines instead).
   */
  canAnimate: boolean;
  /** Human tables on stdout. */
  humanStdout: boolean;
  /** ANSI colour on stderr/stdout. */
  color: boolean;
}

export function terminalPolicy(
  io: IOStreams,
  env: Record<string, string | undefined>,
  opts: { json: boolean; quiet: boolean; color: boolean },
): TerminalPolicy {
  const ci = isCI(env);
  const noColorEnv = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return {
    canPrompt: io.stdinIsTTY && io.stderrIsTTY && !ci && !opts.json,
    canAnimate: io.stderrIsTTY && !ci && !opts.json && !opts.quiet && env.TERM !== 'dumb',
    humanStdout: io.stdoutIsTTY && !opts.json,
    color: opts.color && !noColorEnv && !opts.json && (io.stdoutIsTTY || io.stderrIsTTY) && env.TERM !== 'dumb',
  };
}
