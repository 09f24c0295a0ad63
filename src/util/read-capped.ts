/**
 * Reads of files named by an option (a mapping file, `@file` properties, a request body) with a
 * ceiling: `--map-file /dev/zero` used to take 5 GB of memory in 20 s. Reading stops one byte past
 * the limit, so an endless source costs at most the limit.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { openInput } from './open-input.js';

/** The service's body limit (open-points "Body size": 1 MiB, larger answers 413): no option's file can usefully be larger. */
export const SERVICE_BODY_LIMIT = 1024 * 1024;

/** A read stopped at its limit. */
export class ReadLimitError extends Error {
  constructor(readonly limit: number) {
    super(`larger than ${formatLimit(limit)}`);
    this.name = 'ReadLimitError';
  }
}

/** 1 MiB, 64 KiB, 512 bytes. */
export function formatLimit(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** A file's bytes, at most `limit` of them; ReadLimitError when there are more. Other errors are fs's. */
export function readFileCapped(path: string, limit: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(limit + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > limit) throw new ReadLimitError(limit);
    }
    return buf.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('interrupted while waiting for the input', 'AbortError');
}

/**
 * A stream's bytes (stdin), at most `limit` of them; ReadLimitError as soon as there are more.
 * With `signal`, an abort ends the wait at once (a silent stdin or a FIFO with no writer would
 * otherwise hold the run until SIGKILL): the read rejects with the abort's reason.
 */
export async function readStreamCapped(stream: Readable, limit: number, signal?: AbortSignal): Promise<Buffer> {
  if (signal?.aborted) throw abortError(signal);
  const chunks: Buffer[] = [];
  let length = 0;
  const iterator = stream[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortError(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await (signal ? Promise.race([iterator.next(), aborted]) : iterator.next());
      if (next.done) break;
      const chunk = next.value as Buffer | string;
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += b.length;
      if (length > limit) throw new ReadLimitError(limit);
      chunks.push(b);
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Interrupted: let go of the stream (stdin, a FIFO), or its open handle would keep the process
    // alive (the iterator's own return() would wait for the read that never comes).
    if (signal?.aborted) stream.destroy();
  }
  return Buffer.concat(chunks, length);
}

/**
 * A file's bytes, at most `limit` (ReadLimitError past it), for a path an option names. A regular
 * file is read at once; a FIFO or a device is read as a stream that `signal` can interrupt, so
 * `--map-file` naming a FIFO nobody writes to ends on Ctrl-C with exit 130.
 */
export async function readPathCapped(path: string, limit: number, signal?: AbortSignal): Promise<Buffer> {
  const stat = statSync(path);
  if (stat.isFile() || stat.isDirectory()) return readFileCapped(path, limit);
  const stream = await openInput(path, { signal });
  try {
    return await readStreamCapped(stream, limit, signal);
  } finally {
    stream.destroy();
  }
}

/** `-` (stdin) or a path, as an option names its input: at most `limit` bytes, interruptible by `signal`. */
export function readOptionInput(path: string, stdin: Readable, limit: number, signal?: AbortSignal): Promise<Buffer> {
  return path === '-' ? readStreamCapped(stdin, limit, signal) : readPathCapped(path, limit, signal);
}

/** An interruption (Ctrl-C, SIGTERM): to be passed on as it is, never turned into "cannot read". */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}
