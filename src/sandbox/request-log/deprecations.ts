/**
 * Deprecated or removed usages the contract names (spec "Versioning" and its change history),
 * recognised in each request, and their tally per credential (first and last seen, count, an
 * example request id) for GET /_sandbox/deprecations.
 */
import type { Credential } from './ring.js';

export interface DeprecationRule {
  /** `deprecated`: still works; `removed`: answered 400 (or ignored) by the service today. */
  status: 'deprecated' | 'removed';
  what: string;
  replacement: string;
  /** The change history's date, when it names one. */
  since: string | null;
}

/** Every usage the contract names as deprecated or removed, by code. */
export const DEPRECATIONS = {
  unsubscribe_endpoint: {
    status: 'deprecated',
    what: 'POST /v1/contacts/{id}/unsubscribe, the deprecated unsubscribe endpoint',
    replacement: 'PATCH /v1/contacts/{id} with {"email_consent": "unsubscribed"}',
    since: '2026-05-12',
  },
  scopes_parameter: {
    status: 'deprecated',
    what: 'the token request parameter spelled `scopes`',
    replacement: 'the parameter `scope` (space-separated scope names)',
    since: null,
  },
  non_subscribed_value: {
    status: 'removed',
    what: 'the consent value `non_subscribed`',
    replacement: '`never_subscribed`',
    since: '2026-05-12',
  },
  email_permission_parameter: {
    status: 'removed',
    what: 'the filter parameter `email_permission`',
    replacement: 'the filter parameter `email_consent`',
    since: '2026-05-12',
  },
  phone_permission_parameter: {
    status: 'removed',
    what: 'the filter parameter `phone_permission`',
    replacement: 'the filter parameter `sms_consent`',
    since: '2026-05-12',
  },
  email_permission_field: {
    status: 'removed',
    what: 'the contact field `email_permission`',
    replacement: 'the field `email_consent`',
    since: '2026-05-12',
  },
  phone_permission_field: {
    status: 'removed',
    what: 'the contact field `phone_permission`',
    replacement: 'the field `sms_consent`',
    since: '2026-05-12',
  },
} as const satisfies Record<string, DeprecationRule>;

export type DeprecationCode = keyof typeof DEPRECATIONS;

const UNSUBSCRIBE = /^\/v1\/contacts\/[^/]+\/unsubscribe$/;
const NONE: DeprecationCode[] = [];

function hasValue(o: Record<string, unknown>, value: string): boolean {
  for (const k in o) {
    const v = o[k];
    if (v === value || (Array.isArray(v) && v.includes(value))) return true;
  }
  return false;
}

/**
 * The deprecated or removed usages in one request to the service or the token endpoint:
 * `query` and `body` as fastify parsed them (top-level fields only: that is where the contract's
 * fields and parameters live).
 */
export function detectDeprecations(method: string, path: string, query: unknown, body: unknown): DeprecationCode[] {
  let found = NONE;
  const add = (c: DeprecationCode) => {
    if (found === NONE) found = [];
    found.push(c);
  };
  if (method === 'POST' && path.endsWith('/unsubscribe') && UNSUBSCRIBE.test(path)) add('unsubscribe_endpoint');
  const q = query && typeof query === 'object' ? (query as Record<string, unknown>) : undefined;
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (q) queryUsages(q, add);
  if (b) bodyUsages(path, b, add);
  if ((q && hasValue(q, 'non_subscribed')) || (b && hasValue(b, 'non_subscribed'))) add('non_subscribed_value');
  return found;
}

/** The removed query parameters of the contact list. */
function queryUsages(q: Record<string, unknown>, add: (c: DeprecationCode) => void): void {
  if ('email_permission' in q) add('email_permission_parameter');
  if ('phone_permission' in q) add('phone_permission_parameter');
}

/** The token endpoint's `scopes`, the contact writes' removed fields. */
function bodyUsages(path: string, b: Record<string, unknown>, add: (c: DeprecationCode) => void): void {
  if (path === '/oauth/token') {
    if ('scopes' in b) add('scopes_parameter');
    return;
  }
  if ('email_permission' in b) add('email_permission_field');
  if ('phone_permission' in b) add('phone_permission_field');
}

export interface DeprecationTallyRow {
  code: DeprecationCode;
  status: DeprecationRule['status'];
  what: string;
  replacement: string;
  business_id: string | null;
  credential: Credential;
  count: number;
  first_seen: string;
  last_seen: string;
  /** The latest request with this usage (look it up in the request log). */
  example_request_id: string;
  example: string;
}

interface Tally {
  code: DeprecationCode;
  businessId: string | null;
  credential: Credential;
  count: number;
  first: number;
  last: number;
  requestId: string;
  example: string;
}

/** Deprecated usages seen, per credential and code. Small (credentials × codes), so unbounded. */
export class DeprecationTally {
  private readonly rows = new Map<string, Tally>();

  record(
    codes: readonly DeprecationCode[],
    at: number,
    requestId: string,
    businessId: string | null,
    credential: Credential,
    example: string,
  ): void {
    for (const code of codes) {
      const key = `${credential.kind}\u0000${credential.id ?? ''}\u0000${code}`;
      const t = this.rows.get(key);
      if (t) {
        t.count++;
        t.last = at;
        t.requestId = requestId;
        t.example = example;
        t.businessId ??= businessId;
      } else this.rows.set(key, { code, businessId, credential, count: 1, first: at, last: at, requestId, example });
    }
  }

  /** Every row (of one business when given), most recently seen first. */
  list(businessId?: string): DeprecationTallyRow[] {
    return [...this.rows.values()]
      .filter((t) => businessId === undefined || t.businessId === businessId)
      .sort((a, b) => b.last - a.last)
      .map((t) => {
        const rule: DeprecationRule = DEPRECATIONS[t.code];
        return {
          code: t.code,
          status: rule.status,
          what: rule.what,
          replacement: rule.replacement,
          business_id: t.businessId,
          credential: t.credential,
          count: t.count,
          first_seen: new Date(t.first).toISOString(),
          last_seen: new Date(t.last).toISOString(),
          example_request_id: t.requestId,
          example: t.example,
        };
      });
  }

  clear(): void {
    this.rows.clear();
  }
}
