/** DOM helpers of the dashboard: elements built from data (never from HTML strings), the admin API, the route. */

/** A record of the admin API's answers (plain JSON). */
// biome-ignore lint/suspicious/noExplicitAny: the admin API's answers are plain JSON records
export type Rec = Record<string, any>;

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;

/** An element with attributes (on* keys are listeners; false/undefined leave the attribute out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) setAttr(el, k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

/** One attribute of `h`: a listener, the live value or checked state of a field, or an attribute. */
function setAttr(el: HTMLElement, k: string, v: Attrs[string]): void {
  if (v === undefined || v === false) return;
  if (typeof v === 'function') el.addEventListener(k.slice(2), v);
  else if (k === 'value' && 'value' in el) (el as HTMLInputElement).value = String(v);
  else if (k === 'checked' && 'checked' in el) (el as HTMLInputElement).checked = Boolean(v);
  else el.setAttribute(k, v === true ? '' : String(v));
}

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A call to the admin API (/_sandbox); throws AdminError with the service's message. */
// biome-ignore lint/suspicious/noExplicitAny: the admin API's answers are plain JSON records
export async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!res.ok) throw new AdminError(res.status, json?.error?.message ?? `HTTP ${res.status}`);
  return json;
}

/**
 * Runs `tick` every `ms` milliseconds, one at a time: a slow tick is not overlapped, a failed one
 * (the sandbox may be restarting) is retried at the next. Returns the interval, for clearInterval.
 */
export function everyWithoutOverlap(ms: number, tick: () => Promise<void>): ReturnType<typeof setInterval> {
  let busy = false;
  return setInterval(() => {
    if (busy) return;
    busy = true;
    tick()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, ms);
}

/** A query string from the defined values. */
export function qs(values: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The current route: `#/contacts/ID?biz=...` → {parts: ['contacts', 'ID'], params}. */
export function route(): { parts: string[]; params: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?', 2);
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

export function business(): string {
  return route().params.get('biz') ?? 'biz_default';
}

/** A link inside the dashboard, keeping the business. */
export function href(path: string, extra: Record<string, string> = {}): string {
  const biz = business();
  return `#/${path}${qs({ ...(biz === 'biz_default' ? {} : { biz }), ...extra })}`;
}

/** "API tokens", "OAuth applications", "side effects": lower case but for names written with inner capitals. */
const lowered = (caption: string) =>
  caption
    .split(' ')
    .map((w) => (/^.[^A-Z]*$/.test(w) ? w.toLowerCase() : w))
    .join(' ');

/**
 * A table as wide as its page: at 1280 px each row one line (long cells cut with an ellipsis), at
 * 390 px each row a card of labelled fields (`data-label`, from the headers); `cls` sets its columns' widths.
 */
export function table(headers: string[], rows: Child[][], caption: string, cls = ''): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, `No ${lowered(caption)} yet.`);
  return h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      { class: `list cards ${cls}`.trim() },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, ...headers.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c, i) => h('td', { 'data-label': headers[i] ?? '' }, c))))),
    ),
  );
}

export function select(id: string, label: string, options: readonly string[], value: string, blank = 'any'): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h(
      'select',
      { id, name: id },
      h('option', { value: '' }, blank),
      ...options.map((o) => h('option', { value: o, selected: o === value }, o)),
    ),
  );
}

export function input(id: string, label: string, attrs: Attrs = {}): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), h('input', { id, name: id, ...attrs }));
}

export function dl(entries: [string, Child][]): HTMLElement {
  return h('dl', { class: 'fields' }, ...entries.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

/** A status line for the outcome of an action (announced to screen readers). */
export function notice(text: string, kind: 'ok' | 'error' = 'ok'): HTMLElement {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** Paging links: newer (back) and older (next_cursor). */
export function pager(path: string, params: URLSearchParams, next: string | null): HTMLElement {
  const keep = Object.fromEntries([...params].filter(([k]) => k !== 'biz' && k !== 'cursor'));
  const hasCursor = params.has('cursor');
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    hasCursor ? h('a', { href: href(path, keep) }, '« Newest') : null,
    next ? h('a', { href: href(path, { ...keep, cursor: next }) }, 'Older »') : null,
  );
}

/** A form folded behind one button on narrow screens (CSS shows the button there only); wide screens show the form. */
export function foldable(form: HTMLFormElement, label: string): HTMLElement {
  const wrap = h('div', { class: 'foldable' });
  const toggle = h('button', { type: 'button', class: 'fold-toggle', 'aria-expanded': 'false', 'aria-controls': form.id }, label);
  toggle.addEventListener('click', () => {
    const open = wrap.classList.toggle('open');
    toggle.setAttribute('aria-expanded', String(open));
  });
  wrap.append(toggle, form);
  return wrap;
}
