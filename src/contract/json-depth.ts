import { afterJsonString } from './json-scan.js';

/**
 * How deep a JSON document may nest: the service refuses a value nested more than 64 levels deep
 * (the sandbox's rule, open-points "Body validation"); the CLI refuses such a line before sending,
 * without parsing it (a line 10,000 levels deep must not exhaust a stack anywhere).
 */
export const MAX_JSON_DEPTH = 64;

/** White space, `,` and `:`: what stands between values. */
function isBetweenValues(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2c || c === 0x3a;
}

/**
 * True when some value of the JSON text sits more than `max` levels deep (the top-level value is
 * level 0, its members level 1…). A scan of the characters: no recursion, no parse; the text need
 * not be valid JSON (an invalid one is refused later by the parser).
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let open = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5d || c === 0x7d) {
      open--; // ] }
      i++;
      continue;
    }
    if (isBetweenValues(c)) {
      i++;
      continue;
    }
    // The start of a value (or key) inside `open` containers: it sits at level `open`.
    if (open > max) return true;
    if (c === 0x5b || c === 0x7b) open++;
    i = c === 0x22 ? afterJsonString(text, i) : i + 1;
  }
  return false;
}
