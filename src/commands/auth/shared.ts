/** Helpers shared by the auth verbs. */
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { readAll } from '../../io/read-all.js';
import { formatLimit, ReadLimitError, readStreamCapped } from '../../util/read-capped.js';

export { readAll };

/**
 * The most a credential read from stdin may be: tokens and secrets are a few hundred characters,
 * and a service refuses request headers over some KiB anyway (the sandbox: 16 KiB, 431). Reading
 * stops one byte past it, so `--with-token < /dev/zero` ends at once instead of filling memory.
 */
export const SECRET_STDIN_LIMIT = 64 * 1024;

/** Stdin's bytes for a credential flag, at most SECRET_STDIN_LIMIT (UsageError naming the flag past it). */
export async function readCredentialStdin(stream: Readable, flag: string, signal?: AbortSignal): Promise<string> {
  try {
    return (await readStreamCapped(stream, SECRET_STDIN_LIMIT, signal)).toString('utf8');
  } catch (err) {
    if (!(err instanceof ReadLimitError)) throw err;
    throw new UsageError(
      `${flag}: stdin holds more than ${formatLimit(SECRET_STDIN_LIMIT)}, read no further: a token or secret is one short line`,
      'pipe in only the credential, e.g. `printf %s "$SECRET" | …`',
    );
  }
}

/** A secret read from stdin: the first line, surrounding whitespace removed (a trailing newline is normal). */
export async function readSecretFromStdin(stream: Readable, flag: string, signal?: AbortSignal): Promise<string> {
  const text = await readCredentialStdin(stream, flag, signal);
  return (text.split(/\r?\n/).find((l) => l.trim().length > 0) ?? '').trim();
}

/** Seconds from now until an epoch-ms instant, never negative. */
export function secondsUntil(epochMs: number, now: number): number {
  return Math.max(0, Math.floor((epochMs - now) / 1000));
}
