/**
 * JSON whose numbers keep the value they were written with. `JSON.parse` reads every number as a
 * double, so 12345678901234567890 becomes 12345678901234567000, 1e400 becomes Infinity (sent as
 * `null`) and 0.1000000000000000000001 becomes 0.1. Here a number a double cannot hold exactly
 * is read as an {@link ExactNumber} holding its text, and {@link stringifyJson} writes that text
 * back unchanged; every other number is a plain `number`, so code that reads the value (a
 * quantity, a depth check) sees what it always did.
 *
 * Node 20 has neither `JSON.parse`'s source text access nor `JSON.rawJSON`, so both directions
 * go through a placeholder string that carries a per-process random nonce: no text a user
 * writes can be taken for one.
 */
import { randomBytes } from 'node:crypto';
import { afterJsonString } from './json-scan.js';

const NONCE = randomBytes(12).toString('hex');
/** The placeholder's start: a NUL (never unescaped in JSON text) and the nonce. */
const MARK = `\u0000${NONCE}:`;
/** A placeholder as JSON.stringify writes it: `"\u0000<nonce>:<number text>"`. */
const WRITTEN_MARK = new RegExp(`"\\\\u0000${NONCE}:([-+.0-9eE]+)"`, 'g');

/** A JSON number that a double would change, kept as the text it was written with. */
export class ExactNumber {
  constructor(readonly text: string) {}
  /** Its value as a double (approximate: that is why it is kept as text). */
  valueOf(): number {
    return Number(this.text);
  }
  toString(): string {
    return this.text;
  }
  /** The placeholder stringifyJson turns back into the number's text. */
  toJSON(): string {
    return `${MARK}${this.text}`;
  }
}

const NUMBER = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number's text as sign, significant digits and exponent (`-1.50e2` → -, "15", 1); null when not a number. */
function decimalParts(text: string): { negative: boolean; digits: string; exponent: number } | null {
  const m = NUMBER.exec(text);
  if (m === null) return null;
  const whole = m[1] ?? '';
  const fraction = m[2] ?? '';
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return { negative: false, digits: '0', exponent: 0 };
  let exponent = Number(m[3] ?? '0') - fraction.length;
  const trailing = /0+$/.exec(digits);
  if (trailing !== null) {
    digits = digits.slice(0, -trailing[0].length);
    exponent += trailing[0].length;
  }
  return { negative: text.startsWith('-'), digits, exponent };
}

/** Whether a double holds the number written as `text` exactly (1.0 and 1e2 do; 2^64 and 1e400 do not). */
export function isExactDouble(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  const written = decimalParts(text);
  const held = decimalParts(String(value).replace('e+', 'e'));
  if (written === null || held === null) return false;
  if (written.digits === '0') return held.digits === '0';
  return written.negative === held.negative && written.digits === held.digits && written.exponent === held.exponent;
}

/** A cheap look: could the text hold a number a double changes (16+ digits in a row, or an exponent)? */
const MAYBE_INEXACT = /[0-9.]{16,}|\d[eE]/;

/** The number tokens of a JSON text that a double would change, with where they stand. */
function inexactNumbers(text: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = afterJsonString(text, i);
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i = numberEnd(text, i + 1);
      if (!isExactDouble(text.slice(start, i))) found.push({ start, end: i });
    } else i += 1;
  }
  return found;
}

/** Where the number token going on at `i` ends. */
function numberEnd(text: string, i: number): number {
  let end = i;
  while (end < text.length && /[-+.0-9eE]/.test(text[end] as string)) end += 1;
  return end;
}

/**
 * `JSON.parse`, except that a number a double would change is an {@link ExactNumber}. Throws
 * JSON.parse's own SyntaxError for text that is not JSON.
 */
export function parseJson(text: string): unknown {
  if (!MAYBE_INEXACT.test(text)) return JSON.parse(text);
  const inexact = inexactNumbers(text);
  if (inexact.length === 0) return JSON.parse(text);
  // Checked as written first, so a syntax error names the user's text, not the placeholders.
  JSON.parse(text);
  let marked = '';
  let from = 0;
  for (const { start, end } of inexact) {
    marked += `${text.slice(from, start)}"\\u0000${NONCE}:${text.slice(start, end)}"`;
    from = end;
  }
  marked += text.slice(from);
  return JSON.parse(marked, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARK) ? new ExactNumber(value.slice(MARK.length)) : value,
  );
}

/** `JSON.stringify` (no indent, or `indent` spaces) writing every {@link ExactNumber} as its own text. */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent);
  if (text === undefined || !text.includes(NONCE)) return text;
  return text.replace(WRITTEN_MARK, '$1');
}
