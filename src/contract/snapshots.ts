/** Sandbox snapshots as the admin API names and lists them (shared by the sandbox and `svc sandbox snapshot`). */

/** A snapshot's name: a letter or digit, then up to 63 letters, digits, `.`, `_` or `-` (a file name anywhere). */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** One snapshot, as GET /_sandbox/snapshots lists it (`-1` counts: not readable). */
export interface SnapshotInfo {
  name: string;
  created_at: string;
  bytes: number;
  contacts: number;
  orders: number;
}
