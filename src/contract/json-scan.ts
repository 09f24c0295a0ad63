/** Reading a JSON text character by character, without parsing it. */

/**
 * The index just past the string that opens at `quote` (a `"`): past its closing quote, escapes
 * skipped; the text's length when the string never closes.
 */
export function afterJsonString(text: string, quote: number): number {
  let i = quote + 1;
  while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
  return Math.min(i + 1, text.length);
}
