/** A logged request as the admin API shows it, and how svc prints its parts (sandbox logs, deprecations). */

import type { RequestView } from '../../sandbox/request-log/view.js';

/** A logged request, as GET /_sandbox/requests lists it (the sandbox's own view of it). */
export type LoggedRequest = RequestView;

export function credentialText(c: LoggedRequest['credential']): string {
  if (c.kind === 'none') return '-';
  if (c.kind === 'unknown_token') return 'unknown token';
  if (c.kind === 'unknown_client') return `unknown client ${c.id}`;
  return `${c.name} (${c.kind === 'api_token' ? 'API token' : 'OAuth app'})`;
}
