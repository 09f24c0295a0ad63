/**
 * One logged request in full: the refusal explained, what it did (by person), a fault's "write
 * applied", copy as curl, replay, export, and both bodies (secrets masked).
 */
import { copyButton, idCell } from './copy.js';
import { AdminError, api, dl, h, href, notice, type Rec } from './dom.js';
import { effectsSection } from './request-effects.js';
import { requestLink } from './request-ref.js';
import { credentialName, exportLinks, statusBadge } from './requests.js';
import { ago } from './time.js';

function bodyBlock(title: string, b: Rec): HTMLElement {
  const text =
    b.body === null
      ? b.bytes > 0
        ? `(${b.bytes} bytes, not read: the request was refused before its body was read)`
        : '(none)'
      : pretty(b.body) + (b.truncated ? `\n… cut at 16 KiB of ${b.bytes} bytes` : '');
  return h(
    'section',
    { 'aria-label': title },
    h('h2', {}, title, b.content_type ? h('span', { class: 'muted' }, ` ${b.content_type}`) : null),
    // Scrolls when long (24rem): focusable, so the keyboard can scroll it.
    h('pre', { class: 'body', tabindex: 0, 'aria-label': title }, text),
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const yesNo = (v: unknown) => (v === true ? 'yes' : v === false ? 'no' : 'not a write');

/** The explanation of a refusal (or "Answered 200."), the deprecations, and where it stands among replays. */
function summary(e: Rec): Node[] {
  const out: Node[] = [
    e.explanation
      ? h(
          'section',
          { class: 'explain', 'aria-label': 'Why it was refused' },
          h('h2', {}, e.status >= 500 ? 'What happened' : 'Why it was refused'),
          h('p', {}, e.explanation.rule),
          h('h2', {}, 'What to change'),
          h('p', {}, e.explanation.fix),
        )
      : notice(`Answered ${e.status}.`),
  ];
  if (e.deprecations.length > 0)
    out.push(
      h(
        'section',
        { class: 'explain deprecated', 'aria-label': 'Deprecated usage' },
        h('h2', {}, 'Deprecated or removed usage'),
        h('ul', {}, ...e.deprecations.map((d: Rec) => h('li', {}, `${d.what} (${d.status}): use ${d.replacement}`))),
      ),
    );
  if (e.replay_of) out.push(h('p', { class: 'replay-of' }, 'A replay of ', requestLink(e.replay_of), '.'));
  const replays = (e.replays ?? []) as string[];
  if (replays.length > 0)
    out.push(
      h('p', { class: 'replays' }, `Replayed ${replays.length}×: `, ...replays.flatMap((r, i) => [i > 0 ? ', ' : '', requestLink(r)]), '.'),
    );
  return out;
}

/** Replay: sends the request again; the outcome (a link to the new request) is said below the buttons. */
function replayButton(id: string, out: HTMLElement): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'replay' }, 'Replay');
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      const r = await api('POST', `/requests/${encodeURIComponent(id)}/replay`, {});
      out.replaceChildren(
        h(
          'p',
          { class: 'notice ok', role: 'status' },
          `Replayed: answered ${r.status} as request `,
          requestLink(r.request_id),
          ' (in the log, marked as a replay of this one).',
        ),
      );
    } catch (err) {
      out.replaceChildren(notice(err instanceof AdminError ? err.message : String(err), 'error'));
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

/** The request as a curl command (secrets as variables the user sets), with its Copy button. */
function curlSection(curl: Rec | null): HTMLElement | null {
  if (!curl) return null;
  const vars = (curl.variables ?? []) as Rec[];
  return h(
    'section',
    { 'aria-labelledby': 'curl-h' },
    h('h2', { id: 'curl-h' }, 'As curl'),
    vars.length > 0
      ? h(
          'p',
          { class: 'muted' },
          'Set first: ',
          ...vars.flatMap((v, i) => [i > 0 ? '; ' : '', h('code', {}, `${v.name}`), ` (${v.for})`]),
          '.',
        )
      : null,
    h('pre', { class: 'body curl', tabindex: 0, 'aria-label': 'The request as curl' }, curl.curl),
  );
}

export async function requestPage(id: string): Promise<Node[]> {
  const path = `/requests/${encodeURIComponent(id)}`;
  const e = await api('GET', path);
  // Fetched with the page, so that the Copy button writes the clipboard at once (a browser wants it while the tap is fresh).
  const curl = e.kind === 'admin' ? null : await api('GET', `${path}/curl`).catch(() => null);
  const out = h('div', { class: 'action-out' });
  const actions = h(
    'div',
    { class: 'actions request-actions' },
    curl ? copyButton(curl.curl, 'the request as curl', 'Copy as curl') : null,
    e.kind === 'admin' ? null : replayButton(id, out),
    exportLinks({ request_id: id, kind: 'all' }),
  );
  const fault = e.fault as Rec | null | undefined;
  const rows: [string, Node | string | null][] = [
    ['Request id', idCell(e.request_id)],
    ['Time', ago(e.time)],
    ['Request', `${e.method} ${e.query ? `${e.path}?${e.query}` : e.path}`],
    ['Status', statusBadge(e.status)],
    ['Error', e.error ? `${e.error.code}: ${e.error.message}` : '—'],
    ['Credential', credentialName(e.credential)],
    ['Business', idCell(e.business_id)],
    ['Kind', e.kind],
    ['Duration', `${e.duration_ms} ms`],
  ];
  if (fault) rows.push(['Injected fault', fault.kind], ['Write applied', yesNo(fault.write_applied)]);
  if (e.replay_of) rows.push(['Replay of', requestLink(e.replay_of)]);
  return [
    h('p', {}, h('a', { href: href('requests') }, '« All requests')),
    ...summary(e),
    actions,
    out,
    dl(rows),
    effectsSection(e.effects),
    curlSection(curl),
    bodyBlock('Request body', e.request),
    bodyBlock('Answer body', e.response),
  ].filter((n): n is HTMLElement => n !== null);
}
