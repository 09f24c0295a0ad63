/** What the CSV reader (csv-source.ts) hands out: the rows, and the source they come from. */
import type { InputEncoding } from './decode.js';

export type CsvItem =
  /** A data row: `line` is the physical line where it starts (1 = the header). */
  | { kind: 'row'; line: number; cells: string[] }
  /** A row that could not be read as one: ragged, or an unclosed quote swallowing the rest. */
  | {
      kind: 'error';
      line: number;
      code: 'ragged_row' | 'unclosed_quote' | 'record_too_large' | 'csv_error' | 'invalid_encoding';
      message: string;
      cells?: string[];
    };

export interface CsvSource {
  header: string[];
  /**
   * The header's cells as read (not trimmed), for a rejects file. The trailing columns of a
   * rejects file (`error_field,error,line`, bulk/rejects.ts) are dropped from both, and from every row.
   */
  headerCells: string[];
  /** The input began with a byte-order mark. */
  bom: boolean;
  /** The line end of the header line (`\n` when it cannot tell). */
  lineEnd: '\n' | '\r\n';
  delimiter: string;
  /** The encoding read: UTF-8, UTF-16LE found by its byte-order mark, or the one given. */
  encoding: InputEncoding;
  /**
   * The data rows in file order (blank lines skipped), as the parser has them at hand: one array
   * per parsed chunk. Iterate once, and only one of `batches` and `items`.
   */
  batches: AsyncIterable<CsvItem[]>;
  /** The same rows one by one. */
  items: AsyncIterable<CsvItem>;
  /** Bytes read from the input so far (for progress and ETA). */
  bytesRead(): number;
  /**
   * Declares the lines at the end that are not records, once the header has told which export
   * this is (CsvShape.footerPattern says how they are matched). Call before reading the rows;
   * `undefined` changes nothing. Returns the source itself.
   */
  dropFooter(pattern: RegExp | undefined): CsvSource;
}
