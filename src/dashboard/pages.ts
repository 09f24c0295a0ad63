/** The read pages: Contacts (and a contact), Orders (and an order), Events, Timeline (live). */
import { EMAIL_CONSENT_VALUES, SMS_CONSENT_VALUES } from '../contract/consent.js';
import { contentCell, integrationRef, loadDetails, loadIntegrationNames } from './details.js';
import { api, business, dl, h, href, input, pager, qs, type Rec, route, select, table, when } from './dom.js';
import { flowNames } from './flows.js';
import { contactRef, loadLabels } from './labels.js';

const SIDE_EFFECTS = ['welcome_sms', 'flow_trigger', 'flow_run', 'revenue_attribution'];

const contactLink = contactRef;
const orderLink = (id: string | null | undefined) => (id ? h('a', { href: href(`orders/${encodeURIComponent(id)}`) }, id) : '—');
const money = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([c, v]) => `${v} ${c}`)
    .join(', ') || '—';

/** A filter form whose submit puts its non-empty fields into the route's query. */
function filterForm(path: string, label: string, ...fields: HTMLElement[]): HTMLFormElement {
  const form = h('form', { class: 'filters', 'aria-label': label }, ...fields, h('button', { type: 'submit' }, 'Apply'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const values: Record<string, string> = {};
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim() !== '') values[k] = v.trim();
    location.hash = href(path, values);
  });
  return form;
}

export async function contactsPage(): Promise<Node[]> {
  const p = route().params;
  const page = await api(
    'GET',
    `/contacts${qs({ business_id: business(), email_consent: p.get('email_consent') ?? undefined, sms_consent: p.get('sms_consent') ?? undefined, q: p.get('q') ?? undefined, cursor: p.get('cursor') ?? undefined })}`,
  );
  return [
    filterForm(
      'contacts',
      'Filter contacts',
      input('q', 'Search e-mail or phone', { type: 'search', value: p.get('q') ?? '' }),
      select('email_consent', 'E-mail consent', EMAIL_CONSENT_VALUES, p.get('email_consent') ?? ''),
      select('sms_consent', 'SMS consent', SMS_CONSENT_VALUES, p.get('sms_consent') ?? ''),
    ),
    table(
      ['Contact', 'E-mail', 'Phone', 'Name', 'E-mail consent', 'SMS consent', 'Orders', 'Created'],
      page.data.map((c: Rec) => [
        h('a', { href: href(`contacts/${encodeURIComponent(c.id)}`) }, c.id),
        c.email ?? '—',
        c.phone ?? '—',
        [c.first_name, c.last_name].filter(Boolean).join(' ') || '—',
        c.email_consent,
        c.sms_consent,
        c.orders_count,
        when(c.created_at),
      ]),
      'Contacts',
    ),
    pager('contacts', p, page.next_cursor),
  ];
}

/** What set a side effect off; a flow run names its flow (linked to the Flows page). */
function triggerCell(e: Rec, flows: Map<string, string>) {
  if (e.type !== 'flow_run' || !e.flow_id) return e.trigger ?? '—';
  const name = flows.get(e.flow_id) ?? `${e.flow_id} (deleted)`;
  return h('span', {}, h('a', { href: href('flows') }, name), ` on ${e.trigger ?? '—'}`);
}

function sideEffectRows(effects: Rec[], flows: Map<string, string> = new Map()) {
  return effects.map((e) => [
    e.seq,
    h('span', { class: `badge ${e.type}` }, e.type),
    contactLink(e.contact_id),
    orderLink(e.order_id),
    e.event_id ?? '—',
    triggerCell(e, flows),
    contentCell(e),
    when(e.created_at),
  ]);
}
const SIDE_EFFECT_HEADERS = ['#', 'Type', 'Contact', 'Order', 'Event', 'Trigger', 'Content', 'At'];

export async function contactPage(id: string): Promise<Node[]> {
  const biz = business();
  const [c, orders, effects, flows] = await Promise.all([
    api('GET', `/contacts/${encodeURIComponent(id)}${qs({ business_id: biz })}`),
    api('GET', `/orders${qs({ business_id: biz, contact_id: id, limit: 100 })}`),
    api('GET', `/outbox${qs({ business_id: biz, contact_id: id, limit: 100 })}`),
    flowNames(),
  ]);
  await loadDetails(effects.data.map((e: Rec) => e.seq));
  return [
    h('p', {}, h('a', { href: href('contacts') }, '« All contacts')),
    dl([
      ['Id', c.id],
      ['E-mail', c.email],
      ['Phone', c.phone],
      ['First name', c.first_name],
      ['Last name', c.last_name],
      ['E-mail consent', c.email_consent],
      ['SMS consent', c.sms_consent],
      ['Orders', String(c.orders_count)],
      ['Total spent', money(c.total_spent)],
      ['Last order', when(c.last_order_at)],
      ['Created', when(c.created_at)],
      ['Updated', when(c.updated_at)],
    ]),
    h('h2', {}, 'Orders'),
    table(
      ['Order', 'Date', 'Total', 'Initial sync'],
      orders.data.map((o: Rec) => [orderLink(o.order_id), o.order_date, `${o.total} ${o.currency}`, String(o.initial_sync ?? false)]),
      'Orders',
    ),
    h('h2', {}, 'Side effects'),
    table(SIDE_EFFECT_HEADERS, sideEffectRows(effects.data, flows), 'Side effects'),
  ];
}

