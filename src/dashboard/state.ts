/**
 * A restore or reset seen from every open page: the page asks `GET /_sandbox/info` every
 * 1.5 seconds (such reads are not logged) and, when the state's generation has moved, reloads its
 * data and says "Restored snapshot NAME at HH:MM UTC" (or "Reset at …") above the page until the
 * next navigation.
 */
import { api, everyWithoutOverlap, type Rec } from './dom.js';
import { clockTime } from './time.js';

const WATCH_MS = 1500;
let seen: number | undefined;

const noticeEl = () => document.getElementById('state-notice') as HTMLElement;

/** What a state change says: "Restored snapshot seeded at 09:31 UTC: this page shows the restored data." */
export function changeText(change: Rec | null | undefined, took?: number): string {
  if (!change) return 'The sandbox’s state was replaced: this page shows the current data.';
  const at = clockTime(Date.parse(change.at));
  return change.kind === 'restore'
    ? `Restored snapshot ${change.snapshot} at ${at}${took === undefined ? '' : ` in ${took} ms`}: this page shows the restored data.`
    : `Reset at ${at}: this page shows the emptied sandbox.`;
}

/** Empties the notice (on navigation); the element stays, so screen readers announce the next one. */
export function clearStateNotice(): void {
  noticeEl().textContent = '';
}

let reloadPage: () => void = () => undefined;

/** Notes the generation a page was drawn from (the first answer of /info sets it). */
export function noteGeneration(state: Rec | undefined): void {
  if (seen === undefined && typeof state?.generation === 'number') seen = state.generation;
}

/** Checks /info now (right after this page restored a snapshot, `took` ms, too); when the state was replaced since, shows the notice and reloads the page. */
export async function checkState(took?: number): Promise<void> {
  const info = await api('GET', '/info');
  const state = info.state as Rec | undefined;
  if (typeof state?.generation !== 'number') return;
  if (seen === undefined || state.generation === seen) {
    seen = state.generation;
    // The watcher may have seen this page's own restore first: the notice gains its duration.
    if (took !== undefined) noticeEl().textContent = changeText(state.last_change, took);
    return;
  }
  seen = state.generation;
  noticeEl().textContent = changeText(state.last_change, took);
  reloadPage();
}

/** Watches for restores and resets while the page is open. */
export function watchState(reload: () => void): void {
  reloadPage = reload;
  everyWithoutOverlap(WATCH_MS, () => checkState());
}
