/**
 * Live lists (Contacts, Orders, Events): the first page asks every second for the rows newer than
 * the newest it shows (`after=latest_seq` of its last answer, so nothing written between the load
 * and the first poll is lost), puts them at the top, highlighted, and keeps the count current.
 */
import { api, type Rec } from './dom.js';

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
  let busy = false;
  timer = setInterval(() => {
    if (busy) return;
    busy = true;
    tick()
      .catch(() => undefined) // the sandbox may be restarting: the next tick tries again
      .finally(() => {
        busy = false;
      });
  }, POLL_MS);
}

/** "20,417 contacts" (one contact). */
export function countText(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}

export interface LiveList {
  /** The path of the admin list with its filters, without `after` (e.g. `/contacts?business_id=…`). */
  path: string;
  /** The first answer the page showed. */
  first: Rec;
  tbody: HTMLTableSectionElement;
  count: HTMLElement;
  noun: [string, string?];
  /** Prepares what the rows need (labels), then builds a row's cells. */
  prepare?: (rows: Rec[]) => Promise<void>;
  /** A row of the table. */
  row: (r: Rec) => HTMLTableRowElement;
  /** Live only on the first page. */
  live: boolean;
}

/** Starts polling for rows after the newest one shown. */
export function startListLive(l: LiveList): void {
  stopListLive();
  if (!l.live) return;
  let after: number = l.first.latest_seq ?? 0;
  const sep = l.path.includes('?') ? '&' : '?';
  pollEverySecond(async () => {
    const page = await api('GET', `${l.path}${sep}after=${after}&limit=100`);
    if (page.data.length > 0) {
      await l.prepare?.(page.data);
      for (const r of [...page.data].reverse()) {
        const tr = l.row(r);
        tr.classList.add('new');
        l.tbody.prepend(tr);
      }
    }
    after = Math.max(after, page.latest_seq ?? after);
    l.count.textContent = countText(page.total, ...(l.noun as [string, string]));
  });
}
