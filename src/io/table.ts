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
    let excess = widths.reduce((a, b) => a + b, 0) + gap * (widths.length - 1) - total;
    while (excess > 0) {
      let pick = -1;
      for (let k = 0; k < widths.length; k++) {
        const w = widths[k] as number;
        if (w > (cols[shown[k] as number] as FitColumn).min && (pick < 0 || w > (widths[pick] as number))) pick = k;
      }
      if (pick < 0) break;
      widths[pick] = (widths[pick] as number) - 1;
      excess--;
    }
    if (excess <= 0) return { shown, widths };
    if (shown.length === 1) return { shown, widths: [Math.max(1, total)] };
    let drop = 0;
    for (let k = 1; k < shown.length; k++) {
      if ((cols[shown[k] as number] as FitColumn).priority <= (cols[shown[drop] as number] as FitColumn).priority) drop = k;
    }
    shown = shown.filter((_, k) => k !== drop);
  }
}

/** `text` cut to `width` terminal columns (… at the end) and padded with spaces to exactly `width`. */
export function fitCell(text: string, width: number, pad: boolean): string {
  let cut = text;
  // cli-truncate 5 can overshoot by one column when the cut falls inside a wide character
  // (sindresorhus/cli-truncate#28, fixed only in the Node 22+ major): ask for one less then.
  for (let w = width; stringWidth(cut) > width && w > 0; w--) cut = cliTruncate(text, w, { position: 'end' });
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
  let count = 0;
  const render = (cells: readonly string[]) => {
    const f = fit as Fit;
    return f.shown
      .map((i, k) => fitCell(cells[i] as string, f.widths[k] as number, k < f.shown.length - 1))
      .join(' '.repeat(GAP))
      .trimEnd();
  };
  return {
    writePage(rows) {
      const texts = rows.map((r) => columns.map((c) => cellLine(c.get(r))));
      if (!fit) {
        const measured = columns.map((c, i): FitColumn => {
          const header = stringWidth(c.header.toUpperCase());
          const widest = Math.max(0, ...texts.map((t) => stringWidth(t[i] as string)));
          const natural = Math.max(header, Math.min(c.maxWidth ?? DEFAULT_MAX_WIDTH, widest));
          const min = c.noTruncate ? natural : Math.min(natural, Math.max(header, c.minWidth ?? DEFAULT_MIN_WIDTH));
          return { natural, min, priority: c.priority ?? 0 };
        });
        fit = fitColumns(measured, tableWidth(io));
        io.stdout.write(`${colors.bold(render(columns.map((c) => c.header.toUpperCase())))}\n`);
      }
      for (const t of texts) io.stdout.write(`${render(t)}\n`);
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
