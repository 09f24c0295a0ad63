/**
 * The table printer (human output at a terminal): borderless like gh's, fitted to the terminal's
 * width so that a row never wraps. Widths are measured as the terminal shows them (string-width:
 * wide CJK characters and emoji count 2, combining marks 0) and long cells are cut with an
 * ellipsis (cli-truncate). When cutting every cell that may be cut down to its column's minimum
 * still does not fit, the least valuable column is dropped (Column.priority) and the fit starts
 * again. Loaded only when a table is printed: the width tables of string-width cost start-up time.
 */
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import { type Column, cellLine, type ListWriter } from './cells.js';
import type { Colors } from './color.js';
import type { IOStreams } from './streams.js';

/** Space between two columns. */
export const GAP = 2;
/** Cap for a column without maxWidth, and floor for a cut column without minWidth. */
const DEFAULT_MAX_WIDTH = 40;
const DEFAULT_MIN_WIDTH = 10;

export interface FitColumn {
  /** The widest of the header and the cells (already capped by the column's maxWidth). */
  natural: number;
  /** The narrowest it may be cut to before columns are dropped (natural when it must stay whole). */
  min: number;
  /** Higher is kept longer; on a tie the rightmost column is dropped first. */
  priority: number;
  /** Cut only once every column of a lower priority than this is gone (an id: after the extras, before the identifying columns). */
  cutAfter?: number;
}

export interface Fit {
  /** Indexes of the columns shown, in their order. */
  shown: number[];
  /** The width of each shown column. */
  widths: number[];
}

/**
 * Widths that fit `total` columns (Infinity: no limit). Cuts the widest column that may still be
 * cut, one character at a time, down to the minimums; if that is not enough, drops the column of
 * lowest priority and starts again from the natural widths. A single column left that is still
 * too wide is cut to `total`, even one that should stay whole: a row never wraps.
 */
export function fitColumns(cols: readonly FitColumn[], total: number, gap = GAP): Fit {
  let shown = cols.map((_, i) => i);
  for (;;) {
    const widths = shown.map((i) => (cols[i] as FitColumn).natural);
    const lowest = Math.min(...shown.map((i) => (cols[i] as FitColumn).priority));
    const mins = shown.map((i) => {
      const c = cols[i] as FitColumn;
      return c.cutAfter !== undefined && lowest < c.cutAfter ? c.natural : c.min;
    });
    const excess = cutWidest(widths, mins, widths.reduce((a, b) => a + b, 0) + gap * (widths.length - 1) - total);
    if (excess <= 0) return { shown, widths };
    if (shown.length === 1) return { shown, widths: [Math.max(1, total)] };
    const drop = lowestPriority(cols, shown);
    shown = shown.filter((_, k) => k !== drop);
  }
}

/** Cuts the widest column still above its minimum, a character at a time, while `excess` > 0; what is left of it. */
function cutWidest(widths: number[], mins: number[], excess: number): number {
  let left = excess;
  while (left > 0) {
    let pick = -1;
    for (let k = 0; k < widths.length; k++) {
      const w = widths[k] as number;
      if (w > (mins[k] as number) && (pick < 0 || w > (widths[pick] as number))) pick = k;
    }
    if (pick < 0) break;
    widths[pick] = (widths[pick] as number) - 1;
    left--;
  }
  return left;
}

/** The position in `shown` of the column of lowest priority (the last of equals). */
function lowestPriority(cols: readonly FitColumn[], shown: number[]): number {
  let drop = 0;
  for (let k = 1; k < shown.length; k++) {
    if ((cols[shown[k] as number] as FitColumn).priority <= (cols[shown[drop] as number] as FitColumn).priority) drop = k;
  }
  return drop;
}

/** `text` cut to `width` terminal columns (… at the end, or in the middle) and padded with spaces to exactly `width`. */
export function fitCell(text: string, width: number, pad: boolean, position: 'end' | 'middle' = 'end'): string {
  let cut = text;
  // cli-truncate 5 can overshoot by one column when the cut falls inside a wide character
  // (sindresorhus/cli-truncate#28, fixed only in the Node 22+ major): ask for one less then.
  for (let w = width; stringWidth(cut) > width && w > 0; w--) cut = cliTruncate(text, w, { position });
  return pad ? cut + ' '.repeat(Math.max(0, width - stringWidth(cut))) : cut;
}

