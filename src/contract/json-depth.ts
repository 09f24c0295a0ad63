/**
 * How deep a JSON document may nest: the service refuses a value nested more than 64 levels deep
 * (the sandbox's rule, open-points "Body validation"); the CLI refuses such a line before sending,
 * without parsing it (a line 10,000 levels deep must not exhaust a stack anywhere).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when some value of the JSON text sits more than `max` levels deep (the top-level value is
 * level 0, its members level 1…). A scan of the characters: no recursion, no parse; the text need
 * not be valid JSON (an invalid one is refused later by the parser).
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let open = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    switch (c) {
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
      case 0x2c: // ,
      case 0x3a: // :
        continue;
      case 0x5d: // ]
      case 0x7d: // }
        open--;
        continue;
      default:
        // The start of a value (or key) inside `open` containers: it sits at level `open`.
        if (open > max) return true;
        if (c === 0x5b || c === 0x7b) open++;
        else if (c === 0x22) inString = true;
    }
  }
  return false;
}
