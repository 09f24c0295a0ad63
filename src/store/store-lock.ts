/**
 * One writer of the credential store at a time, across processes: every change is read, changed
 * and written while holding `credentials.lock` beside the file (created exclusively, holding its
 * pid). Without it, 20 concurrent `svc auth login --profile pN` each read the file, added their
 * profile and wrote it back over the others' (7 to 18 of 20 profiles lost). A lock left by a
 * killed process (its pid gone, or older than STALE_MS) is taken over. The lock is re-entrant in
 * one process, so a step holding it (choosing and reserving a seeded profile) may call the
 * store's own writes.
 */
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from '../util/pid.js';
import { StoreError } from './errors.js';
import { removeStaleLock } from './renewal-lock.js';

/** Longest wait for another process's write (a write takes milliseconds; a seed's choice, seconds). */
export const STORE_LOCK_WAIT_MS = 30_000;
/** A lock this old is a leftover, whatever its pid says (pids are reused). */
const STALE_MS = 60_000;
const POLL_MS = 5;

/** How many times this process holds each folder's lock (re-entrant). */
const held = new Map<string, number>();

export function storeLockPath(dir: string): string {
  return join(dir, 'credentials.lock');
}

function stale(path: string): string | undefined {
  try {
    const age = Date.now() - statSync(path).mtimeMs;
    const content = readFileSync(path, 'utf8');
    if (age > STALE_MS) return content;
    const pid = Number.parseInt(content, 10);
    return Number.isInteger(pid) && pid > 0 && !isProcessAlive(pid) ? content : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock if free (or stale): true when taken. */
function tryTake(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const judged = stale(path);
    if (judged !== undefined) removeStaleLock(path, judged);
    return false;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

function release(dir: string, path: string): void {
  const depth = (held.get(dir) ?? 1) - 1;
  if (depth > 0) {
    held.set(dir, depth);
    return;
  }
  held.delete(dir);
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

function busy(path: string): StoreError {
  return new StoreError(
    'locked',
    path,
    `the credential store is locked by another svc process (${path}) for more than ${STORE_LOCK_WAIT_MS / 1000} s`,
  );
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Runs `fn` holding the store's lock, waiting synchronously for another process to finish its write. */
export function withStoreLockSync<T>(dir: string, fn: () => T): T {
  const path = storeLockPath(dir);
  if (!held.has(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const deadline = Date.now() + STORE_LOCK_WAIT_MS;
    while (!tryTake(path)) {
      if (Date.now() >= deadline) throw busy(path);
      Atomics.wait(pause, 0, 0, POLL_MS);
    }
  }
  held.set(dir, (held.get(dir) ?? 0) + 1);
  try {
    return fn();
  } finally {
    release(dir, path);
  }
}

/** Runs the async `fn` holding the store's lock (the event loop keeps running while it waits). */
export async function withStoreLock<T>(dir: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const path = storeLockPath(dir);
  if (!held.has(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const deadline = Date.now() + STORE_LOCK_WAIT_MS;
    while (!tryTake(path)) {
      signal?.throwIfAborted();
      if (Date.now() >= deadline) throw busy(path);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 4));
    }
  }
  held.set(dir, (held.get(dir) ?? 0) + 1);
  try {
    return await fn();
  } finally {
    release(dir, path);
  }
}
