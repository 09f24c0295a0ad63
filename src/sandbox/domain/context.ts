import type { SandboxDb } from '../db.js';
import type { Journal } from './journal.js';

/** What every domain function works with: the database and the clock (epoch ms). */
export interface Domain {
  db: SandboxDb;
  now: () => number;
  /** Lifetime of access tokens from client credentials, in seconds. */
  tokenTtlSeconds: number;
  /** In-process caches of hot lookups; cleared by every admin write (see clearCaches). */
  cache: DomainCache;
  /** What the service request being handled did so far (journal.ts); undefined between requests. */
  journal?: Journal;
}

export interface DomainCache {
  /** Bearer token → who it is and until when (epoch ms; Infinity for API tokens). */
  principals: Map<string, { businessId: string; scopes: ReadonlySet<string>; expiresAt: number; tokenHash: string }>;
  /** Business → the integration an order without header is tied to (null: none). */
  defaultIntegration: Map<string, string | null>;
  /** Business and trigger (an event type, order_placed, order_updated) → the enabled flows it runs. */
  flows: Map<string, { id: string }[]>;
}

export function newCache(): DomainCache {
  return { principals: new Map(), defaultIntegration: new Map(), flows: new Map() };
}

export function clearCaches(d: Domain): void {
  d.cache.principals.clear();
  d.cache.defaultIntegration.clear();
  d.cache.flows.clear();
  d.db.rowCache.clear();
}

let lastMs = Number.NaN;
let lastIso = '';

/** RFC 3339 UTC with `Z`, as every timestamp in a response (the last one is remembered: it repeats a lot). */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
