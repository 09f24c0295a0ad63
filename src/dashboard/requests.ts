/**
 * The Requests page (the sandbox's request log, live: searched, filtered, exported) and the
 * deprecations panel of the first page. One request in full is request-page.ts.
 */

import { copyButton } from './copy.js';
import { api, business, foldable, h, href, input, qs, type Rec, route, select } from './dom.js';
import { requestLink } from './request-ref.js';
import { ago } from './time.js';

const STATUSES = ['2xx', '4xx', '5xx', '400', '401', '403', '404', '409', '422', '429'];
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];
const KINDS = ['api', 'admin', 'all'];

let live: EventSource | undefined;

/** Closes the Requests page's live stream (when leaving the page). */
export function stopRequestsLive(): void {
  live?.close();
  live = undefined;
}

export function credentialName(c: Rec): string {
  if (c.kind === 'api_token') return `${c.name} (API token)`;
  if (c.kind === 'oauth_app') return `${c.name} (OAuth app)`;
  if (c.kind === 'unknown_token') return 'unknown token';
  if (c.kind === 'unknown_client') return `unknown client ${c.id}`;
  return '—';
}

export const statusBadge = (s: number) => h('span', { class: `badge status s${String(s)[0]}xx` }, String(s));

/** The search and filters as the admin API takes them, from the route. */
const FILTER_KEYS = ['search', 'status', 'method', 'path', 'credential', 'request_id', 'kind', 'replay_of'];

/** The route's query into the admin API's filters. */
export function requestFilters(p: URLSearchParams): Record<string, string | undefined> {
  const f: Record<string, string | undefined> = {};
  for (const k of FILTER_KEYS) f[k] = p.get(k) ?? undefined;
  f.business_id = p.get('biz') ?? undefined;
  return f;
}

/** Puts a form's non-empty fields (and `keep`) into the route's query. */
function submitTo(form: HTMLFormElement, keep: Record<string, string>): void {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v: Record<string, string> = { ...keep };
    for (const [k, x] of new FormData(form)) if (typeof x === 'string' && x.trim() !== '') v[k] = x.trim();
    location.hash = href('requests', v);
  });
}

/** The search box: e-mail, phone, any id, any text of the bodies (the admin API's `search`). */
function searchForm(values: URLSearchParams): HTMLFormElement {
  const form = h(
    'form',
    { class: 'filters search', role: 'search', 'aria-label': 'Search requests' },
    input('search', 'Search e-mail, phone, id or body text', {
      type: 'search',
      value: values.get('search') ?? '',
      placeholder: 'ada@example.com',
    }),
    h('button', { type: 'submit' }, 'Search'),
  );
  const keep = Object.fromEntries([...values].filter(([k]) => k !== 'search' && k !== 'biz' && k !== 'cursor'));
  submitTo(form, keep);
  return form;
}

/** The filters, folded behind one button on a phone (with how many are set). */
function filters(values: URLSearchParams): HTMLElement {
  const form = h(
    'form',
    { class: 'filters', id: 'request-filters', 'aria-label': 'Filter requests' },
    input('request_id', 'Request id', { type: 'search', value: values.get('request_id') ?? '', placeholder: 'req_…' }),
    select('status', 'Status', STATUSES, values.get('status') ?? ''),
    select('method', 'Method', METHODS, values.get('method') ?? ''),
    input('path', 'Path starts with', { value: values.get('path') ?? '', placeholder: '/v1/orders' }),
    input('credential', 'Credential', { value: values.get('credential') ?? '', placeholder: 'name or id' }),
    select('kind', 'Kind', KINDS, values.get('kind') ?? '', 'api'),
    h('button', { type: 'submit' }, 'Apply'),
  );
  const search = values.get('search');
  submitTo(form, search ? { search } : {});
  const set = FILTER_KEYS.filter((k) => k !== 'search' && values.get(k)).length;
  return foldable(form, set > 0 ? `Filters (${set} set)` : 'Filters');
}

/** The distinguishing end of the id, linked; a replay says of which request. */
function requestCell(e: Rec): Node {
  return h(
    'span',
    { class: 'id' },
    requestLink(e.request_id),
    copyButton(e.request_id, e.request_id),
    e.replay_of ? h('span', { class: 'badge replay', title: `A replay of ${e.replay_of}` }, 'replay') : null,
  );
}

/** The error's code and message, and on a second line the rule that refused it (or the deprecation). */
function errorCell(e: Rec): Node | string {
  if (e.error) {
    const message = `${e.error.code}: ${e.error.message}`;
    const reason = e.explanation?.rule as string | undefined;
    return h(
      'span',
      { class: 'error' },
      h('span', { class: 'message', title: message }, h('strong', {}, e.error.code), `: ${e.error.message}`),
      reason ? h('span', { class: 'reason', title: reason }, reason) : null,
    );
  }
  return e.deprecations.length > 0 ? h('span', { class: 'badge deprecated' }, 'deprecated') : '—';
}

