/** One date format for the dashboard: a relative time ("3 min ago") with the full UTC time on hover. */
import { h } from './dom.js';

const UNITS: [number, string][] = [
  [60, 's'],
  [60, 'min'],
  [24, 'h'],
  [30, 'd'],
  [12, 'mo'],
];

/** "12 s ago", "3 min ago", "5 h ago", "2 d ago"… from the difference in milliseconds. */
export function relative(ms: number): string {
  let n = Math.max(0, Math.round(ms / 1000));
  if (n < 5) return 'just now';
  for (const [size, unit] of UNITS) {
    if (n < size) return `${n} ${unit} ago`;
    n = Math.floor(n / size);
  }
  return `${n} y ago`;
}

/** The full time, as every page shows it on hover: 2026-11-26 09:30:01 UTC. */
export function fullTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

/** A <time> showing a relative time, the full one in its title (and for screen readers in datetime). */
export function ago(iso: string | null | undefined, now = Date.now()): HTMLElement | string {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: fullTime(iso) }, relative(now - Date.parse(iso)));
}
