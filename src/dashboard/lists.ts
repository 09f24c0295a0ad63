/** The live lists: Contacts, Orders and Events, each with its count, its search and its filters. */
import { EMAIL_CONSENT_VALUES, SMS_CONSENT_VALUES } from '../contract/consent.js';
import { idCell } from './copy.js';
import { integrationRef, loadIntegrationNames } from './details.js';
import { api, business, h, href, input, pager, qs, type Rec, route, select } from './dom.js';
import { contactRef, loadLabels } from './labels.js';
import { countText, startListLive } from './live-list.js';
import { ago, orderDate } from './time.js';

export const orderLink = (id: string | null | undefined) => (id ? h('a', { href: href(`orders/${encodeURIComponent(id)}`) }, id) : '—');
/** An order id linked to its page, with a copy button. */
export const orderCell = (id: string | null | undefined) => idCell(id, id ? href(`orders/${encodeURIComponent(id)}`) : undefined);

/** A filter form whose submit puts its non-empty fields into the route's query. */
export function filterForm(path: string, label: string, ...fields: HTMLElement[]): HTMLFormElement {
  const form = h('form', { class: 'filters', 'aria-label': label }, ...fields, h('button', { type: 'submit' }, 'Apply'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const values: Record<string, string> = {};
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v.trim() !== '') values[k] = v.trim();
    location.hash = href(path, values);
  });
  return form;
}

/** A list table (kept even when empty, so live rows have a place), its rows one line high; `labels` name the cells for the 390 px cards. */
function listTable(caption: string, headers: string[], cls: string) {
  const tbody = h('tbody', {});
  const row = (cells: (Node | string)[], key: string) =>
    h('tr', { 'data-key': key }, ...cells.map((c, i) => h('td', { 'data-label': headers[i] }, c)));
  const el = h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      { class: `list cards ${cls}` },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
      tbody,
    ),
  );
  return { el, tbody, row };
}

async function livePage(opts: {
  path: string;
  filters: Record<string, string | undefined>;
  caption: string;
  headers: string[];
  cls: string;
  noun: [string, string?];
  key: (r: Rec) => string;
  prepare?: (rows: Rec[]) => Promise<void>;
  cells: (r: Rec) => (Node | string)[];
}): Promise<{ nodes: Node[]; page: Rec }> {
  const p = route().params;
  const base = `/${opts.path}${qs({ business_id: business(), ...opts.filters })}`;
  const page = await api('GET', `${base}${base.includes('?') ? '&' : '?'}${qs({ cursor: p.get('cursor') ?? undefined }).slice(1)}`);
  await opts.prepare?.(page.data);
  const t = listTable(opts.caption, opts.headers, opts.cls);
  const row = (r: Rec) => t.row(opts.cells(r), opts.key(r));
  for (const r of page.data) t.tbody.append(row(r));
  const count = h('p', { class: 'count', role: 'status' }, countText(page.total, ...(opts.noun as [string, string])));
  const live = !p.has('cursor');
  // Said in words when there is nothing yet; gone when the first live row arrives.
  const empty = page.data.length === 0 ? h('p', { class: 'empty' }, `No ${opts.caption.toLowerCase()} yet.`) : null;
  startListLive({
    path: base,
    first: page.data,
    tbody: t.tbody,
    count,
    noun: opts.noun,
    key: opts.key,
    prepare: opts.prepare,
    onRows: () => empty?.remove(),
    row,
    live,
  });
  const hint = live ? h('p', { class: 'muted live-hint' }, 'Live: new and changed rows are highlighted.') : null;
  return {
    nodes: [h('div', { class: 'toolbar' }, count, hint), empty, t.el, pager(opts.path, p, page.next_cursor)].filter(
      (n): n is HTMLElement => n !== null,
    ),
    page,
  };
}

export async function contactsPage(): Promise<Node[]> {
  const p = route().params;
  const filters = {
    email_consent: p.get('email_consent') ?? undefined,
    sms_consent: p.get('sms_consent') ?? undefined,
    q: p.get('q') ?? undefined,
  };
  const { nodes } = await livePage({
    path: 'contacts',
    filters,
    caption: 'Contacts',
    headers: ['Contact', 'E-mail', 'Phone', 'Name', 'E-mail consent', 'SMS consent', 'Orders', 'Created'],
    cls: 'contacts',
    noun: ['contact'],
    key: (c) => c.id,
    cells: (c) => [
      idCell(c.id, href(`contacts/${encodeURIComponent(c.id)}`)),
      c.email ?? '—',
      c.phone ?? '—',
      [c.first_name, c.last_name].filter(Boolean).join(' ') || '—',
      c.email_consent,
      c.sms_consent,
      String(c.orders_count),
      ago(c.created_at),
    ],
  });
  return [
    filterForm(
      'contacts',
      'Filter contacts',
      input('q', 'Search e-mail or phone', { type: 'search', value: p.get('q') ?? '' }),
      select('email_consent', 'E-mail consent', EMAIL_CONSENT_VALUES, p.get('email_consent') ?? ''),
      select('sms_consent', 'SMS consent', SMS_CONSENT_VALUES, p.get('sms_consent') ?? ''),
    ),
    ...nodes,
  ];
}

export async function ordersPage(): Promise<Node[]> {
  const p = route().params;
  const { nodes } = await livePage({
    path: 'orders',
    filters: { q: p.get('q') ?? undefined },
    caption: 'Orders',
    headers: ['Order', 'Date', 'Total', 'Contact', 'Integration', 'Initial sync', 'Items', 'Received'],
    cls: 'orders',
    noun: ['order'],
    key: (o) => o.order_id,
    prepare: async (rows) => {
      await Promise.all([loadLabels(rows.map((o) => o.contact_id)), loadIntegrationNames()]);
    },
    cells: (o) => [
      idCell(o.order_id, href(`orders/${encodeURIComponent(o.order_id)}`)),
      orderDate(o.order_date),
      `${o.total} ${o.currency}`,
      contactRef(o.contact_id),
      integrationRef(o.integration_id),
      String(o.initial_sync ?? false),
      String(o.line_items?.length ?? 0),
      ago(o.created_at),
    ],
  });
  return [filterForm('orders', 'Search orders', input('q', 'Search order id', { type: 'search', value: p.get('q') ?? '' })), ...nodes];
}

export async function eventsPage(): Promise<Node[]> {
  const p = route().params;
  const type = p.get('event_type') ?? undefined;
  const { nodes, page } = await livePage({
    path: 'events',
    filters: { event_type: type, q: p.get('q') ?? undefined },
    caption: 'Events',
    headers: ['Event', 'Type', 'Contact', 'Occurred', 'Properties'],
    cls: 'events',
    noun: ['event'],
    key: (e) => e.id,
    prepare: (rows) => loadLabels(rows.map((e) => e.contact_id)),
    cells: (e) => [
      idCell(e.id, href(`events/${encodeURIComponent(e.id)}`)),
      e.event_type,
      contactRef(e.contact_id),
      ago(e.occurred_at),
      h('code', { class: 'props', title: JSON.stringify(e.properties, null, 2) ?? '' }, e.properties ? JSON.stringify(e.properties) : '—'),
    ],
  });
  const types: string[] = page.event_types ?? [];
  return [
    filterForm(
      'events',
      'Filter events',
      input('q', 'Search event id', { type: 'search', value: p.get('q') ?? '' }),
      select('event_type', 'Event type', type && !types.includes(type) ? [type, ...types] : types, type ?? '', 'all types'),
    ),
    ...nodes,
  ];
}
