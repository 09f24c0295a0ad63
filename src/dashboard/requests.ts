/**
 * The Requests page (the sandbox's request log, live), one request in full (bodies, the refusal
 * explained), and the deprecations panel of the first page.
 */

import { idCell } from './copy.js';
import { api, business, dl, h, href, input, notice, qs, type Rec, route, select } from './dom.js';
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

const statusBadge = (s: number) => h('span', { class: `badge status s${String(s)[0]}xx` }, String(s));

/** A filter form whose submit puts its non-empty fields into the route's query. */
function filters(values: URLSearchParams): HTMLFormElement {
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter requests' },
    input('request_id', 'Request id', { type: 'search', value: values.get('request_id') ?? '', placeholder: 'req_…' }),
    select('status', 'Status', STATUSES, values.get('status') ?? ''),
    select('method', 'Method', METHODS, values.get('method') ?? ''),
    input('path', 'Path starts with', { value: values.get('path') ?? '', placeholder: '/v1/orders' }),
    input('credential', 'Credential', { value: values.get('credential') ?? '', placeholder: 'name or id' }),
    select('kind', 'Kind', KINDS, values.get('kind') ?? '', 'api'),
    h('button', { type: 'submit' }, 'Apply'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v: Record<string, string> = {};
    for (const [k, x] of new FormData(form)) if (typeof x === 'string' && x.trim() !== '') v[k] = x.trim();
    location.hash = href('requests', v);
  });
  return form;
}

function row(e: Rec, fresh: boolean): HTMLTableRowElement {
  const path = e.query ? `${e.path}?${e.query}` : e.path;
  const cells: [string, Node | string][] = [
    ['Time', ago(e.time)],
    ['Status', statusBadge(e.status)],
    ['Method', e.method],
    ['Path', h('span', { title: path }, path)],
    ['Credential', credentialName(e.credential)],
    [
      'Error',
      e.error
        ? h('span', { title: e.error.message }, e.error.code)
        : e.deprecations.length > 0
          ? h('span', { class: 'badge deprecated' }, 'deprecated')
          : '—',
    ],
    ['Request', idCell(e.request_id, href(`requests/${encodeURIComponent(e.request_id)}`))],
  ];
  return h(
    'tr',
    { class: fresh ? 'new' : undefined, 'data-request-id': e.request_id },
    ...cells.map(([label, c]) => h('td', { 'data-label': label }, c)),
  );
}

export async function requestsPage(): Promise<Node[]> {
  const p = route().params;
  const keys = ['status', 'method', 'path', 'credential', 'request_id', 'kind'];
  const f: Record<string, string | undefined> = {};
  for (const k of keys) f[k] = p.get(k) ?? undefined;
  f.business_id = p.get('biz') ?? undefined;
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
  const empty = h('p', { class: 'empty', hidden: page.data.length > 0 }, 'No requests logged yet.');
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
    filters(p),
    h('div', { class: 'toolbar' }, count, status),
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

function bodyBlock(title: string, b: Rec): HTMLElement {
  const text =
    b.body === null
      ? b.bytes > 0
        ? `(${b.bytes} bytes, not read: the request was refused before its body was read)`
        : '(none)'
      : pretty(b.body) + (b.truncated ? `\n… cut at 16 KiB of ${b.bytes} bytes` : '');
  return h(
    'section',
    { 'aria-label': title },
    h('h2', {}, title, b.content_type ? h('span', { class: 'muted' }, ` ${b.content_type}`) : null),
    // Scrolls when long (24rem): focusable, so the keyboard can scroll it.
    h('pre', { class: 'body', tabindex: 0, 'aria-label': title }, text),
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export async function requestPage(id: string): Promise<Node[]> {
  const e = await api('GET', `/requests/${encodeURIComponent(id)}`);
  const refused = e.explanation
    ? h(
        'section',
        { class: 'explain', 'aria-label': 'Why it was refused' },
        h('h2', {}, e.status >= 500 ? 'What happened' : 'Why it was refused'),
        h('p', {}, e.explanation.rule),
        h('h2', {}, 'What to change'),
        h('p', {}, e.explanation.fix),
      )
    : null;
  const deprecated =
    e.deprecations.length > 0
      ? h(
          'section',
          { class: 'explain deprecated', 'aria-label': 'Deprecated usage' },
          h('h2', {}, 'Deprecated or removed usage'),
          h('ul', {}, ...e.deprecations.map((d: Rec) => h('li', {}, `${d.what} (${d.status}): use ${d.replacement}`))),
        )
      : null;
  const top: Node[] = [h('p', {}, h('a', { href: href('requests') }, '« All requests')), refused ?? notice(`Answered ${e.status}.`)];
  if (deprecated) top.push(deprecated);
  return [
    ...top,
    dl([
      ['Request id', idCell(e.request_id)],
      ['Time', ago(e.time)],
      ['Request', `${e.method} ${e.query ? `${e.path}?${e.query}` : e.path}`],
      ['Status', statusBadge(e.status)],
      ['Error', e.error ? `${e.error.code}: ${e.error.message}` : '—'],
      ['Credential', credentialName(e.credential)],
      ['Business', idCell(e.business_id)],
      ['Kind', e.kind],
      ['Duration', `${e.duration_ms} ms`],
    ]),
    bodyBlock('Request body', e.request),
    bodyBlock('Answer body', e.response),
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
