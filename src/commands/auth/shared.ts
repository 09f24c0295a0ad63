/** Helpers shared by the auth verbs. */
import type { Readable } from 'node:stream';

/** Reads a stream to its end as UTF-8. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** A secret read from stdin: the first line, surrounding whitespace removed (a trailing newline is normal). */
export async function readSecretFromStdin(stream: Readable): Promise<string> {
  const text = await readAll(stream);
  return (text.split(/\r?\n/).find((l) => l.trim().length > 0) ?? '').trim();
}

/** Seconds from now until an epoch-ms instant, never negative. */
export function secondsUntil(epochMs: number, now: number): number {
  return Math.max(0, Math.floor((epochMs - now) / 1000));
}
