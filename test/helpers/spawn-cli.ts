/**
 * The built CLI (`bin/svc.js`) as a child process with pipes, for the e2e tests that need a real
 * process: real stdin/stdout/stderr, signals, exit codes. `ensureBuilt()` builds once if dist/ is
 * missing (npm test builds first anyway).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');

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

/** Builds dist/ when it is missing (a test file run on its own on a fresh checkout). */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(join(root, 'dist', 'main.js'))) return;
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, [join(root, 'build.mjs')], { cwd: root });
}
