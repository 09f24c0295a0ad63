/** The field delimiter a person names (--delimiter, a map file's `delimiter`). */
import { InputError } from './errors.js';

/** Parses a --delimiter value: a single character, or the words tab/comma/semicolon/pipe. */
export function parseDelimiter(value: string): string {
  const named: Record<string, string> = { tab: '\t', '\\t': '\t', comma: ',', semicolon: ';', pipe: '|' };
  const d = named[value.toLowerCase()] ?? value;
  if ([...d].length !== 1 || d === '"' || d === '\n' || d === '\r') {
    throw new InputError(
      `--delimiter must be one character (or tab), got ${JSON.stringify(value)}`,
      'e.g. --delimiter ";" or --delimiter tab',
    );
  }
  return d;
}
