/** Helpers shared by the auth verbs. */
import type { Readable } from 'node:stream';
import { readAll } from '../../io/read-all.js';

export { readAll };

/** A secret read from stdin: the first line, surrounding whitespace removed (a trailing newline is normal). */
export async function readSecretFromStdin(stream: Readable): Promise<string> {
  const text = await readAll(stream);
  return (text.split(/\r?\n/).find((l) => l.trim().length > 0) ?? '').trim();
}

/** Seconds from now until an epoch-ms instant, never negative. */
export function secondsUntil(epochMs: number, now: number): number {
  return Math.max(0, Math.floor((epochMs - now) / 1000));
}
