/**
 * Listings within a terminal's width: a long line is broken between words, its continuation
 * lines indented under the first, so a terminal never cuts a word (rejected rows, notes).
 */

import type { IOStreams } from './streams.js';
import { textWidth as stringWidth } from './text-width.js';

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

/**
 * The width messages a person reads (errors, hints, warnings, notes) are wrapped to: COLUMNS when
 * set to a number, else the terminal's (80 when it does not say) when stderr is one; none into a
 * pipe or a file, where a line is a record a program may read.
 */
export function messageWidth(io: IOStreams, env: Record<string, string | undefined>): number | undefined {
  const columns = Number.parseInt(env.COLUMNS ?? '', 10);
  if (Number.isInteger(columns) && columns >= 20) return columns;
  return stderrWidth(io);
}

/** The width of human text on stdout (a record's values): COLUMNS, else the terminal's; none into a pipe. */
export function stdoutWidth(io: IOStreams, env: Record<string, string | undefined>): number | undefined {
  const columns = Number.parseInt(env.COLUMNS ?? '', 10);
  if (Number.isInteger(columns) && columns >= 20) return columns;
  return io.stdoutIsTTY ? (io.columns ?? 80) : undefined;
}

/**
 * A message as lines of at most `width` columns, broken between words; each line of `text`
 * separately, continuation lines indented by `hang` spaces. Unchanged without a width.
 */
export function wrapMessage(text: string, width: number | undefined, hang = 2): string {
  if (width === undefined) return text;
  return text
    .split('\n')
    .flatMap((line) => (COMMAND_LINE.test(line) ? [line] : wrapHanging(line, width, '', hang)))
    .join('\n');
}

/**
 * A command on a line of its own (`  svc orders import … --map-file …`), given to be copied: never
 * broken, since a line break pasted into a shell would run half of it (the terminal folds it).
 */
const COMMAND_LINE = /^\s+svc /;
