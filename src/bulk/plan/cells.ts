/** A plan's counting unit: how many rows fell in a cell, and the first line numbers as a sample. */

export const SAMPLE_SIZE = 5;

export interface PlanCell {
  count: number;
  /** The first SAMPLE_SIZE line numbers, in input order. */
  lines: number[];
}

export function emptyCell(): PlanCell {
  return { count: 0, lines: [] };
}

export function tally(cell: PlanCell, line: number): void {
  cell.count++;
  if (cell.lines.length < SAMPLE_SIZE) cell.lines.push(line);
}

/** A from → to count of one consent channel. */
export interface Transition extends PlanCell {
  from: string;
  to: string;
}

/** Transitions of one channel by from and to state, listed in a stable order (from, then to). */
export class TransitionTable {
  private readonly cells = new Map<string, Map<string, Transition>>();

  add(from: string, to: string, line: number): void {
    let byTo = this.cells.get(from);
    if (!byTo) {
      byTo = new Map();
      this.cells.set(from, byTo);
    }
    let cell = byTo.get(to);
    if (!cell) {
      cell = { from, to, count: 0, lines: [] };
      byTo.set(to, cell);
    }
    tally(cell, line);
  }

  /** Sorted by the order of the states in `order` (unknown ones last, then by name). */
  list(order: readonly string[]): Transition[] {
    const rank = (s: string) => {
      const i = order.indexOf(s);
      return i < 0 ? order.length : i;
    };
    return [...this.cells.values()]
      .flatMap((m) => [...m.values()])
      .sort((a, b) => rank(a.from) - rank(b.from) || a.from.localeCompare(b.from) || rank(a.to) - rank(b.to) || a.to.localeCompare(b.to));
  }
}

/** A cell's sample line numbers in words (`lines 4, 9, …`), for a plan's tables and a guard's message. */
export function sampleText(c: PlanCell): string {
  if (c.lines.length === 0) return '';
  return `${c.lines.length === 1 ? 'line' : 'lines'} ${c.lines.join(', ')}${c.count > c.lines.length ? ', …' : ''}`;
}
