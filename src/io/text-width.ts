/**
 * How many terminal columns a message takes, without loading string-width: wrap.ts runs on the
 * start-up path of every error, and string-width's tables cost start-up time (test/e2e/cli.test.ts
 * keeps that path free of packages). ASCII is one column a character; escape sequences none;
 * combining marks and zero-width characters none; East Asian wide and fullwidth characters and
 * emoji two. Tables, where exact widths matter more, use string-width itself (table.ts).
 */

const ESCAPES = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const ZERO_WIDTH = /^[\p{M}\u200b-\u200f\u2060\ufeff]$/u;
const WIDE =
  /^[\p{Extended_Pictographic}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]$/u;

/** The columns `text` takes on a terminal. */
export function textWidth(text: string): number {
  if (/^[\u0020-\u007e]*$/.test(text)) return text.length;
  let width = 0;
  for (const ch of text.replace(ESCAPES, '')) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || ZERO_WIDTH.test(ch)) continue;
    width += WIDE.test(ch) ? 2 : 1;
  }
  return width;
}
