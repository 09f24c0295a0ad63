/** The read pages: a contact, an order, the Timeline (live). The lists are in lists.ts. */
import { idCell } from './copy.js';
import { integrationRef, loadDetails, loadIntegrationNames } from './details.js';
import { api, business, dl, h, href, qs, type Rec, route, select, table } from './dom.js';
import { liveEffects, SIDE_EFFECT_HEADERS, sideEffectRows } from './effects-live.js';
import { flowNames } from './flows.js';
import { contactRef, loadLabels } from './labels.js';
import { filterForm, orderCell } from './lists.js';
import { countText } from './live-list.js';
import { ago } from './time.js';

const SIDE_EFFECTS = ['welcome_sms', 'flow_trigger', 'flow_run', 'revenue_attribution'];

const contactLink = contactRef;
const money = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([c, v]) => `${v} ${c}`)
    .join(', ') || '—';

export async function contactPage(id: string): Promise<Node[]> {
  const biz = business();
  const [c, orders, effects, flows] = await Promise.all([
    api('GET', `/contacts/${encodeURIComponent(id)}${qs({ business_id: biz })}`),
    api('GET', `/orders${qs({ business_id: biz, contact_id: id, limit: 100 })}`),
    api('GET', `/outbox${qs({ business_id: biz, contact_id: id, limit: 100 })}`),
    flowNames(),
  ]);
  return [
    h('p', {}, h('a', { href: href('contacts') }, '« All contacts')),
    dl([
      ['Id', idCell(c.id)],
      ['E-mail', c.email],
      ['Phone', c.phone],
      ['First name', c.first_name],
      ['Last name', c.last_name],
      ['E-mail consent', c.email_consent],
      ['SMS consent', c.sms_consent],
      ['Orders', String(c.orders_count)],
      ['Total spent', money(c.total_spent)],
      ['Last order', ago(c.last_order_at)],
      ['Created', ago(c.created_at)],
      ['Updated', ago(c.updated_at)],
    ]),
    h('h2', {}, 'Orders'),
    h('p', { class: 'count' }, countText(orders.total, 'order')),
    table(
      ['Order', 'Date', 'Total', 'Initial sync', 'Received'],
      orders.data.map((o: Rec) => [
        orderCell(o.order_id),
        ago(o.order_date),
        `${o.total} ${o.currency}`,
        String(o.initial_sync ?? false),
        ago(o.created_at),
      ]),
      'Orders',
      'contact-orders',
    ),
    h('h2', {}, 'Side effects'),
    ...(await liveEffects({
      caption: 'Side effects',
      effects: effects.data,
      total: effects.total,
      noun: ['side effect'],
      flows,
      accept: (e) => e.contact_id === id,
    })),
  ];
}

export async function orderPage(id: string): Promise<Node[]> {
  const [o] = await Promise.all([
    api('GET', `/orders/${encodeURIComponent(id)}${qs({ business_id: business() })}`),
    loadIntegrationNames(),
  ]);
  await loadLabels([o.contact_id]);
  return [
    h('p', {}, h('a', { href: href('orders') }, '« All orders')),
    dl([
      ['Order', idCell(o.order_id)],
      ['Date', ago(o.order_date)],
      ['Total', `${o.total} ${o.currency}`],
      ['Contact', contactLink(o.contact_id)],
      ['Contact id', idCell(o.contact_id)],
      ['E-mail', o.email],
      ['Phone', o.phone],
      ['Accepts e-mail marketing', String(o.accepts_email_marketing ?? '—')],
      ['Accepts SMS marketing', String(o.accepts_sms_marketing ?? '—')],
      ['Initial sync', String(o.initial_sync ?? false)],
      ['Integration (attribution)', o.integration_id ? integrationRef(o.integration_id) : 'none'],
      ['Created', ago(o.created_at)],
      ['Updated', ago(o.updated_at)],
    ]),
    h('h2', {}, 'Line items'),
    table(
      ['SKU', 'Name', 'Quantity', 'Price'],
      (o.line_items ?? []).map((l: Rec) => [l.sku ?? '—', l.name, l.quantity, l.price]),
      'Line items',
      'items',
    ),
  ];
}

let live: EventSource | undefined;

/** Closes the timeline's live stream (when leaving the page). */
export function stopLive(): void {
  live?.close();
  live = undefined;
}

export async function timelinePage(): Promise<Node[]> {
  const p = route().params;
  const type = p.get('type') ?? undefined;
  const biz = business();
  const [recent, flows] = await Promise.all([api('GET', `/outbox${qs({ business_id: biz, type, limit: 100 })}`), flowNames()]);
  const body = h('tbody', {});
  const add = (e: Rec, fresh: boolean) => {
    const [cells] = sideEffectRows([e], flows);
    body.prepend(
      h('tr', { class: fresh ? 'new' : undefined }, ...(cells ?? []).map((c, i) => h('td', { 'data-label': SIDE_EFFECT_HEADERS[i] }, c))),
    );
  };
  await Promise.all([loadLabels(recent.data.map((e: Rec) => e.contact_id)), loadDetails(recent.data.map((e: Rec) => e.seq))]);
  for (const e of recent.data) add(e, false);
  const status = h('p', { class: 'live', role: 'status' }, 'Connecting…');
  let total = recent.total as number;
  const count = h('p', { class: 'count' }, countText(total, 'side effect'));
  stopLive();
  // The stream starts right after the last side effect listed (0: none yet), so one recorded
  // between the fetch above and the stream's start is not lost.
  const last = recent.data.length > 0 ? recent.data[recent.data.length - 1].seq : 0;
  live = new EventSource(`/_sandbox/outbox/stream${qs({ business_id: biz, type, after: last })}`);
  live.onopen = () => {
    status.textContent = 'Live: new side effects appear at the top.';
  };
  live.onerror = () => {
    status.textContent = 'Reconnecting…';
  };
  // In order: each row waits for its contact's e-mail (a new contact is not known yet), the
  // next row for it; a row shows the contact's id if that fails.
  let queue = Promise.resolve();
  live.onmessage = (m) => {
    const e = JSON.parse(m.data);
    queue = queue
      .then(() => Promise.all([loadLabels([e.contact_id]), loadDetails([e.seq])]).catch(() => undefined))
      .then(() => {
        add(e, true);
        count.textContent = countText(++total, 'side effect');
      });
  };
  return [
    filterForm('timeline', 'Filter side effects', select('type', 'Type', SIDE_EFFECTS, type ?? '', 'all types')),
    h('div', { class: 'toolbar' }, count, status),
    h(
      'div',
      { class: 'scroll', role: 'region', 'aria-label': 'Side effects', tabindex: 0 },
      h(
        'table',
        { id: 'timeline', class: 'list cards effects' },
        h('caption', { class: 'visually-hidden' }, 'Side effects, newest first'),
        h('thead', {}, h('tr', {}, ...SIDE_EFFECT_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    ),
  ];
}
