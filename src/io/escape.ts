/**
 * Control characters made visible in text shown to a person, as gh does: a value from the service
 * or from a file (a contact's name, a server's error message) must not drive the terminal — set
 * its title, write the clipboard through OSC 52, move the cursor, reverse the text. Machine
 * formats (JSON, CSV, NDJSON, the report files) stay exact and never come through here.
 */

/**
 * C0 but tab and newline (layout), DEL, C1 (U+0080–U+009F, U+009B being a one-byte CSI), and the
 * bidirectional embeddings, overrides and isolates.
 */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

/** ESC → `^[`, BEL → `^G`, DEL → `^?` (caret notation, as gh and `cat -v`); others as `\u009b`. */
function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every control character shown as a visible escape; tab and newline kept. */
export function escapeControls(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, visible) : text;
}
