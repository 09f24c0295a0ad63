/** csv-parse's stream parser as the CSV reader (csv-source.ts) uses it: records with their physical line. */
import { Parser } from 'csv-parse';

/** A record and the parser's line count when it was complete (the physical line it ends on). */
export type ParsedRecord = { record: string[]; lines: number };

/**
 * csv-parse's stream parser, pushing each record with the parser's line count at that moment
 * (`parser.info.lines`, its documented counter). The `info: true` option gives the same number in
 * an info object built by two object spreads per record, which was the costliest part of parsing
 * a file here (docs/performance.md).
 */
export class LineCountingParser extends Parser {
  /** Line ends written by `flushHeld`, which the parser counts as (skipped) blank lines. */
  injected = 0;
  declare state: { quoting: boolean };

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) return super.push(null);
    const lined: ParsedRecord = { record: chunk as string[], lines: this.info.lines - this.injected };
    return super.push(lined, encoding);
  }

  /**
   * csv-parse acts on a line end only once it has seen the character after it (it could be the
   * start of a longer delimiter), so on a live input (a terminal, a pipe) the last line typed
   * would wait for the next one. When the input is idle, the parser has taken every write and is
   * not inside a quoted field, a blank line (skipped, and not counted in line numbers) lets it
   * act on the line end it holds.
   */
  flushHeld(eol: string): boolean {
    if (this.destroyed || this.writableLength > 0 || this.state.quoting) return false;
    this.write(eol);
    this.injected++;
    return true;
  }
}

/** How long a live input stays quiet before the parser is told to act on the line end it holds. */
export const LIVE_FLUSH_MS = 25;

export function countNewlines(cells: string[]): number {
  let n = 0;
  for (const c of cells) {
    for (let i = c.indexOf('\n'); i !== -1; i = c.indexOf('\n', i + 1)) n++;
  }
  return n;
}
