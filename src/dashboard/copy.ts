/** Copy buttons: one beside every id and token the dashboard shows, reachable by keyboard, the outcome announced. */
import { h } from './dom.js';

/** One status line for the whole page, read by screen readers ("Copied ct_…"). */
function announce(text: string): void {
  let live = document.getElementById('copy-status');
  if (!live) {
    live = h('p', { id: 'copy-status', class: 'visually-hidden', role: 'status' });
    document.body.append(live);
  }
  live.textContent = text;
}

/**
 * A button copying `text` to the clipboard, labelled for what it copies ("Copy ct_…", "Copy the
 * token of int_…"); `shown` is its visible text (its accessible name too, when not "Copy").
 */
export function copyButton(text: string, what: string, shown = 'Copy'): HTMLButtonElement {
  const label = shown === 'Copy' ? `Copy ${what}` : shown;
  const b = h('button', { type: 'button', class: 'copy', 'aria-label': label, title: `Copy ${what}` }, shown);
  b.addEventListener('click', () => {
    const done = (outcome: string, said: string) => {
      b.textContent = outcome;
      announce(said);
      setTimeout(() => {
        b.textContent = shown;
      }, 1200);
    };
    // The Clipboard API needs a secure context (the dashboard is on loopback, which is one).
    if (!navigator.clipboard) return done('Not copied', `Not copied: this page cannot use the clipboard. Select ${what} instead.`);
    navigator.clipboard.writeText(text).then(
      () => done('Copied', `Copied ${what}.`),
      () => done('Not copied', `Not copied: the browser refused the clipboard. Select ${what} instead.`),
    );
  });
  return b;
}

/** An id (linked when `link` is given, else as code) with its copy button. */
export function idCell(id: string | null | undefined, link?: string): HTMLElement | string {
  if (!id) return '—';
  return h('span', { class: 'id' }, link ? h('a', { href: link }, id) : h('code', {}, id), copyButton(id, id));
}
