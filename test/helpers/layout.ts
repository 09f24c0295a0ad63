/**
 * Layout checks of the dashboard in the browser (functions run in the page: its CSP forbids eval
 * of strings): how far anything goes past the window or a table past its box, the rows taller than
 * one line, and the 390 px cards' labelled fields.
 */
import type { Page } from 'playwright-core';

interface Measured {
  /** The worst overflow in pixels (0 or less: none): the page past the window, a table past its box. */
  overflow: number;
  /** What overflows, for the failure message. */
  where: string;
  /** The heights of the data rows of every table (main's). */
  rowHeights: number[];
  /** Tables whose header row is visible (a card layout hides it). */
  visibleHeads: number;
  /** Data cells without a label for their card. */
  unlabelled: number;
}

const measure = (): Measured => {
  type El = {
    scrollWidth: number;
    clientWidth: number;
    parentElement: El;
    className: string;
    tagName: string;
    getBoundingClientRect(): { height: number; width: number };
    getAttribute(n: string): string | null;
    querySelectorAll(s: string): Iterable<El>;
  };
  const g = globalThis as unknown as { document: { documentElement: El; querySelector(s: string): El } };
  const root = g.document.documentElement;
  let overflow = root.scrollWidth - root.clientWidth;
  let where = overflow > 0 ? 'the page' : '';
  const main = g.document.querySelector('main');
  for (const t of main.querySelectorAll('table')) {
    const o = t.scrollWidth - t.parentElement.clientWidth;
    if (o > overflow) {
      overflow = o;
      where = `table.${t.className.replace(/ /g, '.')}`;
    }
  }
  const rowHeights: number[] = [];
  for (const tr of main.querySelectorAll('table tbody tr')) rowHeights.push(tr.getBoundingClientRect().height);
  let visibleHeads = 0;
  for (const th of main.querySelectorAll('table thead')) if (th.getBoundingClientRect().height > 1) visibleHeads++;
  let unlabelled = 0;
  for (const td of main.querySelectorAll('table.cards tbody td')) if (td.getAttribute('data-label') === null) unlabelled++;
  return { overflow, where, rowHeights, visibleHeads, unlabelled };
};

/** Measures the page as drawn now. */
export function layoutOf(page: Page): Promise<Measured> {
  return page.evaluate(measure);
}
