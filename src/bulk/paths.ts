/**
 * Checks, before anything is opened, that a bulk run's outputs cannot destroy its inputs or each
 * other, and that each output can be written where it is asked for. `orders import big.csv
 * --report big.csv` used to replace the input with the report halfway through the import.
 */
import { accessSync, closeSync, constants, openSync, realpathSync, type Stats, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../importer/errors.js';

/** A file named on the command line, and the flag (or words) that named it. */
export interface PathUse {
  /** How the user named it: `--report`, `the input`, `the journal`… */
  what: string;
  path: string;
}

interface Identity {
  /** Device and inode of an existing file (links resolved), else the real folder and the name. */
  key: string;
  stat?: Stats;
}

function errnoReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'a part of the path is not a folder';
  return code ?? (err as Error).message;
}

function identity(path: string): Identity | undefined {
  try {
    const stat = statSync(path);
    return { key: `${stat.dev}:${stat.ino}`, stat };
  } catch {
    try {
      return { key: join(realpathSync(dirname(resolve(path))), basename(path)) };
    } catch {
      return undefined;
    }
  }
}

/** The nearest folder of `path` that exists (an output's folders are created when missing). */
function nearestFolder(path: string): string {
  let dir = dirname(resolve(path));
  for (;;) {
    try {
      statSync(dir);
      return dir;
    } catch {
      const up = dirname(dir);
      if (up === dir) return dir;
      dir = up;
    }
  }
}

/**
 * Write ends of FIFOs and pipes probed before the run, kept open until the process ends: closing
 * the probe would be the last writer going away, and the reader (`cat f`) would see end of file
 * and leave before the run opens its output. The process's exit closes them.
 */
const heldWriteEnds: number[] = [];

/**
 * Why a FIFO, socket or device cannot take output now, without waiting for anything: opening a
 * FIFO for writing blocks until a reader comes (ignoring Ctrl-C), so it is opened non-blocking,
 * where no reader is ENXIO; a device is given an empty write (/dev/full answers ENOSPC).
 */
function specialUnwritable(path: string, stat: Stats, regularOnly: boolean): string | undefined {
  if (regularOnly && !stat.isFile()) return 'it must be a regular file (it is read back to resume the run)';
  if (stat.isSocket()) return 'it is a socket: svc writes only to files, FIFOs with a reader and devices';
  if (!stat.isFIFO() && !stat.isCharacterDevice()) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO') return 'it is a FIFO (named pipe) that nothing reads: start its reader first, or give a regular file';
    return errnoReason(err);
  }
  if (stat.isFIFO()) {
    heldWriteEnds.push(fd);
    return undefined;
  }
  try {
    writeSync(fd, Buffer.alloc(0));
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOSPC' ? 'no space left on the device (ENOSPC)' : errnoReason(err);
  } finally {
    closeSync(fd);
  }
}

