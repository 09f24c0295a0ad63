/**
 * The lock of a resume journal, `<journal>.lock`: the pid of the run that owns it. Two runs on one
 * journal would each resend and count the other's rows.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { InputError } from '../importer/errors.js';
import { isProcessAlive } from '../util/pid.js';

/** Another live run holds the journal's lock. */
export class JournalBusyError extends InputError {
  constructor(message: string, hint: string) {
    super(message, hint);
    this.name = 'JournalBusyError';
  }
}

function readLockPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes `<journal>.lock` (it holds the pid of the run that owns the journal): two runs on one
 * journal would each resend and count the other's rows. A lock whose process is gone is taken
 * over: renamed aside first, so that of two runs taking over the same stale lock only one wins
 * (and a fresh lock renamed by mistake is put back).
 */
export function acquireLock(journalPath: string): string {
  const lockPath = `${journalPath}.lock`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLock(lockPath)) return lockPath;
    const pid = readLockPid(lockPath);
    if (pid !== undefined && isProcessAlive(pid)) {
      throw new JournalBusyError(
        `another import of this file is running (pid ${pid}); it owns the journal ${journalPath}`,
        `wait for it to finish (or stop it), then run again; if no such import runs, delete ${lockPath}`,
      );
    }
    takeOverStaleLock(lockPath, pid);
  }
  throw new InputError(`cannot take the journal lock ${lockPath}: other runs keep taking it`);
}

/** Creates the lock with this process's pid; false when it exists already. */
function createLock(lockPath: string): boolean {
  try {
    const fd = openSync(lockPath, 'wx', 0o600);
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new InputError(`cannot write the journal lock ${lockPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Removes a lock whose process (`pid`) is gone, unless another run took it over meanwhile. */
function takeOverStaleLock(lockPath: string, pid: number | undefined): void {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return; // another run took it over first: look again
  }
  if (readLockPid(aside) !== pid) {
    // Between reading it and renaming it, another run replaced the stale lock with its own.
    try {
      linkSync(aside, lockPath);
    } catch {
      /* a third run holds it now */
    }
  }
  rmSync(aside, { force: true });
}
