/** Settings: businesses and their scopes, API tokens, OAuth applications, the Integrations Hub, fault injection. */

import { copyButton, idCell } from './copy.js';
import { AdminError, api, business, h, href, input, notice, type Rec, table } from './dom.js';
import { countText } from './live-list.js';
import { rateLimitBody, rateLimitFields } from './rate-limit-fields.js';
import { ago, fullTime } from './time.js';

/** A result to show after the page is drawn again: in which section's output, what. */
export interface Flash {
  key: OutKey;
  node?: Node;
}
type OutKey = 'token' | 'app' | 'int' | 'biz' | 'fault';
type Rerender = (flash: Flash) => void;

function failure(out: HTMLElement, err: unknown): void {
  out.replaceChildren(notice(err instanceof AdminError ? err.message : String(err), 'error'));
}

/** Scope checkboxes (a fieldset with a legend), none checked unless listed. */
function scopeBoxes(prefix: string, scopes: string[], checked: string[]): HTMLElement {
  return h(
    'fieldset',
    { class: 'scopes' },
    h('legend', {}, 'Scopes'),
    ...scopes.map((s) =>
      h(
        'label',
        { for: `${prefix}-${s}` },
        h('input', { type: 'checkbox', id: `${prefix}-${s}`, name: 'scopes', value: s, checked: checked.includes(s) }),
        ` ${s}`,
      ),
    ),
  );
}

/** A secret shown once, with the warning. */
function shownOnce(label: string, value: string, id: string): HTMLElement {
  return h(
    'div',
    { class: 'secret', role: 'status' },
    h('p', {}, `${label} — copy it now: it will not be shown again.`),
    h('p', { class: 'id' }, h('output', { id, 'aria-label': label }, value), ' ', copyButton(value, label)),
  );
}

/** When a credential was last used, linked to its requests in the log ("never" until it is). */
function lastUsed(c: Rec, id: string): Node | string {
  if (!c.last_used_at) return 'never';
  return h(
    'a',
    { href: href('requests', { credential: id }), 'aria-label': `Last used ${fullTime(c.last_used_at)}: the requests of ${id}` },
    ago(c.last_used_at),
  );
}

/** What every section needs: the business, its scopes, the output places and the ways to act. */
interface Page {
  biz: string;
  scopes: string[];
  outs: Record<OutKey, HTMLElement>;
  /** Runs an action; then the page is drawn again with its result, or the error is shown in place. */
  guarded: (key: OutKey, act: () => Promise<Node | undefined>) => Promise<void>;
  /** A form whose submit runs an action, guarded. */
  actionForm: (label: string, key: OutKey, act: (data: FormData) => Promise<Node | undefined>, ...fields: HTMLElement[]) => HTMLFormElement;
}

function pageOf(rerender: Rerender, biz: string, scopes: string[], flash?: Flash): Page {
  const outs: Record<OutKey, HTMLElement> = {
    token: h('div', {}),
    app: h('div', {}),
    int: h('div', {}),
    biz: h('div', {}),
    fault: h('div', {}),
  };
  if (flash?.node) outs[flash.key].append(flash.node);
  const guarded = async (key: OutKey, act: () => Promise<Node | undefined>) => {
    try {
      rerender({ key, node: await act() });
    } catch (err) {
      failure(outs[key], err);
    }
  };
  const actionForm: Page['actionForm'] = (label, key, act, ...fields) => {
    const form = h('form', { 'aria-label': label }, ...fields);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void guarded(key, () => act(new FormData(form)));
    });
    return form;
  };
  return { biz, scopes, outs, guarded, actionForm };
}

const scopesOf = (data: FormData) => data.getAll('scopes').map(String);

/** A button that runs an action, guarded, in the output of its section. */
function actionButton(page: Page, key: OutKey, label: string, text: string, act: () => Promise<Node | undefined>): HTMLElement {
  return h('button', { type: 'button', 'aria-label': label, onclick: () => page.guarded(key, act) }, text);
}

/** A section: its heading, then its parts in order. */
function section(id: string, title: string, ...parts: (Node | false)[]): HTMLElement {
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...parts);
}

/** "3 API tokens" above a list, or nothing when it is empty. */
function countLine(rows: Rec[], one: string, many?: string): Node | false {
  return rows.length > 0 && h('p', { class: 'count' }, countText(rows.length, one, many));
}

/** A credential's scopes, in full on hover. */
function scopesCell(scopes: string[]): HTMLElement {
  return h('span', { title: scopes.join(' ') }, scopes.join(' ') || '—');
}

/** What differs between the two credentials with scopes: API tokens and OAuth applications. */
interface CredentialKind {
  key: 'token' | 'app';
  /** The section's heading id, its title (the table's caption too) and the table's class. */
  sectionId: string;
  title: string;
  tableClass: string;
  noun: string;
  /** The admin API's path, and the field holding a credential's id. */
  path: string;
  idField: string;
  idHeader: string;
  /** The create form: the name when none is given, the name field, the scopes checked first, the button. */
  fallback: string;
  nameLabel: string;
  placeholder: string;
  checked: string[];
  button: string;
}