/**
 * The width a table may use: the terminal's when stdout is one (80 when it does not say), none
 * when stdout is a pipe or a file (`--format table` there keeps every cell as it was).
 */
export function tableWidth(io: IOStreams): number {
  if (!io.stdoutIsTTY) return Number.POSITIVE_INFINITY;
  return io.columns && io.columns > 0 ? io.columns : 80;
}

/**
 * A table printed page by page: the columns and their widths are decided on the first page, the
 * header is printed once, later cells are cut to those widths.
 */
export function tableWriter<T>(io: IOStreams, colors: Colors, columns: readonly Column<T>[]): ListWriter<T> {
  let fit: Fit | undefined;
  /** The columns taking part (those left out as empty are not), by index into `columns`. */
  let used: number[] = [];
  /** For a column with `orElse` whose other column is not shown: the index that other value has in a row's texts. */
  let standIn = new Map<number, number>();
  let count = 0;
  const texts = (row: T) => [
    ...columns.map((c) => cellLine(c.get(row))),
    ...columns.map((c) => (c.orElse ? cellLine(c.orElse.get(row)) : '')),
  ];
  const render = (cells: readonly string[]) => {
    const f = fit as Fit;
    return f.shown
      .map((k, n) => {
        const i = used[k] as number;
        const own = cells[i] as string;
        const text = own === '' && standIn.has(i) ? (cells[standIn.get(i) as number] as string) : own;
        return fitCell(text, f.widths[n] as number, n < f.shown.length - 1, columns[i]?.truncate ?? 'end');
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  };
  return {
    writePage(rows) {
      const page = rows.map(texts);
      if (!fit) {
        const n = columns.length;
        used = columns.map((_, i) => i).filter((i) => !columns[i]?.dropWhenEmpty || page.some((t) => t[i] !== ''));
        const measure = (i: number, withOther: boolean): FitColumn => {
          const c = columns[i] as Column<T>;
          const header = stringWidth(c.header.toUpperCase()) + (withOther && c.orElse ? c.orElse.header.length + 1 : 0);
          const cell = (t: readonly string[]) => (withOther && t[i] === '' ? (t[n + i] as string) : (t[i] as string));
          const widest = Math.max(0, ...page.map((t) => stringWidth(cell(t))));
          const natural = Math.max(header, Math.min(c.maxWidth ?? DEFAULT_MAX_WIDTH, widest));
          const min = c.noTruncate ? natural : Math.min(natural, Math.max(header, c.minWidth ?? DEFAULT_MIN_WIDTH));
          return { natural, min, priority: c.priority ?? 0, cutAfter: c.cutAfter };
        };
        fit = fitColumns(
          used.map((i) => measure(i, false)),
          tableWidth(io),
        );
        // A column standing in for a dropped one is measured again with those values, and fitted again.
        const shownHeaders = new Set(fit.shown.map((k) => columns[used[k] as number]?.header));
        const usedHeaders = new Set(used.map((i) => columns[i]?.header));
        standIn = new Map();
        for (const k of fit.shown) {
          const i = used[k] as number;
          const other = columns[i]?.orElse?.header;
          // Only for a column of this table that had to go: one never asked for (--fields) stays out.
          if (other !== undefined && usedHeaders.has(other) && !shownHeaders.has(other)) standIn.set(i, n + i);
        }
        if (standIn.size > 0) {
          const shown = fit.shown.map((k) => used[k] as number);
          const refit = fitColumns(
            shown.map((i) => measure(i, standIn.has(i))),
            tableWidth(io),
          );
          used = shown;
          fit = refit;
        }
        const headers = columns.map((c, i) => (standIn.has(i) && c.orElse ? `${c.header}/${c.orElse.header}` : c.header).toUpperCase());
        io.stdout.write(`${colors.bold(render([...headers, ...headers.map(() => '')]))}\n`);
      }
      for (const t of page) io.stdout.write(`${render(t)}\n`);
      count += rows.length;
    },
    end() {
      /* an empty table prints nothing: the caller says "no results" on stderr */
    },
    get count() {
      return count;
    },
  };
}
