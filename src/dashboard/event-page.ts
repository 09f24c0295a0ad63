/** One event: its fields, its person, the request that sent it and the side effects it set off. */
import { idCell } from './copy.js';
import { api, business, dl, h, href, qs, type Rec } from './dom.js';
import { liveEffects } from './effects-live.js';
import { flowNames } from './flows.js';
import { contactRef, loadLabels } from './labels.js';
import { requestLink } from './request-ref.js';
import { ago } from './time.js';

export async function eventPage(id: string): Promise<Node[]> {
  const biz = business();
  const [e, flows] = await Promise.all([api('GET', `/events/${encodeURIComponent(id)}${qs({ business_id: biz })}`), flowNames()]);
  const effects: Rec[] = e.side_effects ?? [];
  await loadLabels([e.contact_id]);
  return [
    h('p', {}, h('a', { href: href('events') }, '« All events')),
    dl([
      ['Id', idCell(e.id)],
      ['Type', e.event_type],
      ['Contact', contactRef(e.contact_id)],
      ['Client event id', e.event_id ? idCell(e.event_id) : '—'],
      ['Occurred', ago(e.occurred_at)],
      ['Received', ago(e.received_at)],
      ['Sent by', requestLink(e.request_id)],
    ]),
    h('h2', {}, 'Properties'),
    h('pre', { class: 'body', tabindex: 0, 'aria-label': 'Properties' }, e.properties ? JSON.stringify(e.properties, null, 2) : '(none)'),
    h('h2', {}, 'Side effects'),
    ...(await liveEffects({
      caption: 'Side effects of the event',
      effects,
      total: effects.length,
      noun: ['side effect'],
      flows,
      accept: (x) => x.event_id === e.id,
    })),
  ];
}
