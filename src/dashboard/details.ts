/** What a side effect carried (GET /_sandbox/outbox/details), and names of integrations, fetched once per page. */
import { api, business, h, qs, type Rec } from './dom.js';

const details = new Map<number, Record<string, string | null>>();
const integrations = new Map<string, string>();

/** Forgets what was fetched (after a restore or reset). */
export function forgetDetails(): void {
  details.clear();
  integrations.clear();
}

/** Fetches the content of the side effects not known yet (one call, up to 200 at a time). */
export async function loadDetails(seqs: number[]): Promise<void> {
  const missing = [...new Set(seqs.filter((s) => !details.has(s)))];
  for (let i = 0; i < missing.length; i += 200) {
    const chunk = missing.slice(i, i + 200);
    const { data } = await api('GET', `/outbox/details${qs({ seqs: chunk.join(','), business_id: business() })}`);
    for (const s of chunk) if (data[s]) details.set(s, data[s]);
  }
}

/** Fetches the business's integrations' names (for Orders and attributions). */
export async function loadIntegrationNames(): Promise<void> {
  const { data } = await api('GET', `/integrations${qs({ business_id: business() })}`);
  for (const i of data as Rec[]) integrations.set(i.id, i.name);
}

/** An integration by name, its id on hover. */
export function integrationRef(id: string | null | undefined, name?: string | null): Node | string {
  if (!id) return '—';
  return h('span', { title: id }, name ?? integrations.get(id) ?? id);
}

/** Text cut with an ellipsis in a one-line row: the whole of it on hover. */
const titled = (text: string) => h('span', { title: text }, text);

const amount = (d: Record<string, string | null>) => (d.amount ? `${d.amount} ${d.currency ?? ''}`.trim() : null);

/** One line saying what the side effect carried: the SMS's phone and text, the flow and event, the amount. */
export function contentCell(e: Rec): Node | string {
  const d = details.get(e.seq);
  if (!d) return '—';
  if (e.type === 'welcome_sms')
    return h('span', { class: 'content', title: d.text ?? '' }, `To ${d.phone ?? 'no phone'}: “${d.text ?? ''}”`);
  if (e.type === 'flow_run') return titled(`“${d.flow_name ?? `${e.flow_id} (deleted)`}” on ${d.event_type ?? '—'}`);
  if (e.type === 'revenue_attribution')
    return h(
      'span',
      {},
      `${amount(d) ?? '—'} attributed`,
      d.integration_id ? ' to ' : '',
      d.integration_id ? integrationRef(d.integration_id, d.integration_name) : '',
    );
  return titled([d.trigger, amount(d)].filter(Boolean).join(', ') || '—');
}