function row(e: Rec, fresh: boolean): HTMLTableRowElement {
  const path = e.query ? `${e.path}?${e.query}` : e.path;
  const cells: [string, Node | string][] = [
    ['Time', ago(e.time)],
    ['Status', statusBadge(e.status)],
    ['Method', e.method],
    ['Path', h('span', { title: path }, path)],
    ['Credential', credentialName(e.credential)],
    ['Error', errorCell(e)],
    ['Request', requestCell(e)],
  ];
  return h(
    'tr',
    { class: fresh ? 'new' : undefined, 'data-request-id': e.request_id },
    ...cells.map(([label, c]) => h('td', { 'data-label': label }, c)),
  );
}

/** Links downloading the log (with the filters shown) as HAR 1.2 or NDJSON. */
export function exportLinks(filters: Record<string, string | undefined>): HTMLElement {
  const link = (format: string, text: string) =>
    h('a', { class: 'button', href: `/_sandbox/requests/export${qs({ ...filters, format })}`, download: '' }, text);
  return h('p', { class: 'actions export' }, link('har', 'Export HAR'), link('ndjson', 'Export NDJSON'));
}

export async function requestsPage(): Promise<Node[]> {
  const p = route().params;
  const f = requestFilters(p);
  const page = await api('GET', `/requests${qs({ ...f, limit: 50, cursor: p.get('cursor') ?? undefined })}`);
  let total = page.total as number;
  const count = h('p', { class: 'count' }, `${total.toLocaleString('en')} request${total === 1 ? '' : 's'}`);
  const body = h('tbody', {}, ...page.data.map((e: Rec) => row(e, false)));
  const status = h('p', { class: 'live', role: 'status' }, 'Connecting…');
  stopRequestsLive();
  if (!p.get('cursor')) {
    // The stream starts right after the newest request this page listed: nothing is lost between.
    live = new EventSource(`/_sandbox/requests/stream${qs({ ...f, after: page.latest_seq })}`);
    live.onopen = () => {
      status.textContent = 'Live: new requests appear at the top.';
    };
    live.onerror = () => {
      status.textContent = 'Reconnecting…';
    };
    live.onmessage = (m) => {
      body.prepend(row(JSON.parse(m.data), true));
      total++;
      count.textContent = `${total.toLocaleString('en')} request${total === 1 ? '' : 's'}`;
      empty.hidden = true;
      wrap.hidden = false;
    };
  } else status.textContent = 'An older page: not live.';
  const empty = h(
    'p',
    { class: 'empty', hidden: page.data.length > 0 },
    p.get('search') ? 'No request matches.' : 'No requests logged yet.',
  );
  const wrap = h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': 'Requests', tabindex: 0, hidden: page.data.length === 0 },
    h(
      'table',
      { class: 'log cards', id: 'requests' },
      h('caption', { class: 'visually-hidden' }, 'Requests, newest first'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Time', 'Status', 'Method', 'Path', 'Credential', 'Error', 'Request'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      body,
    ),
  );
  const keep = Object.fromEntries([...p].filter(([k]) => k !== 'biz' && k !== 'cursor'));
  return [
    searchForm(p),
    filters(p),
    h('div', { class: 'toolbar' }, count, status, exportLinks(f)),
    empty,
    wrap,
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      p.get('cursor') ? h('a', { href: href('requests', keep) }, '« Newest') : null,
      page.next_cursor ? h('a', { href: href('requests', { ...keep, cursor: page.next_cursor }) }, 'Older »') : null,
    ),
  ];
}

/** The first page's panel: deprecated or removed usages seen in this business, per credential. */
export async function deprecationsPanel(): Promise<Node> {
  const { data } = await api('GET', `/deprecations${qs({ business_id: business() })}`);
  if (data.length === 0) return h('p', { class: 'deprecations-none muted', id: 'deprecations' }, 'No deprecated usage seen.');
  return h(
    'section',
    { class: 'explain deprecated', id: 'deprecations', 'aria-label': 'Deprecated usage seen' },
    h('h2', {}, `Deprecated usage seen (${data.length})`),
    h(
      'ul',
      {},
      ...data.map((d: Rec) =>
        h(
          'li',
          {},
          h('strong', {}, d.what),
          ` by ${credentialName(d.credential)}: ${d.count}×, last `,
          ago(d.last_seen),
          ' (',
          h('a', { href: href(`requests/${encodeURIComponent(d.example_request_id)}`) }, 'example'),
          `). Use ${d.replacement}.`,
        ),
      ),
    ),
  );
}
