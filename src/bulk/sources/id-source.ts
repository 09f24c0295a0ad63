/**
 * The engine's id-list source (the --ids-file verbs): one id per line. Blank lines and `#`
 * comments are skipped, and so is a header line `id`, so the first column of `svc contacts list
 * --format csv` (and a rejects file of an id list) works as input; only the first comma-separated
 * field of a line is taken.
 */

export interface IdLine {
  /** Physical line (1-based). */
  line: number;
  id: string;
}

/** The ids of a decoded id list, with their lines. */
export function parseIdLines(text: string): IdLine[] {
  const ids: IdLine[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const first = (raw.split(',')[0] ?? '').trim().replace(/^"(.*)"$/, '$1');
      if (first === '' || first.startsWith('#')) return;
      if (ids.length === 0 && first.toLowerCase() === 'id') return;
      ids.push({ line: i + 1, id: first });
    });
  return ids;
}

/** The line end of a decoded id list (a rejects file ends its lines the same way). */
export function lineEndOf(text: string): '\n' | '\r\n' {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}
