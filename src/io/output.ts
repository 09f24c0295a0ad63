/**
 * The one printer every command uses. Data goes to stdout in the chosen format; messages,
 * warnings and errors go to stderr. Human formats only on a TTY. Everything shown to a person
 * (tables, TSV, records, messages) has its control characters escaped (io/escape.ts); JSON, NDJSON
 * and CSV stay byte-exact.
 */
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from '../util/csv-cell.js';
import type { Colors } from './color.js';
import { escapeControls } from './escape.js';
import { OUTPUT_FORMATS } from './formats.js';
import type { IOStreams, TerminalPolicy } from './streams.js';

export { OUTPUT_FORMATS };
export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | 'tsv';

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Upper bound for the table column width (cells are truncated with …). */
  maxWidth?: number;
  /** Never shrink or truncate this column to fit the terminal (ids that must stay copyable). */
  noTruncate?: boolean;
}

/** Streams rows page by page in one format; `end()` closes what needs closing (the JSON array). */
export interface ListWriter<T> {
  writePage(rows: readonly T[]): void;
  end(): void;
  readonly count: number;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A table or TSV cell: one line, control characters visible. */
function cellLine(value: unknown): string {
  return escapeControls(cellText(value).replace(/[\t\n\r]/g, ' '));
}

/** A record field: `[key, value]`, or `[key, value, style]` to colour the (escaped) value. */
export type RecordField = [string, unknown] | [string, unknown, (text: string) => string];

function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`;
}

export class Output {
  constructor(
    readonly io: IOStreams,
    readonly policy: TerminalPolicy,
    readonly colors: Colors,
    readonly quiet: boolean,
    /** --json: stderr keeps only warnings and errors, so a successful run prints nothing there. */
    readonly jsonMode = false,
  ) {}

  /** The format a list/record command uses when the user chose none. */
  defaultFormat(json: boolean): OutputFormat {
    if (json) return 'json';
    return this.policy.humanStdout ? 'table' : 'tsv';
  }

  /** Writes raw text to stdout. */
  stdout(text: string): void {
    this.io.stdout.write(text);
  }

  /** Human text on stdout (a dry run's listing): control characters escaped, tab and newline kept. */
  text(text: string): void {
    this.io.stdout.write(escapeControls(text));
  }

  /** One JSON document on stdout (indented on a TTY, compact otherwise). */
  json(value: unknown): void {
    const text = this.io.stdoutIsTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    this.io.stdout.write(`${text}\n`);
  }

  /** A single record as aligned `key  value` lines on stdout (human mode; values escaped, then styled). */
  record(fields: RecordField[]): void {
    const width = Math.max(...fields.map(([k]) => k.length));
    const lines = fields.map(([k, v, style]) => {
      const text = escapeControls(cellText(v));
      return `${this.colors.bold(k.padEnd(width))}  ${style ? style(text) : text}`;
    });
    this.io.stdout.write(`${lines.join('\n')}\n`);
  }

  /** A list writer for the format: table, tsv, json (one array), ndjson, csv (every field). */
  list<T>(format: OutputFormat, columns: Column<T>[], csvColumns?: Column<T>[]): ListWriter<T> {
    const io = this.io;
    let count = 0;
    switch (format) {
      case 'json': {
        let first = true;
        return {
          writePage(rows) {
            for (const row of rows) {
              io.stdout.write(`${first ? '[' : ','}\n${JSON.stringify(row)}`);
              first = false;
              count++;
            }
          },
          end() {
            io.stdout.write(first ? '[]\n' : '\n]\n');
          },
          get count() {
            return count;
          },
        };
      }
      case 'ndjson':
        return {
          writePage(rows) {
            if (rows.length === 0) return;
            io.stdout.write(`${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
            count += rows.length;
          },
          end() {},
          get count() {
            return count;
          },
        };
      case 'csv': {
        const cols = csvColumns ?? columns;
        let headerDone = false;
        return {
          writePage(rows) {
            const records: string[][] = [];
            if (!headerDone) {
              records.push(cols.map((c) => c.header));
              headerDone = true;
            }
            for (const row of rows) records.push(cols.map((c) => toCsvCell(c.get(row))));
            if (records.length > 0) io.stdout.write(stringify(records, { record_delimiter: '\n' }));
            count += rows.length;
          },
          end() {
            if (!headerDone) io.stdout.write(stringify([cols.map((c) => c.header)], { record_delimiter: '\n' }));
          },
          get count() {
            return count;
          },
        };
      }
      case 'tsv':
        return {
          writePage(rows) {
            for (const row of rows) {
              io.stdout.write(`${columns.map((c) => cellLine(c.get(row))).join('\t')}\n`);
              count++;
            }
          },
          end() {},
          get count() {
            return count;
          },
        };
      default:
        return this.tableWriter(columns);
    }
  }

  /**
   * A borderless table (like gh) that prints page by page: widths are fixed from the first page
   * and the header is printed once.
   */
  private tableWriter<T>(columns: Column<T>[]): ListWriter<T> {
    const io = this.io;
    const colors = this.colors;
    let widths: number[] | undefined;
    let count = 0;
    const total = Math.max(40, io.columns ?? 120);
    const render = (cells: string[]) =>
      cells
        .map((c, i) =>
          i === cells.length - 1 ? truncate(c, widths?.[i] ?? c.length) : truncate(c, widths?.[i] ?? c.length).padEnd(widths?.[i] ?? 0),
        )
        .join('  ')
        .trimEnd();
    return {
      writePage(rows) {
        const texts = rows.map((r) => columns.map((c) => cellLine(c.get(r))));
        if (!widths) {
          widths = columns.map((c, i) =>
            Math.min(c.maxWidth ?? 40, Math.max(c.header.length, ...texts.map((t) => (t[i] as string).length))),
          );
          const sum = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
          if (sum > total) {
            const fixed = widths.reduce((a, w, i) => a + ((columns[i] as Column<T>).noTruncate ? w : 0), 0);
            const scale = Math.max(0, total - 2 * (widths.length - 1) - fixed) / (sum - 2 * (widths.length - 1) - fixed);
            widths = widths.map((w, i) =>
              (columns[i] as Column<T>).noTruncate ? w : Math.max((columns[i] as Column<T>).header.length, Math.floor(w * scale)),
            );
          }
          io.stdout.write(`${colors.bold(render(columns.map((c) => c.header.toUpperCase())))}\n`);
        }
        for (const t of texts) io.stdout.write(`${render(t)}\n`);
        count += rows.length;
      },
      end() {
        if (!widths && count === 0) {
          /* nothing to show: the caller prints "no results" on stderr */
        }
      },
      get count() {
        return count;
      },
    };
  }

  /** An informational line on stderr (hidden by --quiet and --json). */
  info(message: string): void {
    if (!this.quiet && !this.jsonMode) this.io.stderr.write(`${escapeControls(message)}\n`);
  }

  /** A success line on stderr (hidden by --quiet and --json). */
  success(message: string): void {
    if (!this.quiet && !this.jsonMode) this.io.stderr.write(`${this.colors.green('✓')} ${escapeControls(message)}\n`);
  }

  /** A warning on stderr (hidden by --quiet, which keeps only errors). */
  warn(message: string): void {
    if (!this.quiet) this.io.stderr.write(`${this.colors.yellow('warning:')} ${escapeControls(message)}\n`);
  }
}
