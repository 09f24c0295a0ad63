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
  const scopes: string[] = current?.available_scopes ?? [];
  const scopesOf = (data: FormData) => data.getAll('scopes').map(String);

  const outs: Record<OutKey, HTMLElement> = {
    token: h('div', {}),
    app: h('div', {}),
    int: h('div', {}),
    biz: h('div', {}),
    fault: h('div', {}),
  };
  if (flash?.node) outs[flash.key].append(flash.node);
  const { token: tokenOut, app: appOut, int: intOut, biz: bizOut, fault: faultOut } = outs;
  /** Runs an action; then the page is drawn again with its result, or the error is shown in place. */
  const guarded = async (key: OutKey, act: () => Promise<Node | undefined>) => {
    try {
      rerender({ key, node: await act() });
    } catch (err) {
      failure(outs[key], err);
    }
  };
  const actionForm = (label: string, key: OutKey, act: (data: FormData) => Promise<Node | undefined>, ...fields: HTMLElement[]) => {
    const form = h('form', { 'aria-label': label }, ...fields);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void guarded(key, () => act(new FormData(form)));
    });
    return form;
  };

  const tokenSection = h(
    'section',
    { 'aria-labelledby': 'api-tokens' },
    h('h2', { id: 'api-tokens' }, 'API tokens'),
    actionForm(
      'Create an API token',
      'token',
      async (data) => {
        const t = await api('POST', '/api-tokens', {
          business_id: biz,
          name: String(data.get('name') || 'Dashboard token'),
          scopes: scopesOf(data),
        });
        return shownOnce(`API token ${t.id}`, t.token, 'new-api-token');
      },
      input('token-name', 'Token name', { name: 'name', placeholder: 'CI token' }),
      scopeBoxes('token-scope', scopes, ['contacts_read']),
      h('button', { type: 'submit' }, 'Create API token'),
    ),
    tokenOut,
    tokens.data.length > 0 && h('p', { class: 'count' }, countText(tokens.data.length, 'API token')),
    table(
      ['Token', 'Name', 'Scopes', 'Created', 'Last used', ''],
      tokens.data.map((t: Rec) => [
        idCell(t.id),
        t.name,
        h('span', { title: t.scopes.join(' ') }, t.scopes.join(' ') || '—'),
        ago(t.created_at),
        lastUsed(t, t.id),
        t.revoked_at
          ? h('span', {}, 'revoked ', ago(t.revoked_at))
          : h(
              'button',
              {
                type: 'button',
                'aria-label': `Revoke ${t.id}`,
                onclick: () =>
                  guarded('token', async () => {
                    await api('DELETE', `/api-tokens/${t.id}`);
                    return undefined;
                  }),
              },
              'Revoke',
            ),
      ]),
      'API tokens',
      'tokens',
    ),
  );

  const appSection = h(
    'section',
    { 'aria-labelledby': 'oauth-apps' },
    h('h2', { id: 'oauth-apps' }, 'OAuth applications'),
    actionForm(
      'Create an OAuth application',
      'app',
      async (data) => {
        const a = await api('POST', '/apps', {
          business_id: biz,
          name: String(data.get('name') || 'Dashboard app'),
          scopes: scopesOf(data),
        });
        return h(
          'div',
          {},
          h('p', { class: 'id' }, `Client id: ${a.client_id}`, ' ', copyButton(a.client_id, a.client_id)),
          shownOnce('Client secret', a.client_secret, 'new-client-secret'),
        );
      },
      input('app-name', 'Application name', { name: 'name', placeholder: 'My integration' }),
      scopeBoxes('app-scope', scopes, []),
      h('button', { type: 'submit' }, 'Create application'),
    ),
    appOut,
    apps.data.length > 0 && h('p', { class: 'count' }, countText(apps.data.length, 'OAuth application')),
    table(
      ['Client id', 'Name', 'Scopes', 'Created', 'Last used', ''],
      apps.data.map((a: Rec) => [
        idCell(a.client_id),
        a.name,
        h('span', { title: a.scopes.join(' ') }, a.scopes.join(' ') || '—'),
        ago(a.created_at),
        lastUsed(a, a.client_id),
        h(
          'span',
          { class: 'actions' },
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Regenerate secret of ${a.client_id}`,
              onclick: () =>
                guarded('app', async () =>
                  shownOnce(
                    `New secret of ${a.client_id}`,
                    (await api('POST', `/apps/${a.client_id}/secret`, {})).client_secret,
                    'new-client-secret',
                  ),
                ),
            },
            'Regenerate secret',
          ),
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Revoke tokens of ${a.client_id}`,
              onclick: () =>
                guarded('app', async () =>
                  notice(`${(await api('DELETE', `/apps/${a.client_id}/tokens`)).revoked} access token(s) revoked.`),
                ),
            },
            'Revoke tokens',
          ),
        ),
      ]),
      'OAuth applications',
      'apps',
    ),
  );

  const intSection = h(
    'section',
    { 'aria-labelledby': 'integrations' },
    h('h2', { id: 'integrations' }, 'Integrations Hub'),
    actionForm(
      'Create a Custom Integration',
      'int',
      async (data) => {
        await api('POST', '/integrations', { business_id: biz, name: String(data.get('name') || 'Custom Integration') });
        return undefined;
      },
      input('integration-name', 'Integration name', { name: 'name', placeholder: 'Custom Integration' }),
      h('button', { type: 'submit' }, 'Create Custom Integration'),
    ),
    intOut,
    integrations.data.length > 0 && h('p', { class: 'count' }, countText(integrations.data.length, 'Custom Integration')),
    table(
      ['Integration', 'Name', 'Token', 'Active'],
      integrations.data.map((i: Rec) => {
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
            failure(intOut, err);
          }
        });
        const active = h('input', { type: 'checkbox', id: `active-${i.id}`, checked: i.active });
        active.addEventListener('change', () =>
          api('PATCH', `/integrations/${i.id}`, { active: active.checked }).then(
            () => intOut.replaceChildren(notice(`${i.id} is now ${active.checked ? 'active' : 'inactive'}.`)),
            (err) => failure(intOut, err),
          ),
        );
        return [
          idCell(i.id),
          i.name,
          h('span', { class: 'id' }, token, ' ', reveal),
          h('label', { for: `active-${i.id}` }, active, ' Active'),
        ];
      }),
      'Custom Integrations',
      'integrations',
    ),
  );

  const bizSection = h(
    'section',
    { 'aria-labelledby': 'businesses' },
    h('h2', { id: 'businesses' }, 'Businesses and scopes'),
    businesses.data.length > 0 && h('p', { class: 'count' }, countText(businesses.data.length, 'business', 'businesses')),
    table(
      ['Business', 'Name', 'Available scopes'],
      businesses.data.map((b: Rec) => [idCell(b.id), b.name, b.available_scopes.join(' ') || '—']),
      'Businesses',
      'businesses',
    ),
    actionForm(
      'Create a business',
      'biz',
      async (data) => {
        const b = await api('POST', '/businesses', { name: String(data.get('name') || 'Business'), available_scopes: scopesOf(data) });
        return notice(`Business ${b.id} created.`);
      },
      input('business-name', 'Business name', { name: 'name', required: true }),
      scopeBoxes(
        'business-scope',
        ['contacts_read', 'contacts_write', 'events_write', 'orders_write'],
        ['contacts_read', 'contacts_write', 'events_write', 'orders_write'],
      ),
      h('button', { type: 'submit' }, 'Create business'),
    ),
    bizOut,
  );

  const FAULTS: [string, string, string][] = [
    ['error_rate', 'Error rate (500), 0 to 1', '0.01'],
    ['unavailable_rate', 'Unavailable rate (503), 0 to 1', '0.01'],
    ['reset_rate', 'Connection reset rate, 0 to 1', '0.01'],
    ['latency_ms', 'Added latency (ms)', '1'],
    ['rate_limit_rps', 'Rate limit (requests per second per token)', '1'],
  ];
  const faultSection = h(
    'section',
    { 'aria-labelledby': 'faults' },
    h('h2', { id: 'faults' }, 'Fault injection'),
    h('p', {}, 'Applies to /v1/* and /oauth/token. In force now: ', h('code', { id: 'faults-now' }, JSON.stringify(faults))),
    actionForm(
      'Set faults',
      'fault',
      async (data) => {
        const body: Record<string, unknown> = {};
        for (const [k] of FAULTS) {
          const v = String(data.get(k) ?? '').trim();
          if (v !== '') body[k] = Number(v);
        }
        const limits = rateLimitBody(data);
        if (limits) body.rate_limits = limits;
        await api('PUT', '/faults', body);
        return undefined;
      },
      ...FAULTS.map(([k, label, step]) => input(`fault-${k}`, label, { name: k, type: 'number', min: 0, step, value: faults[k] ?? '' })),
      rateLimitFields(faults.rate_limits),
      h('button', { type: 'submit' }, 'Set faults'),
      h(
        'button',
        {
          type: 'button',
          onclick: () =>
            guarded('fault', async () => {
              await api('PUT', '/faults', {});
              return undefined;
            }),
        },
        'Clear faults',
      ),
    ),
    faultOut,
  );
  return [tokenSection, appSection, intSection, bizSection, faultSection];
}
