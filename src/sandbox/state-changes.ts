/**
 * When the whole state was last replaced (a snapshot restored, the sandbox reset), so that open
 * dashboard pages can reload their data and say so (`GET /_sandbox/info` → `state`). Kept per
 * Domain, in memory: a restarted sandbox starts at generation 0.
 */
import type { Domain } from './domain/context.js';

export interface StateChange {
  kind: 'restore' | 'reset';
  /** The snapshot restored (null for a reset). */
  snapshot: string | null;
  /** When it happened (RFC 3339). */
  at: string;
}

export interface StateView {
  /** Counts the replacements since the sandbox started: a page that saw another number reloads. */
  generation: number;
  last_change: StateChange | null;
}

const states = new WeakMap<Domain, StateView>();

/** The state's generation and last replacement. */
export function stateOf(d: Domain): StateView {
  return states.get(d) ?? { generation: 0, last_change: null };
}

/** Records that the whole state was just replaced. */
export function markStateChange(d: Domain, kind: StateChange['kind'], snapshot: string | null = null): void {
  const { generation } = stateOf(d);
  states.set(d, { generation: generation + 1, last_change: { kind, snapshot, at: new Date(d.now()).toISOString() } });
}
