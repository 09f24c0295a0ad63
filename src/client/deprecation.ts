/**
 * One warning per deprecated route: the service marks it with a Deprecation header (and maybe a
 * successor Link and a Sunset date); the user hears about it once per run, not once per request.
 */
import { deprecationNotice, type HeaderBag } from './response.js';
import type { ClientLogger } from './types.js';

/** Successors the spec names for deprecated routes (the Link header only gives a URL). */
const KNOWN_SUCCESSORS: Array<[RegExp, string]> = [
  [/^POST \/v1\/contacts\/[^/]+\/unsubscribe\/?$/, 'PATCH /v1/contacts/{id} with email_consent "unsubscribed"'],
];

export class DeprecationWarnings {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: ClientLogger) {}

  /** Warns about `route` (e.g. "POST /v1/contacts/{id}/unsubscribe") unless it was already warned about. */
  note(route: string, headers: HeaderBag): void {
    if (this.warned.has(route)) return;
    this.warned.add(route);
    const { successor, sunset } = deprecationNotice(headers);
    const parts = [`${route} is deprecated by the service`];
    const known = KNOWN_SUCCESSORS.find(([re]) => re.test(route))?.[1];
    if (known) parts.push(`use ${known} instead`);
    else if (successor) parts.push(`successor: ${successor}`);
    if (sunset) parts.push(`sunset: ${sunset}`);
    this.logger.warn(parts.join('; '));
  }
}
