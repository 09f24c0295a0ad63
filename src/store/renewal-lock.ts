/**
 * One token renewal at a time per profile, across processes: processes sharing a profile (a CI
 * job's parallel steps, `xargs -P`) each renewed the access token when it came due, asking the
 * token endpoint for 25 tokens where 18 would do. The renewer holds a lock file beside the
 * credential store (`renew-<profile>.lock`, created exclusively, holding its pid); the others
 * wait briefly, then read the token it saved. A lock left by a killed process (its pid gone, or
 * older than STALE_MS) is taken over; after WAIT_MS a waiter renews on its own rather than fail.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
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

/**
 * The content of the lock at `path` when it was left by a process that is gone (or too long ago),
 * else undefined (alive, just created and not yet holding its pid, or gone meanwhile).
 */
function staleContent(path: string, now: number): string | undefined {
  try {
    const age = now - statSync(path).mtimeMs;
    const content = readFileSync(path, 'utf8');
    if (age > STALE_MS) return content;
    const pid = Number.parseInt(content, 10);
    // A lock just created may not hold its pid yet: not stale.
    return Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid) ? content : undefined;
  } catch {
    return undefined; // gone meanwhile: the next try takes it
  }
}

/**
 * Removes a lock judged stale by its `judged` content. Renamed aside first, then compared: when
 * another waiter removed it and a live process took the lock between the judgement and the
 * rename, the file renamed is that live lock, and it is put back (unless a third process holds
 * the lock by then); deleting by name could remove a live lock.
 */
export function removeStaleLock(path: string, judged: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // another waiter removed it first
  }
  let content: string | undefined;
  try {
    content = readFileSync(aside, 'utf8');
  } catch {
    content = undefined;
  }
  if (content !== judged) {
    try {
      linkSync(aside, path);
    } catch {
      /* a third process holds the lock now */
    }
  }
  rmSync(aside, { force: true });
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
    const judged = staleContent(path, now());
    if (judged !== undefined) {
      removeStaleLock(path, judged);
      continue;
    }
    if (opts.signal?.aborted || now() >= deadline) return () => {};
    await sleep(POLL_MS, opts.signal);
  }
}
