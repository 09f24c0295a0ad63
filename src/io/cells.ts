/**
 * What every printer shares: the column and list-writer shapes, and how a value becomes the text
 * of one cell for a person (one line, control characters visible).
 */
import { escapeControls } from './escape.js';

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
  /** Upper bound for the table column width (cells are truncated with …; default 40). */
  maxWidth?: number;
  /** Never shrink or truncate this column to fit the terminal (ids that must stay copyable). */
  noTruncate?: boolean;
  /** The narrowest a table column is cut to before columns are dropped instead (default 10, never under its header). */
  minWidth?: number;
  /**
   * How long the column is kept at a narrow terminal: the lowest goes first (default 0; on a tie
   * the rightmost goes first).
   */
  priority?: number;
  /** Cut only once every column of a lower priority than this is dropped (default: cut whenever needed). */
  cutAfter?: number;
  /** Where a cut cell loses characters: at the end (default) or in the middle (ids keep both ends). */
  truncate?: 'end' | 'middle';
  /**
   * When the column headed `header` is not shown (dropped at a narrow terminal), an empty cell of
   * this one shows that column's value instead, and the header names both (`EMAIL/PHONE`).
   */
  orElse?: { header: string; get: (row: T) => unknown };
  /** Left out of the table when every cell of the first page is empty (a field the service did not return). */
  dropWhenEmpty?: boolean;
}

/** Streams rows page by page in one format; `end()` closes what needs closing (the JSON array). */
export interface ListWriter<T> {
  writePage(rows: readonly T[]): void;
  end(): void;
  readonly count: number;
}

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A table or TSV cell: one line, control characters visible. */
export function cellLine(value: unknown): string {
  return escapeControls(cellText(value).replace(/[\t\n\r]/g, ' '));
}
