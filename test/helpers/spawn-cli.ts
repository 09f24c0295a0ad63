/**
 * The built CLI (`bin/svc.js`) as a child process with pipes, for the e2e tests that need a real
 * process: real stdin/stdout/stderr, signals, exit codes. `ensureBuilt()` builds once if dist/ is
 * missing (npm test builds first anyway).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { useTempDir } from './tmp.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
/** dist/ is built: bin/svc.js can run. */
export const built = existsSync(join(root, 'dist', 'main.js'));

export interface SpawnRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  /** Written to stdin, which is then closed (closed at once without it). */
  stdin?: string;
  /** Called once the child runs, with a way to signal it; may return a cleanup run when it exits. */
  onSpawn?: (kill: (signal: NodeJS.Signals) => void) => (() => void) | undefined;
}

/** Runs `svc ARGS` with PATH and `env` only (nothing else inherited), collecting its output. */
export function spawnSvc(args: string[], env: Record<string, string>, opts: SpawnOptions = {}): Promise<SpawnRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    let cleanup: (() => void) | undefined;
    child.on('close', (code, signal) => {
      cleanup?.();
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.stdin ?? '');
    cleanup = opts.onSpawn?.((s) => child.kill(s));
  });
}

/**
 * An `onSpawn` that checks `ready` every `everyMs` and sends `signal` once it holds (not at a fixed
 * time: start-up is slow on a busy machine); a check that throws counts as not yet.
 */
export function killWhen(ready: () => Promise<boolean>, signal: NodeJS.Signals, everyMs: number): NonNullable<SpawnOptions['onSpawn']> {
  return (kill) => {
    let done = false;
    const poll = setInterval(async () => {
      if (done) return;
      const now = await ready().catch(() => false);
      if (!now || done) return;
      done = true;
      clearInterval(poll);
      kill(signal);
    }, everyMs);
    return () => {
      done = true;
      clearInterval(poll);
    };
  };
}

/** Builds dist/ when it is missing (a test file run on its own on a fresh checkout). */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(join(root, 'dist', 'main.js'))) return;
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, [join(root, 'build.mjs')], { cwd: root });
}

/** A spawned `svc` left running (a sandbox, a follow), read while it runs. */
export interface RunningSvc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The first line it writes to stdout; rejects when it exits first or after `ms`. */
  firstLine(ms?: number): Promise<string>;
  /** Resolves once stderr contains `text`; rejects when it exits first or after `ms`. */
  stderrShows(text: string, ms?: number): Promise<void>;
  /** Sends `signal` (SIGTERM by default) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Resolves once `ready()` holds after output arrived on `stream`; rejects on exit or timeout. */
function waitOutput(child: ChildProcess, stream: Readable | null, ready: () => boolean, ms: number, what: string, err: () => string) {
  return new Promise<void>((resolve, reject) => {
    if (ready()) return resolve();
    const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms / 1000} s; stderr: ${err()}`)), ms);
    const check = () => {
      if (!ready()) return;
      clearTimeout(timer);
      resolve();
    };
    stream?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!ready()) reject(new Error(`exited ${code} before its ${what}; stderr: ${err()}`));
    });
  });
}

/**
 * Spawned `svc` processes for one test file, each with a fresh config folder per test
 * (`SVC_CONFIG_DIR`, and `SVC_DATA_DIR` empty, over this process's environment and `env`): after
 * each test the ones still running are killed and the folder removed.
 */
export function useRunningSvc(): { start(args: string[], env?: Record<string, string>): RunningSvc; readonly cfg: { dir: string } } {
  const children: ChildProcess[] = [];
  const cfg = useTempDir();
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  const start = (args: string[], env: Record<string, string> = {}): RunningSvc => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG_DIR: cfg.dir, SVC_DATA_DIR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return {
      child,
      stdout: () => out,
      stderr: () => err,
      firstLine: async (ms = 15_000) => {
        await waitOutput(
          child,
          child.stdout,
          () => out.includes('\n'),
          ms,
          'line on stdout',
          () => err,
        );
        return out.slice(0, out.indexOf('\n'));
      },
      stderrShows: (text, ms = 15_000) =>
        waitOutput(
          child,
          child.stderr,
          () => err.includes(text),
          ms,
          JSON.stringify(text),
          () => err,
        ),
      stop: (signal = 'SIGTERM') => {
        child.kill(signal);
        return exited;
      },
    };
  };
  return { start, cfg };
}

/** What a child wrote and how it ended, once it closed (stdout and stderr collected as they come). */
export function outputOf(proc: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> & { stderr(): string } {
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (d: Buffer) => {
    stdout += d;
  });
  proc.stderr?.on('data', (d: Buffer) => {
    stderr += d;
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return Object.assign(done, { stderr: () => stderr });
}

/** An orders CSV of `n` good rows (ids PREFIX-1…, 20 customers), header first, for bulk runs long enough to watch. */
export function ordersCsv(n: number, prefix: string): string {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= n; i++) lines.push(`${prefix}-${i},${i}.00,EUR,2024-01-01,${prefix.toLowerCase()}${i % 20}@example.com`);
  return `${lines.join('\n')}\n`;
}
