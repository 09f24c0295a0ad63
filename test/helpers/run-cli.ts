/**
 * Runs the CLI in-process with fake IO: real commands, real HTTP, fake terminal.
 */
import { PassThrough, Readable } from 'node:stream';
import type { IOStreams } from '../../src/io/streams.js';
import { main } from '../../src/main.js';

export interface RunOptions {
  /** Pretend every stream is a terminal (default false). */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** Text (or bytes) fed to stdin (then EOF). */
  stdin?: string | Buffer;
  /** Environment; SVC_CONFIG_DIR should point at a temporary folder. */
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  now?: () => number;
  columns?: number;
  /** Called with each piece of stderr as it is written (e.g. to time the lines). */
  onStderr?: (text: string) => void;
  /** Called with each piece of stdout as it is written (e.g. to wait for a line). */
  onStdout?: (text: string) => void;
}

/**
 * A Ctrl-C typed once a state is reached, not after a time: `reached` is asked every `everyMs`
 * (e.g. "the sandbox has stored this order") and the signal aborts once it says yes. Call
 * `stop()` when the run is over.
 */
export function ctrlCWhen(reached: () => Promise<unknown>, everyMs = 10): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const timer = setInterval(async () => {
    if (!controller.signal.aborted && (await reached())) controller.abort();
  }, everyMs);
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function fakeIO(opts: RunOptions = {}): { io: IOStreams; stdout: () => string; stderr: () => string } {
  const tty = typeof opts.tty === 'object' ? opts.tty : { stdin: opts.tty, stdout: opts.tty, stderr: opts.tty };
  const out = new PassThrough();
  const err = new PassThrough();
  // Like process.stdout/stderr: a stream piped into them (inquirer's prompt output) must not end them.
  Object.assign(out, { _isStdio: true });
  Object.assign(err, { _isStdio: true });
  let stdout = '';
  let stderr = '';
  out.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stdout += text;
    opts.onStdout?.(text);
  });
  err.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stderr += text;
    opts.onStderr?.(text);
  });
  const stdin = opts.stdin !== undefined ? Readable.from([Buffer.from(opts.stdin)]) : new PassThrough();
  if (opts.stdin === undefined) (stdin as PassThrough).end();
  return {
    io: {
      stdin,
      stdout: out,
      stderr: err,
      stdinIsTTY: tty.stdin === true,
      stdoutIsTTY: tty.stdout === true,
      stderrIsTTY: tty.stderr === true,
      columns: opts.columns ?? 120,
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** Runs `svc <argv>` in-process and returns its exit code and output. */
export async function runCli(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
  const f = fakeIO(opts);
  const code = await main(argv, { io: f.io, env: opts.env ?? {}, signal: opts.signal, now: opts.now });
  await new Promise((r) => setImmediate(r));
  return { code, stdout: f.stdout(), stderr: f.stderr() };
}

export { tempConfigDir } from './tmp.js';