const TOKEN: CredentialKind = {
  key: 'token',
  sectionId: 'api-tokens',
  title: 'API tokens',
  tableClass: 'tokens',
  noun: 'API token',
  path: '/api-tokens',
  idField: 'id',
  idHeader: 'Token',
  fallback: 'Dashboard token',
  nameLabel: 'Token name',
  placeholder: 'CI token',
  checked: ['contacts_read'],
  button: 'Create API token',
};

const APP: CredentialKind = {
  key: 'app',
  sectionId: 'oauth-apps',
  title: 'OAuth applications',
  tableClass: 'apps',
  noun: 'OAuth application',
  path: '/apps',
  idField: 'client_id',
  idHeader: 'Client id',
  fallback: 'Dashboard app',
  nameLabel: 'Application name',
  placeholder: 'My integration',
  checked: [],
  button: 'Create application',
};

/** The form creating a named credential with scopes; the created credential is shown by `shown`. */
function credentialForm(page: Page, kind: CredentialKind, shown: (created: Rec) => Node): HTMLFormElement {
  return page.actionForm(
    `Create an ${kind.noun}`,
    kind.key,
    async (data) => {
      const created = await api('POST', kind.path, {
        business_id: page.biz,
        name: String(data.get('name') || kind.fallback),
        scopes: scopesOf(data),
      });
      return shown(created);
    },
    input(`${kind.key}-name`, kind.nameLabel, { name: 'name', placeholder: kind.placeholder }),
    scopeBoxes(`${kind.key}-scope`, page.scopes, kind.checked),
    h('button', { type: 'submit' }, kind.button),
  );
}

/**
 * A credential's section: the create form and its output, the count, and the table (id, name,
 * scopes, created, last used, and the last cell `last` draws).
 */
function credentialSection(
  page: Page,
  kind: CredentialKind,
  rows: Rec[],
  shown: (created: Rec) => Node,
  last: (c: Rec) => Node,
): HTMLElement {
  const id = (c: Rec) => c[kind.idField] as string;
  return section(
    kind.sectionId,
    kind.title,
    credentialForm(page, kind, shown),
    page.outs[kind.key],
    countLine(rows, kind.noun),
    table(
      [kind.idHeader, 'Name', 'Scopes', 'Created', 'Last used', ''],
      rows.map((c: Rec) => [idCell(id(c)), c.name, scopesCell(c.scopes), ago(c.created_at), lastUsed(c, id(c)), last(c)]),
      kind.title,
      kind.tableClass,
    ),
  );
}

function tokenSection(page: Page, tokens: Rec[]): HTMLElement {
  const revoke = (t: Rec) =>
    t.revoked_at
      ? h('span', {}, 'revoked ', ago(t.revoked_at))
      : actionButton(page, 'token', `Revoke ${t.id}`, 'Revoke', async () => {
          await api('DELETE', `/api-tokens/${t.id}`);
          return undefined;
        });
  return credentialSection(page, TOKEN, tokens, (t) => shownOnce(`API token ${t.id}`, t.token, 'new-api-token'), revoke);
}

function appSection(page: Page, apps: Rec[]): HTMLElement {
  const created = (a: Rec) =>
    h(
      'div',
      {},
      h('p', { class: 'id' }, `Client id: ${a.client_id}`, ' ', copyButton(a.client_id, a.client_id)),
      shownOnce('Client secret', a.client_secret, 'new-client-secret'),
    );
  const actions = (a: Rec) =>
    h(
      'span',
      { class: 'actions' },
      actionButton(page, 'app', `Regenerate secret of ${a.client_id}`, 'Regenerate secret', async () =>
        shownOnce(
          `New secret of ${a.client_id}`,
          (await api('POST', `/apps/${a.client_id}/secret`, {})).client_secret,
          'new-client-secret',
        ),
      ),
      actionButton(page, 'app', `Revoke tokens of ${a.client_id}`, 'Revoke tokens', async () =>
        notice(`${(await api('DELETE', `/apps/${a.client_id}/tokens`)).revoked} access token(s) revoked.`),
      ),
    );
  return credentialSection(page, APP, apps, created, actions);
}

/** A Custom Integration's row: its token hidden behind Reveal, and its Active switch. */
function integrationRow(i: Rec, out: HTMLElement): (Node | string)[] {
  const token = h('span', { class: 'token', id: `token-${i.id}` }, '••••••••');
  const reveal = h('button', { type: 'button', 'aria-label': `Reveal the token of ${i.id}` }, 'Reveal');
  reveal.addEventListener('click', async () => {
    try {
      const value = (await api('GET', `/integrations/${i.id}/token`)).token as string;
      token.textContent = value;
      // The Reveal button gives way to a Copy button, which takes the keyboard's focus.
      const copy = copyButton(value, `the token of ${i.id}`);
      reveal.replaceWith(copy);
      copy.focus();
    } catch (err) {
      failure(out, err);
    }
  });
  const active = h('input', { type: 'checkbox', id: `active-${i.id}`, checked: i.active });
  active.addEventListener('change', () =>
    api('PATCH', `/integrations/${i.id}`, { active: active.checked }).then(
      () => out.replaceChildren(notice(`${i.id} is now ${active.checked ? 'active' : 'inactive'}.`)),
      (err) => failure(out, err),
    ),
  );
  return [idCell(i.id), i.name, h('span', { class: 'id' }, token, ' ', reveal), h('label', { for: `active-${i.id}` }, active, ' Active')];
}

