/** The read pages: a contact, an order, the Timeline (live). The lists are in lists.ts. */
import { idCell } from './copy.js';
import { integrationRef, loadDetails, loadIntegrationNames } from './details.js';
import { api, business, dl, h, href, qs, type Rec, route, select, table } from './dom.js';
import { liveEffects, SIDE_EFFECT_HEADERS, sideEffectRows } from './effects-live.js';
import { flowNames } from './flows.js';
import { contactRef, loadLabels } from './labels.js';
import { filterForm, orderCell } from './lists.js';
import { countText, pollEverySecond } from './live-list.js';
import { requestLink } from './request-ref.js';
import { ago, orderDate } from './time.js';

const SIDE_EFFECTS = ['welcome_sms', 'flow_trigger', 'flow_run', 'revenue_attribution'];

const contactLink = contactRef;
const money = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([c, v]) => `${v} ${c}`)
    .join(', ') || '—';

/** Fields as label → [what is shown, what it is made from]: a field is highlighted when the latter changes. */
type LiveFields = [string, Node | string | null | undefined, unknown][];

/**
 * A definition list drawn from `fields`, and `update` that draws it again from new fields,
 * highlighting the ones whose value changed (unless the focus is inside the list).
 */
function liveDl(fields: LiveFields): { el: HTMLElement; update: (next: LiveFields) => void } {
  const el = h('div', { class: 'live-fields' });
  let shown = new Map<string, string>();
  const draw = (next: LiveFields, highlight: boolean) => {
    const list = dl(next.map(([label, node]) => [label, node ?? null]));
    const dds = [...list.querySelectorAll('dd')];
    next.forEach(([label, , raw], i) => {
      if (highlight && shown.get(label) !== JSON.stringify(raw)) dds[i]?.classList.add('changed');
    });
    shown = new Map(next.map(([label, , raw]) => [label, JSON.stringify(raw)]));
    el.replaceChildren(list);
  };
  draw(fields, false);
  return {
    el,
    update: (next) => {
      const changed = next.some(([label, , raw]) => shown.get(label) !== JSON.stringify(raw));
      if (changed && !el.contains(document.activeElement)) draw(next, true);
    },
  };
}

function contactFields(c: Rec): LiveFields {
  return [
    ['Id', idCell(c.id), c.id],
    ['E-mail', c.email, c.email],
    ['Phone', c.phone, c.phone],
    ['First name', c.first_name, c.first_name],
    ['Last name', c.last_name, c.last_name],
    ['E-mail consent', c.email_consent, c.email_consent],
    ['SMS consent', c.sms_consent, c.sms_consent],
    ['Orders', String(c.orders_count), c.orders_count],
    ['Total spent', money(c.total_spent), c.total_spent],
    ['Last order', ago(c.last_order_at), c.last_order_at],
    ['Created', ago(c.created_at), c.created_at],
    ['Created by', requestLink(c.request_id), c.request_id],
    ['Updated', ago(c.updated_at), c.updated_at],
    ['Last changed by', requestLink(c.last_request_id), c.last_request_id],
  ];
}

function contactOrders(orders: Rec): Node[] {
  return [
    h('p', { class: 'count' }, countText(orders.total, 'order')),
    table(
      ['Order', 'Date', 'Total', 'Initial sync', 'Received'],
      orders.data.map((o: Rec) => [
        orderCell(o.order_id),
        orderDate(o.order_date),
        `${o.total} ${o.currency}`,
        String(o.initial_sync ?? false),
        ago(o.created_at),
      ]),
      'Orders',
      'contact-orders',
    ),
  ];
}

/** A contact: every field and its orders live (asked every second), its side effects streamed. */
export async function contactPage(id: string): Promise<Node[]> {
  const biz = business();
  const contactPath = `/contacts/${encodeURIComponent(id)}${qs({ business_id: biz })}`;
  const ordersPath = `/orders${qs({ business_id: biz, contact_id: id, limit: 100 })}`;
  const [c, orders, effects, flows] = await Promise.all([
    api('GET', contactPath),
    api('GET', ordersPath),
    api('GET', `/outbox${qs({ business_id: biz, contact_id: id, limit: 100 })}`),
    flowNames(),
  ]);
  const fields = liveDl(contactFields(c));
  const ordersBox = h('div', { class: 'live-orders' }, ...contactOrders(orders));
  let ordersShown = JSON.stringify(orders);
  pollEverySecond(async () => {
    const [now, nowOrders] = await Promise.all([api('GET', contactPath), api('GET', ordersPath)]);
    fields.update(contactFields(now));
    const text = JSON.stringify(nowOrders);
    if (text !== ordersShown && !ordersBox.contains(document.activeElement)) {
      ordersShown = text;
      ordersBox.replaceChildren(...contactOrders(nowOrders));
    }
  });
  return [
    h('p', {}, h('a', { href: href('contacts') }, '« All contacts')),
    fields.el,
    h('h2', {}, 'Orders'),
    ordersBox,
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

function orderFields(o: Rec): LiveFields {
  return [
    ['Order', idCell(o.order_id), o.order_id],
    ['Date', orderDate(o.order_date), o.order_date],
    ['Total', `${o.total} ${o.currency}`, [o.total, o.currency]],
    ['Contact', contactLink(o.contact_id), o.contact_id],
    ['Contact id', idCell(o.contact_id), o.contact_id],
    ['E-mail', o.email, o.email],
    ['Phone', o.phone, o.phone],
    ['Accepts e-mail marketing', String(o.accepts_email_marketing ?? '—'), o.accepts_email_marketing],
    ['Accepts SMS marketing', String(o.accepts_sms_marketing ?? '—'), o.accepts_sms_marketing],
    ['Initial sync', String(o.initial_sync ?? false), o.initial_sync],
    ['Integration (attribution)', o.integration_id ? integrationRef(o.integration_id) : 'none', o.integration_id],
    ['Received', ago(o.created_at), o.created_at],
    ['Created by', requestLink(o.request_id), o.request_id],
    ['Updated', ago(o.updated_at), o.updated_at],
    ['Last changed by', requestLink(o.last_request_id), o.last_request_id],
  ];
}

const lineItems = (o: Rec) =>
  table(
    ['SKU', 'Name', 'Quantity', 'Price'],
    (o.line_items ?? []).map((l: Rec) => [l.sku ?? '—', l.name, l.quantity, l.price]),
    'Line items',
    'items',
  );

/** An order: every field and its line items live (asked every second). */
export async function orderPage(id: string): Promise<Node[]> {
  const path = `/orders/${encodeURIComponent(id)}${qs({ business_id: business() })}`;
  const [o] = await Promise.all([api('GET', path), loadIntegrationNames()]);
  await loadLabels([o.contact_id]);
  const fields = liveDl(orderFields(o));
  const items = h('div', {}, lineItems(o));
  let itemsShown = JSON.stringify(o.line_items);
  pollEverySecond(async () => {
    const now = await api('GET', path);
    await loadLabels([now.contact_id]);
    fields.update(orderFields(now));
    const text = JSON.stringify(now.line_items);
    if (text !== itemsShown) {
      itemsShown = text;
      items.replaceChildren(lineItems(now));
    }
  });
  return [h('p', {}, h('a', { href: href('orders') }, '« All orders')), fields.el, h('h2', {}, 'Line items'), items];
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
