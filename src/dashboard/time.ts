/**
 * One date format for the dashboard: a relative time ("3 min ago") that ages while the page is
 * open, the full UTC time on hover, on tap (or click) and always in the phone layout; and order
 * dates as dates.
 */
import { h } from './dom.js';

const UNITS: [number, string][] = [
  [60, 's'],
  [60, 'min'],
  [24, 'h'],
  [30, 'd'],
  [12, 'mo'],
];

/** How often the relative times on the page are worked out again. */
const AGE_EVERY_MS = 5000;

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

/** "09:31 UTC": the hour and minute of a moment. */
export function clockTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/**
 * A <time> showing a relative time that ages, the full one in its title and in a second part that
 * screen readers read, the phone layout shows, and a tap reveals (`.exact`).
 */
export function ago(iso: string | null | undefined, now = Date.now()): HTMLElement | string {
  if (!iso) return '—';
  return h(
    'time',
    { datetime: iso, title: fullTime(iso), class: 'when' },
    h('span', { class: 'rel' }, relative(now - Date.parse(iso))),
    h('span', { class: 'abs' }, fullTime(iso)),
  );
}

/**
 * An order's date as a date (`2024-03-15`), with the time of day when it has one
 * (`2024-03-15 14:02 UTC`): what one checks after a historical import, readable on a phone too.
 */
export function orderDate(iso: string | null | undefined): HTMLElement | string {
  if (!iso) return '—';
  const day = iso.slice(0, 10);
  const time = iso.slice(11, 16);
  const text = /T00:00:00(\.0+)?Z$/.test(iso) || time === '' ? day : `${day} ${time} UTC`;
  return h('time', { datetime: iso, title: fullTime(iso), class: 'date' }, text);
}

/** Works the relative times out again (every AGE_EVERY_MS while the page is open). */
export function ageTimes(now = Date.now()): void {
  for (const t of document.querySelectorAll<HTMLTimeElement>('time.when')) {
    const rel = t.querySelector('.rel');
    const text = relative(now - Date.parse(t.dateTime));
    if (rel && rel.textContent !== text) rel.textContent = text;
  }
}

/** Shows or hides a time's exact-time bubble, placed under it within the window. */
function toggleExact(t: HTMLElement): void {
  for (const other of document.querySelectorAll('time.when.exact')) if (other !== t) other.classList.remove('exact');
  if (!t.classList.toggle('exact')) return;
  const abs = t.querySelector<HTMLElement>('.abs');
  if (!abs) return;
  const r = t.getBoundingClientRect();
  abs.style.top = `${Math.round(r.bottom + 2)}px`;
  abs.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - abs.offsetWidth - 8))}px`;
}

/** Starts aging the page's times and lets a tap on one show its exact time (another tap, a scroll or Escape: hidden). */
export function startTimes(): void {
  setInterval(() => ageTimes(), AGE_EVERY_MS);
  const hideAll = () => {
    for (const t of document.querySelectorAll('time.when.exact')) t.classList.remove('exact');
  };
  document.addEventListener('click', (e) => {
    const t = (e.target as Element | null)?.closest?.('time.when');
    if (t instanceof HTMLElement && !t.closest('a, button')) toggleExact(t);
    else hideAll();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') hideAll();
  });
  window.addEventListener('scroll', hideAll, { capture: true, passive: true });
}
