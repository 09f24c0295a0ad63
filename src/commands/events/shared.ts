/** What `events send` and `events send --file` share: the options, defaults and wording. */

import type { ImportIoOptions } from '../../bulk/index.js';
import type { RetryInfo } from '../../client/types.js';
import type { Context } from '../../context.js';

/** `events send`'s options: a single event's, and --file's (every bulk verb's input and output options). */
export interface SendOptions extends Omit<ImportIoOptions, 'plan'> {
  type?: string;
  email?: string;
  phone?: string;
  contactId?: string;
  prop?: string[];
  properties?: string;
  occurredAt?: string;
  eventId?: string;
  file?: string;
  concurrency?: number;
  unconfirmedOut?: string;
  defaultCountry?: string;
}

export const DEFAULT_CONCURRENCY = 16;
export { MAX_CONCURRENCY } from '../loader.js';

export const ACCEPTED_NOTE =
  'accepted for processing: the service took the event (HTTP 200); that does not mean a Flow or other automation ran';

/** camelCase option name → its --flag. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** A --debug line for each retry. */
export function logRetry(ctx: Context, info: RetryInfo, line?: number): void {
  const what = info.status !== undefined ? `HTTP ${info.status}` : (info.error ?? 'error');
  ctx.log.debug(`${line !== undefined ? `line ${line}: ` : ''}retrying ${info.method} ${info.path} after ${what} in ${info.delayMs} ms`);
}
