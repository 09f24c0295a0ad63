/** What the first bytes of a CSV file tell: its encoding (by a byte-order mark) and its field delimiter. */

import { InputError } from '../../importer/errors.js';
import type { InputEncoding } from './decode.js';

const DELIMITERS = [',', ';', '\t'] as const;

/** Counts each candidate delimiter outside quotes in the first line; the most frequent wins (comma on a tie or none). */
export function detectDelimiter(firstLine: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of firstLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  let best = ',';
  let bestCount = 0;
  for (const [d, n] of counts) {
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

/** Why a row has the wrong number of fields, when the delimiter is the likely cause. */
export function delimiterHint(count: number, delimiter: string): string {
  if (count !== 1) return ' (a missing or extra delimiter?)';
  const name = delimiter === '\t' ? 'tab' : JSON.stringify(delimiter);
  return ` (no ${name} found on the line: another delimiter? use --delimiter)`;
}

/**
 * The encoding to read: the one given, else UTF-16LE by its byte-order mark, else UTF-8 (a UTF-8
 * BOM skipped). UTF-16BE and NUL bytes without a BOM (UTF-16 unmarked, or .xlsx) are refused.
 */
export function sniffEncoding(head: Buffer, name: string, given: InputEncoding | undefined): { encoding: InputEncoding; bomBytes: number } {
  let encoding: InputEncoding = given ?? 'utf-8';
  let bomBytes = 0;
  if (given !== undefined && given !== 'utf-8') {
    // An encoding given: the decoder drops its byte-order mark, if any, by itself.
  } else if (given === undefined && head[0] === 0xfe && head[1] === 0xff) {
    throw new InputError(
      `${name} is UTF-16 big-endian, which the importer does not read`,
      'save it as UTF-8 (or UTF-16LE) and import again, or give --encoding utf-16be',
    );
  } else if (given === undefined && head[0] === 0xff && head[1] === 0xfe) {
    encoding = 'utf-16le';
    bomBytes = 2;
  } else {
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) bomBytes = 3;
    const probe = head.subarray(bomBytes, 4096);
    if (probe.includes(0)) {
      throw new InputError(
        `${name} is not UTF-8 text (it holds NUL bytes: UTF-16 without a byte-order mark, or a binary file such as .xlsx)`,
        'export the sheet as "CSV UTF-8" and import that file, or give its encoding with --encoding',
      );
    }
  }
  return { encoding, bomBytes };
}

/**
 * The file's line end, told by the first CR or LF of the header line: `\r\n` or `\n`. Undefined
 * when it cannot tell from `head` (no line end yet, a CR at its very end, a quote before the first
 * line end) or when lines end with a bare CR: the parser then finds it from the text it is given.
 */
export function detectLineEnd(head: string): '\n' | '\r\n' | undefined {
  const lf = head.indexOf('\n');
  const cr = head.indexOf('\r');
  const first = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
  if (first === -1 || head.lastIndexOf('"', first) !== -1) return undefined;
  if (first === lf) return '\n';
  return head.charCodeAt(first + 1) === 10 ? '\r\n' : undefined;
}
