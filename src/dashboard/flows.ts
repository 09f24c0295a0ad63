/**
 * The Flows page: the business's flows (trigger, enabled, runs), live (a new flow, a run counted,
 * highlighted, every second), a form to create one, enable/disable and delete.
 */
import { api, business, h, href, input, notice, type Rec } from './dom.js';
import { countText, pollEverySecond } from './live-list.js';
import { ago } from './time.js';

type FlowFlash = { text: string; kind: 'ok' | 'error' };
export type Redraw = (flash?: FlowFlash) => void;

/** The outcome of the last action, shown once on the next drawing of the page. */
let pending: FlowFlash | undefined;

/** Flow ids → names, for the pages that show flow runs. */
export async function flowNames(): Promise<Map<string, string>> {
  const { data } = await api('GET', `/flows?business_id=${encodeURIComponent(business())}`);
  return new Map(data.map((f: Rec) => [f.id, f.name]));
}

export function triggerText(f: Rec): string {
  if (f.trigger === 'order') return f.event_type === 'order_placed' ? 'an order is placed' : 'an order is updated';
  return `event ${f.event_type}`;
}

function createForm(redraw: Redraw): HTMLFormElement {
  const kind = h(
    'select',
    { id: 'flow-trigger', name: 'trigger' },
    h('option', { value: 'event' }, 'a custom event of type…'),
    h('option', { value: 'order_placed' }, 'an order is placed'),
    h('option', { value: 'order_updated' }, 'an order is updated'),
  );
  const eventField = input('flow-event-type', 'Event type', { name: 'event_type', placeholder: 'viewed_product' });
  kind.addEventListener('change', () => {
    eventField.hidden = kind.value !== 'event';
  });
  const form = h(
    'form',
    { 'aria-label': 'Create a flow' },
    input('flow-name', 'Flow name', { name: 'name', required: true, maxlength: 255 }),
    h('div', { class: 'field' }, h('label', { for: 'flow-trigger' }, 'Runs when'), kind),
    eventField,
    h('button', { type: 'submit' }, 'Create flow'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const trigger = kind.value;
    const body: Rec = { business_id: business(), name };
    if (trigger === 'event') body.event_type = String(data.get('event_type') ?? '').trim();
    else body.order_trigger = trigger;
    try {
      const f = await api('POST', '/flows', body);
      redraw({ text: `Flow “${f.name}” created: it runs when ${triggerText(f)}.`, kind: 'ok' });
    } catch (err) {
      redraw({ text: (err as Error).message, kind: 'error' });
    }
  });
  return form;
}

function row(f: Rec, redraw: Redraw): HTMLTableRowElement {
  const toggle = h('input', { type: 'checkbox', checked: f.enabled, id: `enabled-${f.id}`, 'aria-label': `Enabled: ${f.name}` });
  toggle.addEventListener('change', async () => {
    try {
      await api('PATCH', `/flows/${encodeURIComponent(f.id)}`, { enabled: (toggle as HTMLInputElement).checked });
      redraw({ text: `“${f.name}” is now ${(toggle as HTMLInputElement).checked ? 'enabled' : 'disabled'}.`, kind: 'ok' });
    } catch (err) {
      redraw({ text: (err as Error).message, kind: 'error' });
    }
  });
  const remove = h('button', { type: 'button', 'aria-label': `Delete ${f.name}` }, 'Delete');
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete the flow “${f.name}”? Its runs stay on the timeline.`)) return;
    try {
      await api('DELETE', `/flows/${encodeURIComponent(f.id)}`);
      redraw({ text: `“${f.name}” deleted.`, kind: 'ok' });
    } catch (err) {
      redraw({ text: (err as Error).message, kind: 'error' });
    }
  });
  const cells: [string, Node | string][] = [
    ['Flow', h('a', { href: href(`flows/${encodeURIComponent(f.id)}`), title: f.id }, f.name)],
    ['Runs when', triggerText(f)],
    ['Enabled', toggle],
    ['Runs', h('a', { href: href(`flows/${encodeURIComponent(f.id)}`), title: `The runs of ${f.name}` }, String(f.runs))],
    ['Last run', ago(f.last_run_at)],
    ['Created', ago(f.created_at)],
    ['', remove],
  ];
  return h('tr', { id: `flow-${f.id}`, 'data-state': state(f) }, ...cells.map(([label, c]) => h('td', { 'data-label': label }, c)));
}

/**
 * Brings the table to the flows listed now: a changed row is redrawn, highlighted, in its place
 * (unless it holds the focus), a new one is put in its place, a row no longer listed goes.
 */
function syncRows(body: HTMLTableSectionElement, flows: Rec[], redraw: Redraw): void {
  const seen = new Set<string>();
  let before: Element | null = body.firstElementChild;
  for (const f of flows) {
    seen.add(`flow-${f.id}`);
    const old = document.getElementById(`flow-${f.id}`);
    if (old && old.getAttribute('data-state') === state(f)) {
      before = old.nextElementSibling;
      continue;
    }
    if (old?.contains(document.activeElement)) continue;
    const tr = row(f, redraw);
    tr.classList.add('new');
    if (old) old.replaceWith(tr);
    else body.insertBefore(tr, before);
    before = tr.nextElementSibling;
  }
  for (const tr of [...body.children]) if (!seen.has(tr.id)) tr.remove();
}

/** `rerender` draws the page again (after an action, whose outcome is then shown). */
export async function flowsPage(rerender: () => void): Promise<Node[]> {
  const flash = pending;
  pending = undefined;
  const redraw: Redraw = (f) => {
    pending = f;
    rerender();
  };
  const { data, total } = await api('GET', `/flows?business_id=${encodeURIComponent(business())}`);
  const body = h('tbody', {}, ...data.map((f: Rec) => row(f, redraw)));
  const empty = h(
    'p',
    { class: 'empty', hidden: data.length > 0 },
    'No flows yet: create one below; it runs on the next matching event or order.',
  );
  const list = h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': 'Flows', tabindex: 0, hidden: data.length === 0 },
    h(
      'table',
      { class: 'log cards flows' },
      h('caption', { class: 'visually-hidden' }, 'Flows'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Flow', 'Runs when', 'Enabled', 'Runs', 'Last run', 'Created', 'Actions'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      body,
    ),
  );
  const count = h('p', { class: 'count', role: 'status' }, countText(total, 'flow'));
  // Live: a flow made elsewhere (svc, another tab) appears, a run is counted; a changed row is
  // redrawn, highlighted, unless it holds the focus (its checkbox stays where the keyboard is).
  pollEverySecond(async () => {
    const now = await api('GET', `/flows?business_id=${encodeURIComponent(business())}`);
    syncRows(body, now.data, redraw);
    count.textContent = countText(now.total, 'flow');
    empty.hidden = now.data.length > 0;
    list.hidden = now.data.length === 0;
  });
  return [...(flash ? [notice(flash.text, flash.kind)] : []), count, empty, list, h('h2', {}, 'Create a flow'), createForm(redraw)];
}

/** What the list shows of a flow: a row is redrawn when it changes. */
const state = (f: Rec): string => JSON.stringify([f.name, f.enabled, f.runs, f.last_run_at]);