export async function ordersPage(): Promise<Node[]> {
  const p = route().params;
  const page = await api('GET', `/orders${qs({ business_id: business(), cursor: p.get('cursor') ?? undefined })}`);
  await Promise.all([loadLabels(page.data.map((o: Rec) => o.contact_id)), loadIntegrationNames()]);
  return [
    table(
      ['Order', 'Date', 'Total', 'Contact', 'Integration', 'Initial sync', 'Line items'],
      page.data.map((o: Rec) => [
        orderLink(o.order_id),
        o.order_date,
        `${o.total} ${o.currency}`,
        contactLink(o.contact_id),
        integrationRef(o.integration_id),
        String(o.initial_sync ?? false),
        o.line_items?.length ?? 0,
      ]),
      'Orders',
    ),
    pager('orders', p, page.next_cursor),
  ];
}

export async function orderPage(id: string): Promise<Node[]> {
  const [o] = await Promise.all([
    api('GET', `/orders/${encodeURIComponent(id)}${qs({ business_id: business() })}`),
    loadIntegrationNames(),
  ]);
  return [
    h('p', {}, h('a', { href: href('orders') }, '« All orders')),
    dl([
      ['Order', o.order_id],
      ['Date', o.order_date],
      ['Total', `${o.total} ${o.currency}`],
      ['Contact', contactLink(o.contact_id)],
      ['E-mail', o.email],
      ['Phone', o.phone],
      ['Accepts e-mail marketing', String(o.accepts_email_marketing ?? '—')],
      ['Accepts SMS marketing', String(o.accepts_sms_marketing ?? '—')],
      ['Initial sync', String(o.initial_sync ?? false)],
      ['Integration (attribution)', o.integration_id ? integrationRef(o.integration_id) : 'none'],
      ['Created', when(o.created_at)],
      ['Updated', when(o.updated_at)],
    ]),
    h('h2', {}, 'Line items'),
    table(
      ['SKU', 'Name', 'Quantity', 'Price'],
      (o.line_items ?? []).map((l: Rec) => [l.sku ?? '—', l.name, l.quantity, l.price]),
      'Line items',
    ),
  ];
}

export async function eventsPage(): Promise<Node[]> {
  const p = route().params;
  const type = p.get('event_type') ?? undefined;
  const page = await api('GET', `/events${qs({ business_id: business(), event_type: type, cursor: p.get('cursor') ?? undefined })}`);
  await loadLabels(page.data.map((e: Rec) => e.contact_id));
  return [
    filterForm('events', 'Filter events', input('event_type', 'Event type', { value: type ?? '' })),
    table(
      ['Event', 'Type', 'Contact', 'Occurred', 'Properties'],
      page.data.map((e: Rec) => [
        e.id,
        e.event_type,
        contactLink(e.contact_id),
        when(e.occurred_at),
        h('pre', {}, JSON.stringify(e.properties, null, 2) ?? '—'),
      ]),
      'Events',
    ),
    pager('events', p, page.next_cursor),
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
    body.prepend(h('tr', { class: fresh ? 'new' : undefined }, ...(cells ?? []).map((c) => h('td', {}, c))));
  };
  await Promise.all([loadLabels(recent.data.map((e: Rec) => e.contact_id)), loadDetails(recent.data.map((e: Rec) => e.seq))]);
  for (const e of recent.data) add(e, false);
  const status = h('p', { class: 'live', role: 'status' }, 'Connecting…');
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
      .then(() => add(e, true));
  };
  return [
    filterForm('timeline', 'Filter side effects', select('type', 'Type', SIDE_EFFECTS, type ?? '', 'all types')),
    status,
    h(
      'div',
      { class: 'scroll', role: 'region', 'aria-label': 'Side effects', tabindex: 0 },
      h(
        'table',
        { id: 'timeline' },
        h('caption', { class: 'visually-hidden' }, 'Side effects, newest first'),
        h('thead', {}, h('tr', {}, ...SIDE_EFFECT_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    ),
  ];
}
