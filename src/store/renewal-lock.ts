/**
 * One token renewal at a time per profile, across processes: processes sharing a profile (a CI
 * job's parallel steps, `xargs -P`) each renewed the access token when it came due, asking the
 * token endpoint for 25 tokens where 18 would do. The renewer holds a lock file beside the
 * credential store (`renew-<profile>.lock`, created exclusively, holding its pid); the others
 * wait briefly, then read the token it saved. A lock left by a killed process (its pid gone, or
 * older than STALE_MS) is taken over; after WAIT_MS a waiter renews on its own rather than fail.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../util/pid.js';

/** Longest wait for another process's renewal (a token request takes well under this). */
export const WAIT_MS = 10_000;
/** A lock this old is a leftover, whatever its pid says (pids are reused). */
export const STALE_MS = 30_000;
const POLL_MS = 20;

/** Releases a held lock (idempotent). */
export type ReleaseLock = () => void;

function lockPath(dir: string, profile: string): string {
  // Profile names are free text: keep the file name safe and distinct.
  return join(dir, `renew-${encodeURIComponent(profile).replace(/%/g, '_')}.lock`);
}

/** Whether the lock at `path` was left by a process that is gone (or too long ago). */
function stale(path: string, now: number): boolean {
  try {
    const age = now - statSync(path).mtimeMs;
    if (age > STALE_MS) return true;
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    // A lock just created may not hold its pid yet: not stale.
    return Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid);
  } catch {
    return false; // gone meanwhile: the next try takes it
  }
}

function tryTake(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Takes the profile's renewal lock, waiting (up to `waitMs`) while another live process holds it.
 * Resolves to its release, or to a no-op when the wait ran out, the run was aborted or the folder
 * cannot hold a lock (a read-only store): renewing twice is better than not renewing.
 */
export async function takeRenewalLock(
  dir: string,
  profile: string,
  opts: { signal?: AbortSignal; waitMs?: number; now?: () => number } = {},
): Promise<ReleaseLock> {
  const path = lockPath(dir, profile);
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.waitMs ?? WAIT_MS);
  for (;;) {
    try {
      if (tryTake(path)) {
        let held = true;
        return () => {
          if (!held) return;
          held = false;
          try {
            unlinkSync(path);
          } catch {
            /* already gone */
          }
        };
      }
    } catch {
      return () => {};
    }
    if (stale(path, now())) {
      try {
        unlinkSync(path);
      } catch {
        /* another waiter removed it first */
      }
      continue;
    }
    if (opts.signal?.aborted || now() >= deadline) return () => {};
    await sleep(POLL_MS, opts.signal);
  }
}
