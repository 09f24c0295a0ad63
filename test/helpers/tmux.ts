/**
 * The built CLI in a real pseudo-terminal (tmux, from Debian's package): start a command in a
 * detached session, read the screen with capture-pane, type with send-keys. Tests using it skip
 * themselves when tmux or the build is missing (`describeTty`).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe } from 'vitest';
import { built, root } from './spawn-cli.js';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
export { built };
/** `describe`, skipped without tmux or a build. */
export const describeTty = describe.skipIf(!built || !hasTmux);
/** The environment of an interactive run on a plain terminal: not CI, no colour. */
export const TTY_ENV = { CI: '', NO_COLOR: '1' } as const;
const bin = join(root, 'bin', 'svc.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `-e NAME=value` arguments shown with the values of secret-looking names hidden (error messages). */
function shownArgs(args: string[]): string {
  return args.map((a) => a.replace(/^([A-Z_]*(?:TOKEN|SECRET|PASSWORD|KEY)[A-Z_]*)=.*$/s, '$1=[redacted]')).join(' ');
}

export function tmux(args: string[]): string {
  // Two test workers share one tmux server: a new session can reach it just as it exits with the
  // other worker's last session ("server exited unexpectedly"); the next attempt starts a new one.
  for (let attempt = 1; ; attempt++) {
    const r = spawnSync('tmux', args, { encoding: 'utf8' });
    if (r.status === 0) return r.stdout;
    if (attempt < 3 && args[0] === 'new-session' && /server exited unexpectedly/.test(r.stderr)) continue;
    throw new Error(`tmux ${shownArgs(args)}: ${r.stderr}`);
  }
}

/** The visible screen of the session. */
export function screen(session: string): string {
  return tmux(['capture-pane', '-p', '-t', session]);
}

/** Every line of the pane (with `history`, that many lines of scroll-back too), wrapped lines joined back (-J). */
export function joinedLines(session: string, history?: number): string[] {
  return tmux(['capture-pane', '-p', '-J', ...(history ? ['-S', `-${history}`] : []), '-t', session]).split('\n');
}

/** Types keys into the session (tmux send-keys: `'C-c'`, `'Enter'`, `'Tab'` or text). */
export function keys(session: string, ...typed: string[]): void {
  tmux(['send-keys', '-t', session, ...typed]);
}

/** Polls the screen until `pattern` shows (at most `ms`, 45 s unless told: a loaded machine); returns that screen. */
export async function waitFor(session: string, pattern: RegExp, ms = 45_000): Promise<string> {
  const until = Date.now() + ms;
  let shown = '';
  while (Date.now() < until) {
    shown = screen(session);
    if (pattern.test(shown)) return shown;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${pattern} in:\n${shown}`);
}

/** `svc ARGS` as a shell command line: the built binary under this node, every argument single-quoted. */
export function svcLine(args: string[]): string {
  return [process.execPath, bin, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** Starts `command` in a new detached session of the given size with `env`; returns its name (end it with killSession). */
export function startSession(
  command: string,
  env: Record<string, string>,
  size: { cols: number; rows: number } = { cols: 150, rows: 30 },
): string {
  const session = `svc-${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux(['new-session', '-d', '-s', session, '-x', String(size.cols), '-y', String(size.rows), ...envArgs, command]);
  return session;
}

/**
 * Starts a shell command line in a new session of the given size with `env`, followed by
 * `echo "EXIT=$?"` so a test can read the exit code off the screen (of the line's last command).
 * Returns the session name; end it with killSession.
 */
export function startShell(
  line: string,
  env: Record<string, string>,
  size: { cols: number; rows: number } = { cols: 150, rows: 30 },
): string {
  return startSession(`${line}; echo "EXIT=$?"; sleep 30`, env, size);
}

/** Starts `svc ARGS` (arguments are single-quoted for the shell) with startShell. */
export function startSvc(
  args: string[],
  env: Record<string, string>,
  size: { cols: number; rows: number } = { cols: 150, rows: 30 },
): string {
  return startShell(svcLine(args), env, size);
}

/**
 * Waits for the EXIT= line startSvc prints; returns the screen and the exit code. 60 s: at a load
 * of 20 on 2 cores, 400 events at 25 ms each took 38 s.
 */
export async function exitOf(session: string, ms = 60_000): Promise<{ screen: string; code: number }> {
  const shown = await waitFor(session, /EXIT=\d+/, ms);
  return { screen: shown, code: Number(/EXIT=(\d+)/.exec(shown)?.[1]) };
}

export function killSession(session: string): void {
  spawnSync('tmux', ['kill-session', '-t', session]);
}

/** Runs `use` with the session, then ends the session whatever happened. */
export async function inSession<T>(session: string, use: (session: string) => Promise<T>): Promise<T> {
  try {
    return await use(session);
  } finally {
    killSession(session);
  }
}

/**
 * Polls the screen (at most `ms`) until the count that `status` captures first has grown past
 * `seen`: a status line redrawn in place. Returns that screen (the last one read if it never grew).
 */
export async function waitForCountPast(session: string, status: RegExp, seen: number, from: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  let later = from;
  while (Date.now() < until && Number(status.exec(later)?.[1] ?? 0) <= seen) {
    await sleep(50);
    later = screen(session);
  }
  return later;
}
