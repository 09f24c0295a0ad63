/** What a logged request did (its `effects`), by person: the records it created, changed or deleted and the side effects it caused. */
import { h, href, type Rec } from './dom.js';
import { orderLink } from './lists.js';

/** A person named by e-mail (or phone, or id), linked to the contact's page. */
export function personLink(p: Rec | null | undefined, contactId?: string | null): Node | string {
  const id = (p?.contact_id as string | undefined) ?? contactId ?? undefined;
  if (!id) return 'no contact';
  const name = (p?.email as string | null) ?? (p?.phone as string | null) ?? id;
  return h('a', { href: href(`contacts/${encodeURIComponent(id)}`), title: id }, name);
}

function recordItem(r: Rec): HTMLElement {
  const action = String(r.action);
  if (r.type === 'order') return h('li', {}, 'Order ', orderLink(r.id), ` ${action}`);
  if (r.type === 'event') return h('li', {}, 'Event ', h('a', { href: href(`events/${encodeURIComponent(r.id)}`) }, r.id), ` ${action}`);
  return h('li', {}, `Contact ${action}`, r.action === 'deleted' ? ` (${r.id})` : '');
}

const EFFECT_TEXT: Record<string, string> = {
  welcome_sms: 'Welcome SMS sent',
  flow_trigger: 'Flow triggered',
  flow_run: 'Flow run',
  revenue_attribution: 'Revenue attributed',
};

function effectItem(e: Rec): HTMLElement {
  const flow = e.flow_id ? h('a', { href: href(`flows/${encodeURIComponent(e.flow_id)}`) }, 'its flow') : null;
  return h(
    'li',
    {},
    h('span', { class: `badge ${e.type}` }, e.type),
    ` ${EFFECT_TEXT[e.type] ?? e.type}`,
    e.type === 'welcome_sms' && e.person?.phone ? ` to ${e.person.phone}` : '',
    e.order_id ? h('span', {}, ' for order ', orderLink(e.order_id)) : '',
    flow ? h('span', {}, ' (', flow, e.trigger ? ` on ${e.trigger}` : '', ')') : '',
    h('span', { class: 'muted' }, ` #${e.seq}`),
  );
}

interface Group {
  person: Rec | null;
  contactId: string | null;
  records: Rec[];
  effects: Rec[];
}

function grouped(effects: Rec): Group[] {
  const groups = new Map<string, Group>();
  const groupOf = (person: Rec | null, contactId: string | null) => {
    const key = (person?.contact_id as string | undefined) ?? contactId ?? '';
    let g = groups.get(key);
    if (!g) {
      g = { person, contactId, records: [], effects: [] };
      groups.set(key, g);
    }
    if (!g.person && person) g.person = person;
    return g;
  };
  for (const r of (effects.records ?? []) as Rec[]) groupOf(r.person ?? null, r.type === 'contact' ? r.id : null).records.push(r);
  for (const e of (effects.side_effects ?? []) as Rec[]) groupOf(e.person ?? null, e.contact_id ?? null).effects.push(e);
  return [...groups.values()];
}

/** The "What it did" section: one entry per person, or a sentence saying nothing changed. */
export function effectsSection(effects: Rec | undefined): HTMLElement {
  const groups = effects ? grouped(effects) : [];
  const heading = h('h2', { id: 'effects-h' }, 'What it did');
  if (groups.length === 0)
    return h(
      'section',
      { 'aria-labelledby': 'effects-h', class: 'effects-of' },
      heading,
      h('p', { class: 'muted' }, 'Nothing: no record created, changed or deleted, no side effect.'),
    );
  return h(
    'section',
    { 'aria-labelledby': 'effects-h', class: 'effects-of' },
    heading,
    h(
      'ul',
      { class: 'people' },
      ...groups.map((g) =>
        h(
          'li',
          { class: 'person' },
          h('strong', {}, g.person || g.contactId ? personLink(g.person, g.contactId) : 'Not tied to a contact'),
          h('ul', {}, ...g.records.map(recordItem), ...g.effects.map(effectItem)),
        ),
      ),
    ),
  );
}
