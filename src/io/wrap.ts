/**
 * Listings within a terminal's width: a long line is broken between words, its continuation
 * lines indented under the first, so a terminal never cuts a word (rejected rows, notes).
 */
import stringWidth from 'string-width';
import type { IOStreams } from './streams.js';

/**
 * `text` as lines of at most `width` columns: the first starts with `indent`, the others with
 * `indent` plus `hang` more spaces. A word longer than a line is cut (nothing is lost). Without a
 * width (output not at a terminal), the text as one line.
 */
export function wrapHanging(text: string, width: number | undefined, indent = '', hang = 4): string[] {
  if (width === undefined || stringWidth(indent + text) <= width) return [indent + text];
  const next = `${indent}${' '.repeat(hang)}`;
  const lines: string[] = [];
  let cur = indent;
  let fresh = true;
  for (const word of text.split(' ')) {
    const candidate = fresh ? cur + word : `${cur} ${word}`;
    if (stringWidth(candidate) <= width) {
      cur = candidate;
      fresh = false;
      continue;
    }
    if (!fresh) lines.push(cur);
    let rest = word;
    cur = lines.length === 0 && fresh ? indent : next;
    // A word wider than the line on its own: cut it into pieces that fit.
    while (stringWidth(cur + rest) > width && rest.length > 1) {
      const room = Math.max(1, width - stringWidth(cur));
      lines.push(cur + rest.slice(0, room));
      rest = rest.slice(room);
      cur = next;
    }
    cur += rest;
    fresh = false;
  }
  lines.push(cur);
  return lines;
}

/** The width lines on stderr are wrapped to: the terminal's (80 when it does not say), none off a terminal. */
export function stderrWidth(io: IOStreams): number | undefined {
  return io.stderrIsTTY ? (io.columns ?? 80) : undefined;
}
