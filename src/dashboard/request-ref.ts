/** Links to logged requests: by the distinguishing end of the id (all ids of a run share their start). */
import { h, href } from './dom.js';

/** How many characters of a request id's end the short form shows. */
const TAIL = 8;

/** `…0000004f` for `req_d87b01470000004f`: what tells one request of the run from another. */
export function idTail(id: string): string {
  return id.length > TAIL + 4 ? `…${id.slice(-TAIL)}` : id;
}

/** A link to a request's page showing the end of its id (the whole id on hover and for screen readers). */
export function requestLink(id: string | null | undefined, text?: string): HTMLElement | string {
  if (!id) return '—';
  return h(
    'a',
    { href: href(`requests/${encodeURIComponent(id)}`), title: id, 'aria-label': text ? `${text} (${id})` : id },
    text ?? idTail(id),
  );
}
