/** One flow: what it runs on, whether it is enabled, and its runs (live: a new run appears at the top, highlighted). */
import { idCell } from './copy.js';
import { loadDetails } from './details.js';
import { api, business, dl, h, href, qs, type Rec } from './dom.js';
import { triggerText } from './flows.js';
import { loadLabels } from './labels.js';
import { countText } from './live-list.js';
import { SIDE_EFFECT_HEADERS, sideEffectRows } from './pages.js';
import { ago } from './time.js';

let live: EventSource | undefined;

/** Closes the flow page's stream (when leaving the page). */
export function stopFlowLive(): void {
  live?.close();
  live = undefined;
}

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
  const names = new Map([[f.id as string, f.name as string]]);
  await Promise.all([loadLabels(runs.data.map((e: Rec) => e.contact_id)), loadDetails(runs.data.map((e: Rec) => e.seq))]);
  const body = h('tbody', {});
  let total = f.runs as number;
  const count = h('p', { class: 'count', role: 'status' }, countText(total, 'run'));
  const add = (e: Rec, fresh: boolean) => {
    const [cells] = sideEffectRows([e], names);
    body.prepend(
      h('tr', { class: fresh ? 'new' : undefined }, ...(cells ?? []).map((c, i) => h('td', { 'data-label': SIDE_EFFECT_HEADERS[i] }, c))),
    );
  };
  for (const e of runs.data) add(e, false);
  stopFlowLive();
  // After the last run listed: a run recorded between the fetch and the stream is not lost.
  const last = runs.data.length > 0 ? runs.data[runs.data.length - 1].seq : 0;
  live = new EventSource(`/_sandbox/outbox/stream${qs({ business_id: biz, type: 'flow_run', after: last })}`);
  let queue = Promise.resolve();
  live.onmessage = (m) => {
    const e = JSON.parse(m.data);
    if (e.flow_id !== id) return;
    queue = queue
      .then(() => Promise.all([loadLabels([e.contact_id]), loadDetails([e.seq])]).catch(() => undefined))
      .then(() => {
        add(e, true);
        count.textContent = countText(++total, 'run');
      });
  };
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
    h('div', { class: 'toolbar' }, count, h('p', { class: 'muted live-hint' }, 'Live: new runs appear at the top.')),
    h(
      'div',
      { class: 'scroll', role: 'region', 'aria-label': 'Runs', tabindex: 0 },
      h(
        'table',
        { class: 'list cards effects' },
        h('caption', { class: 'visually-hidden' }, 'Runs of the flow, newest first'),
        h('thead', {}, h('tr', {}, ...SIDE_EFFECT_HEADERS.map((t) => h('th', { scope: 'col' }, t)))),
        body,
      ),
    ),
  ];
}