/** Why `output` cannot be written, or undefined when it can (as far as can be told before writing). */
function unwritable(output: PathUse, id: Identity | undefined, createFolders: boolean, regularOnly: boolean): string | undefined {
  if (id?.stat?.isDirectory()) return 'it is a folder';
  if (id?.stat && !id.stat.isFile()) {
    const why = specialUnwritable(output.path, id.stat, regularOnly);
    if (why) return why;
  }
  try {
    if (id?.stat) accessSync(output.path, constants.W_OK);
    else {
      const folder = createFolders ? nearestFolder(output.path) : dirname(resolve(output.path));
      const st = statSync(folder);
      if (!st.isDirectory()) return `${folder} is not a folder`;
      accessSync(folder, constants.W_OK);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `the folder ${dirname(output.path)} does not exist`;
    return errnoReason(err);
  }
  return undefined;
}

/**
 * Refuses (InputError, exit 2) an output that is one of the inputs (the same file by device and
 * inode: symbolic and hard links included) or another output, an empty path, and an output that
 * cannot be written (missing folder, a folder, no permission, a FIFO nothing reads, a socket, a
 * full device). Call it before opening anything: it never waits. `createFolders` lists outputs
 * whose missing folders the run creates (the default journal's); `regularFiles` those that must
 * be regular files (a journal is read back).
 */
export function checkRunPaths(
  inputs: PathUse[],
  outputs: PathUse[],
  opts: { createFolders?: string[]; regularFiles?: string[]; standard?: StandardFile[] } = {},
): void {
  for (const o of outputs) {
    if (o.path.trim() === '') throw new InputError(`${o.what} needs a file name`);
  }
  const inputIds = inputs.map((i) => ({ use: i, id: identity(i.path) }));
  const seen: Array<{ use: PathUse; id: Identity }> = [];
  for (const o of outputs) {
    const id = identity(o.path);
    if (id) {
      refuseInput(o, id, inputIds);
      refuseStandard(o, id, opts.standard);
      refuseRepeat(o, id, seen);
      seen.push({ use: o, id });
    }
    const why = unwritable(o, id, opts.createFolders?.includes(o.what) ?? false, opts.regularFiles?.includes(o.what) ?? false);
    if (why) throw new InputError(`cannot write ${o.what} ${o.path}: ${why}`);
  }
}

/** Refuses an output that is one of the inputs (or a link to it). */
function refuseInput(o: PathUse, id: Identity, inputIds: Array<{ use: PathUse; id: Identity | undefined }>): void {
  const input = inputIds.find((i) => i.id?.key === id.key);
  if (!input) return;
  const same = resolve(input.use.path) === resolve(o.path) ? '' : ' (a link to it)';
  throw new InputError(
    `${o.what} ${o.path} is ${input.use.what} ${input.use.path}${same}: writing it would destroy the input`,
    `give ${o.what} another file`,
  );
}

/** Refuses an output that is the same file as an earlier one. */
function refuseRepeat(o: PathUse, id: Identity, seen: Array<{ use: PathUse; id: Identity }>): void {
  const other = seen.find((s) => s.id.key === id.key);
  if (!other) return;
  throw new InputError(`${o.what} ${o.path} is the same file as ${other.use.what} ${other.use.path}`, `give each output its own file`);
}

/** A file svc's own standard output or error writes to (device:inode), e.g. `> out`. */
export interface StandardFile {
  name: 'stdout' | 'stderr';
  key: string;
}

/**
 * An output that is the regular file stdout or stderr already writes to (`--report /dev/stdout >
 * out`): opened again from its start, the report and the summary would be written over each
 * other. A pipe (`--report /dev/stdout | grep …`) takes both in turn, as asked; a device (a
 * terminal, /dev/null) is left alone.
 */
function refuseStandard(o: PathUse, id: Identity, standard: StandardFile[] | undefined): void {
  if (!id.stat?.isFile()) return;
  const std = standard?.find((s) => s.key === id.key);
  if (!std) return;
  throw new InputError(
    `${o.what} ${o.path} is where svc's ${std.name} goes: the summary and messages would be written into it`,
    `give ${o.what} a file of its own (the summary stays on stdout; --json makes it machine-readable)`,
  );
}

/** What an input is: a regular file can be read twice (fingerprint, resume); a FIFO or device only once. */
export function inputKind(path: string, what: string): 'file' | 'stream' {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${what} ${path}: ${errnoReason(err)}`);
  }
  if (stat.isDirectory()) throw new InputError(`${path} is a folder, not a file`);
  try {
    accessSync(path, constants.R_OK);
  } catch (err) {
    // Before anything is opened or sent: an unreadable file is the user's to fix (exit 2).
    throw new InputError(
      `cannot read ${what} ${path}: ${errnoReason(err)}`,
      "check the file's permissions (ls -l), or give a readable copy",
    );
  }
  return stat.isFile() ? 'file' : 'stream';
}
