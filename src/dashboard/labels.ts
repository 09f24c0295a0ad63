/** What people read beside a contact reference: its e-mail (or phone, or name), fetched once per page for every id shown. */
import { api, business, h, href, qs } from './dom.js';

const known = new Map<string, string>();

/** Forgets every label (after a restore or reset). */
export function forgetLabels(): void {
  known.clear();
}

/** Fetches the labels of the ids not known yet (one call, up to 200 at a time). */
export async function loadLabels(ids: (string | null | undefined)[]): Promise<void> {
  const missing = [...new Set(ids.filter((id): id is string => typeof id === 'string' && !known.has(id)))];
  for (let i = 0; i < missing.length; i += 200) {
    const chunk = missing.slice(i, i + 200);
    const { data } = await api('GET', `/contact-labels${qs({ ids: chunk.join(','), business_id: business() })}`);
    for (const id of chunk) {
      const c = data[id];
      known.set(id, c ? (c.email ?? c.phone ?? c.name ?? id) : id);
    }
  }
}

/** A link to a contact showing its e-mail (the id on hover), or its id when unknown. */
export function contactRef(id: string | null | undefined): Node | string {
  if (!id) return '—';
  const label = known.get(id) ?? id;
  return h('a', { href: href(`contacts/${encodeURIComponent(id)}`), title: id }, label);
}
