/**
 * Reads of files named by an option (a mapping file, `@file` properties, a request body) with a
 * ceiling: `--map-file /dev/zero` used to take 5 GB of memory in 20 s. Reading stops one byte past
 * the limit, so an endless source costs at most the limit.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';

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

/** A stream's bytes (stdin), at most `limit` of them; ReadLimitError as soon as there are more. */
export async function readStreamCapped(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += b.length;
    if (length > limit) throw new ReadLimitError(limit);
    chunks.push(b);
  }
  return Buffer.concat(chunks, length);
}
