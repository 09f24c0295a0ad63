/** The Snapshots panel of Settings: the saved snapshots, save the whole state under a name, restore one, delete one. */
import { AdminError, api, h, input, notice, type Rec } from './dom.js';
import { countText } from './live-list.js';
import { checkState } from './state.js';
import { ago } from './time.js';

const size = (bytes: number) => (bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KiB`);

/** The panel; it redraws itself after each action (the rest of the page stays). */
export async function snapshotsPanel(): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'snapshots-h' });
  const draw = async (flash?: { text: string; kind: 'ok' | 'error' }) => {
    const { data, total } = await api('GET', '/snapshots');
    const act = async (what: () => Promise<string>) => {
      try {
        await draw({ text: await what(), kind: 'ok' });
      } catch (err) {
        await draw({ text: err instanceof AdminError ? err.message : String(err), kind: 'error' });
      }
    };
    const form = h(
      'form',
      { 'aria-label': 'Save a snapshot', class: 'filters' },
      input('snapshot-name', 'Snapshot name', { name: 'name', required: true, maxlength: 64, placeholder: 'seeded' }),
      h('button', { type: 'submit' }, 'Save snapshot'),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = String(new FormData(form).get('name') ?? '').trim();
      void act(async () => {
        const s = await api('POST', '/snapshots', { name });
        return `Snapshot “${s.name}” ${s.replaced ? 'replaced' : 'saved'}: ${countText(s.contacts, 'contact')}, ${countText(s.orders, 'order')}.`;
      });
    });
    const rows = (data as Rec[]).map((s) =>
      h(
        'tr',
        {},
        h('td', { 'data-label': 'Name' }, h('code', {}, s.name)),
        h('td', { 'data-label': 'Saved' }, ago(s.created_at)),
        h('td', { 'data-label': 'Contacts' }, s.contacts.toLocaleString('en')),
        h('td', { 'data-label': 'Orders' }, s.orders.toLocaleString('en')),
        h('td', { 'data-label': 'Size' }, size(s.bytes)),
        h(
          'td',
          { 'data-label': 'Actions' },
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Restore ${s.name}`,
              onclick: () => {
                if (!confirm(`Replace the whole state of the sandbox with snapshot “${s.name}”?`)) return;
                // The whole page is drawn again from the restored state, the notice above it.
                api('POST', `/snapshots/${encodeURIComponent(s.name)}/restore`).then(
                  (r) => checkState(r.duration_ms),
                  (err) => draw({ text: err instanceof AdminError ? err.message : String(err), kind: 'error' }),
                );
              },
            },
            'Restore',
          ),
          ' ',
          h(
            'button',
            {
              type: 'button',
              'aria-label': `Delete ${s.name}`,
              onclick: () => {
                if (!confirm(`Delete snapshot “${s.name}”?`)) return;
                void act(async () => {
                  await api('DELETE', `/snapshots/${encodeURIComponent(s.name)}`);
                  return `Snapshot “${s.name}” deleted.`;
                });
              },
            },
            'Delete',
          ),
        ),
      ),
    );
    section.replaceChildren(
      h('h2', { id: 'snapshots-h' }, 'Snapshots'),
      h('p', { class: 'muted' }, 'A copy of the whole state (every business). Restore replaces it atomically.'),
      flash ? notice(flash.text, flash.kind) : '',
      form,
      h('p', { class: 'count' }, countText(total, 'snapshot')),
      rows.length === 0
        ? h('p', { class: 'empty' }, 'No snapshots yet.')
        : h(
            'div',
            { class: 'scroll', role: 'region', 'aria-label': 'Snapshots', tabindex: 0 },
            h(
              'table',
              { class: 'cards snapshots' },
              h('caption', { class: 'visually-hidden' }, 'Snapshots'),
              h(
                'thead',
                {},
                h('tr', {}, ...['Name', 'Saved', 'Contacts', 'Orders', 'Size', 'Actions'].map((t) => h('th', { scope: 'col' }, t))),
              ),
              h('tbody', {}, ...rows),
            ),
          ),
    );
  };
  await draw();
  return section;
}
