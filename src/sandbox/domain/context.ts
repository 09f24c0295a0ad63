import type { SandboxDb } from '../db.js';

/** What every domain function works with: the database and the clock (epoch ms). */
export interface Domain {
  db: SandboxDb;
  now: () => number;
  /** Lifetime of access tokens from client credentials, in seconds. */
  tokenTtlSeconds: number;
}

/** RFC 3339 UTC with `Z`, as every timestamp in a response. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
