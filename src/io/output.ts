/**
 * The one printer every command uses. Data goes to stdout in the chosen format; messages,
 * warnings and errors go to stderr. Human formats only on a TTY. Everything shown to a person
 * (tables, TSV, records, messages) has its control characters escaped (io/escape.ts); JSON, NDJSON
 * and CSV stay byte-exact.
 */
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from '../util/csv-cell.js';
import { type Column, cellLine, cellText, type ListWriter } from './cells.js';
import type { Colors } from './color.js';
import { escapeControls } from './escape.js';
import { OUTPUT_FORMATS } from './output-format.js';
import type { IOStreams, TerminalPolicy } from './streams.js';
import { wrapHanging, wrapMessage } from './wrap.js';

export type { Column, ListWriter };
export { OUTPUT_FORMATS };
export type OutputFormat = (typeof OUTPUT_FORMATS)[number] | 'tsv';

/** A record field: `[key, value]`, or `[key, value, style]` to colour the (escaped) value. */
export type RecordField = [string, unknown] | [string, unknown, (text: string) => string];

export class Output {
  constructor(
    readonly io: IOStreams,
    readonly policy: TerminalPolicy,
    readonly colors: Colors,
    readonly quiet: boolean,
    /** --json: stderr keeps only warnings and errors, so a successful run prints nothing there. */
    readonly jsonMode = false,
    /** Widths messages on stderr and a record's values on stdout are wrapped to (io/wrap.ts); none: not wrapped. */
    readonly widths: { stderr?: number; stdout?: number } = {},
  ) {}

  /** A message line for stderr, wrapped at word boundaries to its width. */
  private line(text: string): string {
    return `${wrapMessage(text, this.widths.stderr)}\n`;
  }

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
    const room = this.widths.stdout === undefined ? undefined : Math.max(20, this.widths.stdout - width - 2);
    const lines = fields.map(([k, v, style]) => {
      // A long value is broken between words, its continuation lines under its first.
      const text = wrapHanging(escapeControls(cellText(v)), room, '', 0)
        .map((l) => (style ? style(l) : l))
        .join(`\n${' '.repeat(width + 2)}`);
      return `${this.colors.bold(k.padEnd(width))}  ${text}`;
    });
    this.io.stdout.write(`${lines.join('\n')}\n`);
  }

  /**
   * A list writer for the format: table (fitted to the terminal, io/table.ts), tsv, json (one
   * array), ndjson, csv (`csvColumns`, else `columns`). `toJson` turns a row into what JSON and
   * NDJSON print (the fields chosen with --fields); the row itself by default.
   */
  async list<T>(
    format: OutputFormat,
    columns: Column<T>[],
    csvColumns?: Column<T>[],
    toJson: (row: T) => unknown = (row) => row,
  ): Promise<ListWriter<T>> {
    const io = this.io;
    let count = 0;
    switch (format) {
      case 'json': {
        let first = true;
        return {
          writePage(rows) {
            for (const row of rows) {
              io.stdout.write(`${first ? '[' : ','}\n${JSON.stringify(toJson(row))}`);
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
            io.stdout.write(`${rows.map((r) => JSON.stringify(toJson(r))).join('\n')}\n`);
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
      default: {
        const { tableWriter } = await import('./table.js');
        return tableWriter(io, this.colors, columns);
      }
    }
  }

  /** An informational line on stderr (hidden by --quiet and --json). */
  info(message: string): void {
    if (!this.quiet && !this.jsonMode) this.io.stderr.write(this.line(escapeControls(message)));
  }

  /** A success line on stderr (hidden by --quiet and --json). */
  success(message: string): void {
    if (!this.quiet && !this.jsonMode) this.io.stderr.write(this.line(`${this.colors.green('✓')} ${escapeControls(message)}`));
  }

  /** A warning on stderr (hidden by --quiet, which keeps only errors). */
  warn(message: string): void {
    if (!this.quiet) this.io.stderr.write(this.line(`${this.colors.yellow('warning:')} ${escapeControls(message)}`));
  }
}
