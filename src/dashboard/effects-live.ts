/**
 * A live table of side effects for one page (a flow's runs, a contact's side effects): newest
 * first, then each new one that `accept`s as it is recorded, at the top, highlighted and counted.
 * The stream starts after the last side effect shown, so none recorded in between is lost.
 */

import { idCell } from './copy.js';
import { contentCell, loadDetails } from './details.js';
import { business, h, href, qs, type Rec } from './dom.js';
import { contactRef, loadLabels } from './labels.js';
import { orderCell } from './lists.js';
import { countText } from './live-list.js';
import { requestLink } from './request-ref.js';
import { ago } from './time.js';

/** What set a side effect off; a flow run names its flow (linked to the flow's page, with its runs). */
function triggerCell(e: Rec, flows: Map<string, string>) {
  if (e.type !== 'flow_run' || !e.flow_id) return e.trigger ?? '—';
  const name = flows.get(e.flow_id);
  const flow = name ? h('a', { href: href(`flows/${encodeURIComponent(e.flow_id)}`), title: name }, name) : `${e.flow_id} (deleted)`;
  return h('span', {}, flow, ` on ${e.trigger ?? '—'}`);
}

export function sideEffectRows(effects: Rec[], flows: Map<string, string> = new Map()) {
  return effects.map((e) => [
    e.seq,
    h('span', { class: `badge ${e.type}` }, e.type),
    contactRef(e.contact_id),
    orderCell(e.order_id),
    idCell(e.event_id, e.event_id ? href(`events/${encodeURIComponent(e.event_id)}`) : undefined),
    triggerCell(e, flows),
    contentCell(e),
    ago(e.created_at),
    requestLink(e.request_id),
  ]);
}
export const SIDE_EFFECT_HEADERS = ['#', 'Type', 'Contact', 'Order', 'Event', 'Trigger', 'Content', 'At', 'Request'];

let live: EventSource | undefined;

/** Closes the page's stream (when leaving the page). */
export function stopEffectsLive(): void {
  live?.close();
  live = undefined;
}

export interface LiveEffects {
  caption: string;
  /** The side effects shown first (oldest first, as GET /outbox answers). */
  effects: Rec[];
  /** Their count (every one, not only those shown). */
  total: number;
  noun: [string, string?];
  flows: Map<string, string>;
  /** Narrows the stream (e.g. flow_run). */
  type?: string;
  /** Whether a streamed side effect belongs on this page. */
  accept: (e: Rec) => boolean;
}

/** The count line and the table, its stream opened. */
export async function liveEffects(o: LiveEffects): Promise<Node[]> {
  await Promise.all([loadLabels(o.effects.map((e) => e.contact_id)), loadDetails(o.effects.map((e) => e.seq))]);
  const body = h('tbody', {});
  let total = o.total;
  const count = h('p', { class: 'count', role: 'status' }, countText(total, ...(o.noun as [string, string])));
  const add = (e: Rec, fresh: boolean) => {
    const [cells] = sideEffectRows([e], o.flows);
    body.prepend(
      h('tr', { class: fresh ? 'new' : undefined }, ...(cells ?? []).map((c, i) => h('td', { 'data-label': SIDE_EFFECT_HEADERS[i] }, c))),
    );
  };
  for (const e of o.effects) add(e, false);
  stopEffectsLive();
  const last: number = o.effects.at(-1)?.seq ?? 0;
  live = new EventSource(`/_sandbox/outbox/stream${qs({ business_id: business(), type: o.type, after: last })}`);
  // In order: each row waits for its contact's label and content, the next row for it.
  let queue = Promise.resolve();
  live.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (!o.accept(e)) return;
    queue = queue
      .then(() => Promise.all([loadLabels([e.contact_id]), loadDetails([e.seq])]).catch(() => undefined))
      .then(() => {
        add(e, true);
        count.textContent = countText(++total, ...(o.noun as [string, string]));
      });
  };
  return [
    h('div', { class: 'toolbar' }, count, h('p', { class: 'muted live-hint' }, 'Live: new ones appear at the top.')),
    h(
      'div',
      { class: 'scroll', role: 'region', 'aria-label': o.caption, tabindex: 0 },
      h(
        'table',
        { class: 'list cards effects' },
        h('caption', { class: 'visually-hidden' }, `${o.caption}, newest first`),
        h('thead', {}, h('tr', {}, ...SIDE_EFFECT_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    ),
  ];
}