function integrationSection(page: Page, integrations: Rec[]): HTMLElement {
  return section(
    'integrations',
    'Integrations Hub',
    page.actionForm(
      'Create a Custom Integration',
      'int',
      async (data) => {
        await api('POST', '/integrations', { business_id: page.biz, name: String(data.get('name') || 'Custom Integration') });
        return undefined;
      },
      input('integration-name', 'Integration name', { name: 'name', placeholder: 'Custom Integration' }),
      h('button', { type: 'submit' }, 'Create Custom Integration'),
    ),
    page.outs.int,
    countLine(integrations, 'Custom Integration'),
    table(
      ['Integration', 'Name', 'Token', 'Active'],
      integrations.map((i: Rec) => integrationRow(i, page.outs.int)),
      'Custom Integrations',
      'integrations',
    ),
  );
}

const ALL_SCOPES = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'];

function businessSection(page: Page, businesses: Rec[]): HTMLElement {
  return section(
    'businesses',
    'Businesses and scopes',
    countLine(businesses, 'business', 'businesses'),
    table(
      ['Business', 'Name', 'Available scopes'],
      businesses.map((b: Rec) => [idCell(b.id), b.name, b.available_scopes.join(' ') || '—']),
      'Businesses',
      'businesses',
    ),
    page.actionForm(
      'Create a business',
      'biz',
      async (data) => {
        const b = await api('POST', '/businesses', { name: String(data.get('name') || 'Business'), available_scopes: scopesOf(data) });
        return notice(`Business ${b.id} created.`);
      },
      input('business-name', 'Business name', { name: 'name', required: true }),
      scopeBoxes('business-scope', ALL_SCOPES, ALL_SCOPES),
      h('button', { type: 'submit' }, 'Create business'),
    ),
    page.outs.biz,
  );
}

/** The numeric faults: the field, its label, its step. */
const FAULTS: { key: string; label: string; step: string }[] = [
  { key: 'error_rate', label: 'Error rate (500), 0 to 1', step: '0.01' },
  { key: 'unavailable_rate', label: 'Unavailable rate (503), 0 to 1', step: '0.01' },
  { key: 'reset_rate', label: 'Connection reset rate, 0 to 1', step: '0.01' },
  { key: 'latency_ms', label: 'Added latency (ms)', step: '1' },
  { key: 'rate_limit_rps', label: 'Rate limit (requests per second per token)', step: '1' },
];

/** The body of PUT /faults from the form: the numeric faults filled in, and the rate limits. */
function faultBody(data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { key } of FAULTS) {
    const v = String(data.get(key) ?? '').trim();
    if (v !== '') body[key] = Number(v);
  }
  const limits = rateLimitBody(data);
  if (limits) body.rate_limits = limits;
  return body;
}

function faultSection(page: Page, faults: Rec): HTMLElement {
  const putFaults = async (body: Record<string, unknown>) => {
    await api('PUT', '/faults', body);
    return undefined;
  };
  return section(
    'faults',
    'Fault injection',
    h('p', {}, 'Applies to /v1/* and /oauth/token. In force now: ', h('code', { id: 'faults-now' }, JSON.stringify(faults))),
    page.actionForm(
      'Set faults',
      'fault',
      (data) => putFaults(faultBody(data)),
      ...FAULTS.map(({ key, label, step }) =>
        input(`fault-${key}`, label, { name: key, type: 'number', min: 0, step, value: faults[key] ?? '' }),
      ),
      rateLimitFields(faults.rate_limits),
      h('button', { type: 'submit' }, 'Set faults'),
      h('button', { type: 'button', onclick: () => page.guarded('fault', () => putFaults({})) }, 'Clear faults'),
    ),
    page.outs.fault,
  );
}

export async function settingsPage(rerender: Rerender, flash?: Flash): Promise<Node[]> {
  const biz = business();
  const q = `?business_id=${encodeURIComponent(biz)}`;
  const [businesses, tokens, apps, integrations, faults] = await Promise.all([
    api('GET', '/businesses'),
    api('GET', `/api-tokens${q}`),
    api('GET', `/apps${q}`),
    api('GET', `/integrations${q}`),
    api('GET', '/faults'),
  ]);
  const current = businesses.data.find((b: Rec) => b.id === biz);
  const page = pageOf(rerender, biz, current?.available_scopes ?? [], flash);
  return [
    tokenSection(page, tokens.data),
    appSection(page, apps.data),
    integrationSection(page, integrations.data),
    businessSection(page, businesses.data),
    faultSection(page, faults),
  ];
}
