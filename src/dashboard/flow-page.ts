/** One flow: what it runs on, whether it is enabled, and its runs (live: a new run appears at the top, highlighted). */
import { idCell } from './copy.js';
import { api, business, dl, h, href, qs, type Rec } from './dom.js';
import { liveEffects } from './effects-live.js';
import { triggerText } from './flows.js';
import { ago } from './time.js';

export async function flowPage(id: string): Promise<Node[]> {
  const biz = business();
  const [{ data: flows }, runs] = await Promise.all([
    api('GET', `/flows${qs({ business_id: biz })}`),
    api('GET', `/outbox${qs({ business_id: biz, flow_id: id, limit: 100 })}`),
  ]);
  const f = (flows as Rec[]).find((x) => x.id === id);
  if (!f)
    return [
      h('p', {}, h('a', { href: href('flows') }, '« All flows')),
      h('p', { class: 'notice error', role: 'alert' }, `There is no flow ${id} in ${biz}.`),
    ];
  return [
    h('p', {}, h('a', { href: href('flows') }, '« All flows')),
    dl([
      ['Id', idCell(f.id)],
      ['Name', f.name],
      ['Runs when', triggerText(f)],
      ['Enabled', f.enabled ? 'yes' : 'no (runs nothing)'],
      ['Last run', ago(f.last_run_at)],
      ['Created', ago(f.created_at)],
    ]),
    h('h2', {}, 'Runs'),
    ...(await liveEffects({
      caption: 'Runs of the flow',
      effects: runs.data,
      total: runs.total,
      noun: ['run'],
      flows: new Map([[f.id as string, f.name as string]]),
      type: 'flow_run',
      accept: (e) => e.flow_id === id,
    })),
  ];
}
