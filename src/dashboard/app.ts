/**
 * The sandbox dashboard (served at / by the sandbox, loopback only): a hash-routed page over the
 * admin API. It keeps no state but the route (#/page?biz=...), so a reload shows the same view.
 */

import { forgetDetails } from './details.js';
import { AdminError, api, business, h, href, notice, type Rec, route } from './dom.js';
import { stopEffectsLive } from './effects-live.js';
import { eventPage } from './event-page.js';
import { flowPage } from './flow-page.js';
import { flowsPage } from './flows.js';
import { forgetLabels } from './labels.js';
import { contactsPage, eventsPage, ordersPage } from './lists.js';
import { stopListLive } from './live-list.js';
import { contactPage, orderPage, stopLive, timelinePage } from './pages.js';
import { requestPage } from './request-page.js';
import { deprecationsPanel, requestsPage, stopRequestsLive } from './requests.js';
import { type Flash, settingsPage } from './settings.js';
import { snapshotsPanel } from './snapshots.js';
import { clearStateNotice, noteGeneration, watchState } from './state.js';
import { startTimes } from './time.js';

const PAGES = [
  ['contacts', 'Contacts'],
  ['orders', 'Orders'],
  ['events', 'Events'],
  ['timeline', 'Timeline'],
  ['flows', 'Flows'],
  ['requests', 'Requests'],
  ['settings', 'Settings'],
] as const;

const main = document.getElementById('main') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const switcher = document.getElementById('business') as HTMLSelectElement;

function drawNav(current: string): void {
  nav.replaceChildren(
    h(
      'ul',
      {},
      ...PAGES.map(([path, name]) =>
        h('li', {}, h('a', { href: href(path), 'aria-current': path === current ? 'page' : undefined }, name)),
      ),
    ),
  );
}

const banner = document.getElementById('banner') as HTMLElement;

async function drawSwitcher(): Promise<void> {
  const biz = business();
  const [list, info] = await Promise.all([
    api('GET', '/businesses').then((r) => r.data as { id: string; name: string }[]),
    api('GET', '/info') as Promise<{ database: string | null; state?: Rec }>,
  ]);
  noteGeneration(info.state);
  switcher.replaceChildren(...list.map((b) => h('option', { value: b.id, selected: b.id === biz }, `${b.name} (${b.id})`)));
  const current = list.find((b) => b.id === biz);
  // Which sandbox and business this is, on every page: several sandboxes look alike.
  banner.replaceChildren(
    h('span', {}, 'Database: ', h('code', {}, info.database ?? 'in memory (lost when the sandbox stops)')),
    h('span', {}, 'Business: ', h('strong', {}, current ? `${current.name} (${current.id})` : biz)),
  );
}

switcher.addEventListener('change', () => {
  const { parts } = route();
  const page = parts[0] ?? 'contacts';
  location.hash = `#/${page}${switcher.value === 'biz_default' ? '' : `?biz=${encodeURIComponent(switcher.value)}`}`;
});

let drawing = 0;

type Draw = (id: string | undefined, flash?: Flash) => Promise<Node[]>;

/** Each page's content: its list, or (with an id) one of its records. */
const DRAW = new Map<string, Draw>([
  ['contacts', async (id) => (id ? contactPage(id) : [await deprecationsPanel(), ...(await contactsPage())])],
  ['flows', (id) => (id ? flowPage(id) : flowsPage(() => void render()))],
  ['requests', (id) => (id ? requestPage(id) : requestsPage())],
  ['orders', (id) => (id ? orderPage(id) : ordersPage())],
  ['events', (id) => (id ? eventPage(id) : eventsPage())],
  ['timeline', () => timelinePage()],
  ['settings', async (_id, flash) => [...(await settingsPage((f) => void render(f), flash)), await snapshotsPanel()]],
]);

/** Stops the live updates of the page being left (those of the page being drawn go on). */
function stopLiveUpdates(page: string, id: string | undefined): void {
  if (page !== 'timeline') stopLive();
  stopListLive();
  stopEffectsLive();
  if (page !== 'requests' || id) stopRequestsLive();
}

/** The content of a page, or the error that kept it from being drawn. */
async function content(page: string, id: string | undefined, flash?: Flash): Promise<Node[]> {
  try {
    await drawSwitcher();
    const draw = DRAW.get(page);
    return draw ? await draw(id, flash) : [notice('There is no such page.', 'error')];
  } catch (err) {
    return [notice(err instanceof AdminError ? err.message : String(err), 'error')];
  }
}

/** Draws the route's page; `moveFocus` (after a navigation) puts the focus on its heading, for screen readers. */
async function render(flash?: Flash, moveFocus = false): Promise<void> {
  const ticket = ++drawing;
  const { parts } = route();
  const [page = 'contacts', id] = parts;
  stopLiveUpdates(page, id);
  drawNav(page);
  const title = PAGES.find(([p]) => p === page)?.[1] ?? 'Not found';
  const heading = id ? `${title.replace(/s$/, '')} ${id}` : title;
  document.title = `${heading} · svc sandbox`;
  const nodes = await content(page, id, flash);
  if (ticket !== drawing) return;
  const h1 = h('h1', { tabindex: -1 }, heading);
  main.replaceChildren(h1, ...nodes);
  // Which route is on screen (tests wait for it).
  main.dataset.drawn = location.hash;
  if (moveFocus && document.activeElement !== switcher) h1.focus({ preventScroll: true });
}

window.addEventListener('hashchange', () => {
  clearStateNotice();
  void render(undefined, true);
});
// The skip link moves the focus to the page's content (its href would be read as a route).
document.querySelector('a.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});
if (!location.hash) history.replaceState(null, '', '#/contacts');
startTimes();
// A restore or reset (from any tab, svc or a script) redraws the open page from the new state.
watchState(() => {
  forgetLabels();
  forgetDetails();
  void render();
});
void render();
