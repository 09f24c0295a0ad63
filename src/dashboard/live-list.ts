/**
 * Live lists (Contacts, Orders, Events): the first page asks every second for its newest rows and
 * puts new ones at the top and changed ones in place (every field, not only new rows), highlighted,
 * and keeps the count current.
 */
import { api, everyWithoutOverlap, type Rec } from './dom.js';

let timer: ReturnType<typeof setInterval> | undefined;
const POLL_MS = 1000;

/** Stops the open list's polling (when leaving the page). */
export function stopListLive(): void {
  if (timer !== undefined) clearInterval(timer);
  timer = undefined;
}

/** Runs `tick` every second until the page is left (one at a time: a slow tick is not overlapped; a failed one is retried at the next). */
export function pollEverySecond(tick: () => Promise<void>): void {
  stopListLive();
  timer = everyWithoutOverlap(POLL_MS, tick);
}

/** "20,417 contacts" (one contact). */
export function countText(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

export interface LiveList {
  /** The path of the admin list with its filters (e.g. `/contacts?business_id=…`). */
  path: string;
  /** The rows the page shows first. */
  first: Rec[];
  tbody: HTMLTableSectionElement;
  count: HTMLElement;
  noun: [string, string?];
  /** Prepares what the rows need (labels), then builds a row's cells. */
  prepare?: (rows: Rec[]) => Promise<void>;
  /** A row of the table, with `data-key` (the record's id) set. */
  row: (r: Rec) => HTMLTableRowElement;
  /** The record's id (the row's `data-key`). */
  key: (r: Rec) => string;
  /** Live only on the first page. */
  live: boolean;
  /** Called after a poll put rows in the table (the "no rows yet" line goes). */
  onRows?: () => void;
}

/** The most rows a live list keeps current (the admin API's largest page). */
const LIVE_ROWS = 100;

/**
 * The row to show for a record: the one shown when the record did not change (or the row holds
 * the focus), else a new one, highlighted, put in the old one's place.
 */
function currentRow(l: LiveList, r: Rec, shown: HTMLTableRowElement | undefined, states: Map<string, string>): HTMLTableRowElement {
  const key = l.key(r);
  const state = JSON.stringify(r);
  if (shown && (states.get(key) === state || shown.contains(document.activeElement))) return shown;
  const next = l.row(r);
  next.dataset.key = key;
  next.classList.add('new');
  states.set(key, state);
  shown?.replaceWith(next);
  return next;
}

/** Puts the rows of an answer in its order at the top of the table; returns the keys it listed. */
function placeRows(l: LiveList, rows: Rec[], shown: Map<string, HTMLTableRowElement>, states: Map<string, string>): Set<string> {
  let before: Element | null = l.tbody.firstElementChild;
  const listed = new Set<string>();
  for (const r of rows) {
    const key = l.key(r);
    listed.add(key);
    const tr = currentRow(l, r, shown.get(key), states);
    if (tr === before) before = tr.nextElementSibling;
    else l.tbody.insertBefore(tr, before);
  }
  return listed;
}

/**
 * Keeps the first page current: every second it asks for the newest rows (as many as shown, at
 * least a page, at most 100) and puts new ones at the top and changed ones in place, both
 * highlighted; a row no longer listed goes when the answer covers it. Rows that did not change
 * stay as they are (and so does a row holding the focus).
 */
export function startListLive(l: LiveList): void {
  stopListLive();
  if (!l.live) return;
  const sep = l.path.includes('?') ? '&' : '?';
  const states = new Map<string, string>();
  for (const r of l.first) states.set(l.key(r), JSON.stringify(r));
  pollEverySecond(async () => {
    const limit = Math.min(LIVE_ROWS, Math.max(25, l.tbody.children.length));
    const page = await api('GET', `${l.path}${sep}limit=${limit}`);
    const fresh = (page.data as Rec[]).filter((r) => states.get(l.key(r)) !== JSON.stringify(r));
    if (fresh.length > 0) await l.prepare?.(fresh);
    const shown = new Map([...l.tbody.children].map((tr) => [(tr as HTMLElement).dataset.key ?? '', tr as HTMLTableRowElement]));
    const listed = placeRows(l, page.data, shown, states);
    // Rows past the answer's end are older ones: they go only when the answer was the whole list.
    if (page.data.length < limit)
      for (const [key, tr] of shown)
        if (!listed.has(key)) {
          tr.remove();
          states.delete(key);
        }
    if (fresh.length > 0) l.onRows?.();
    l.count.textContent = countText(page.total, ...(l.noun as [string, string]));
  });
}
