/**
 * Event properties from the command line, typed the way httpie types request items:
 *
 *   key=value      a number (JSON number syntax, safe integers only), true, false or null when the
 *                  value is exactly one of those; otherwise the string as written (so `007`,
 *                  `1e999`, `12345678901234567890` and `TRUE` stay strings)
 *   key:=json      raw JSON: `tags:='["a","b"]'`, `code:='"007"'` (how to force a string)
 *   a.b.c=value    nested objects; `\.` is a literal dot, `\=` a literal `=`, `\:` a literal `:`,
 *                  `\[` a literal `[`, `\\` a backslash
 *   tags[]=value   appends to an array
 *
 * No terminal code here: errors are PropError values the command turns into exit 2.
 */
import { ExactNumber, parseJson } from '../contract/exact-json.js';

export class PropError extends Error {
  readonly arg: string;
  constructor(arg: string, message: string) {
    super(message);
    this.name = 'PropError';
    this.arg = arg;
  }
}

export type Properties = Record<string, unknown>;

interface ParsedProp {
  path: string[];
  append: boolean;
  value: unknown;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Types a `key=value` value: numbers, booleans and null; anything else stays the string given. */
export function typeValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (JSON_NUMBER.test(text)) {
    const n = Number(text);
    // Numbers JSON cannot carry exactly (huge ids, overflow) stay strings rather than lose digits.
    if (!Number.isFinite(n)) return text;
    if (/^-?\d+$/.test(text) && !Number.isSafeInteger(n)) return text;
    return n;
  }
  return text;
}

/** Parses one `--prop` argument into its key path and value. */
export function parseProp(arg: string): ParsedProp {
  const key = scanKey(arg);
  if (!key) throw new PropError(arg, `--prop ${JSON.stringify(arg)} has no value: write key=value, or key:=<json> for raw JSON`);
  const { segments, raw, valueAt } = key;
  let current = key.last;
  let append = false;
  // `[]` only counts when it was written unescaped at the very end of the key.
  const keyText = arg.slice(0, valueAt - (raw ? 2 : 1));
  if (keyText.endsWith('[]') && !keyText.endsWith('\\[]') && current.endsWith('[]')) {
    append = true;
    current = current.slice(0, -2);
  }
  segments.push(current);
  if (segments.some((s) => s.length === 0)) {
    throw new PropError(arg, `--prop ${JSON.stringify(arg)} has an empty key or key part: write key=value or a.b=value`);
  }
  const text = arg.slice(valueAt);
  return { path: segments, append, value: raw ? rawValue(arg, text) : typeValue(text) };
}

/**
 * The key of `a.b\\.c=v` / `a:=json` read up to its `=` or `:=` (backslash escapes the next
 * character): the parts before the last dot, the last part, where the value starts, and whether
 * it is raw JSON. Undefined when there is no `=`.
 */
function scanKey(arg: string): { segments: string[]; last: string; valueAt: number; raw: boolean } | undefined {
  const segments: string[] = [];
  let current = '';
  let i = 0;
  while (i < arg.length) {
    const ch = arg[i] as string;
    if (ch === '\\' && i + 1 < arg.length) {
      current += arg[i + 1];
      i += 2;
    } else if (ch === ':' && arg[i + 1] === '=') {
      return { segments, last: current, valueAt: i + 2, raw: true };
    } else if (ch === '=') {
      return { segments, last: current, valueAt: i + 1, raw: false };
    } else if (ch === '.') {
      segments.push(current);
      current = '';
      i += 1;
    } else {
      current += ch;
      i += 1;
    }
  }
  return undefined;
}

function rawValue(arg: string, text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    throw new PropError(
      arg,
      `--prop ${JSON.stringify(arg)}: ${JSON.stringify(text)} is not valid JSON (with := the value is raw JSON; use = for plain text)`,
    );
  }
}

function isPlainObject(value: unknown): value is Properties {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ExactNumber);
}

/** Own properties only, so a key such as `__proto__` is plain data and never reaches a prototype. */
function getOwn(node: Properties, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

function setOwn(node: Properties, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Builds a properties object from `--prop` arguments in order. A key given twice, or a key used
 * both as a value and as an object (`a=1 a.b=2`), is an error rather than a silent overwrite.
 */
export function parseProps(args: readonly string[]): Properties {
  const out: Properties = {};
  for (const arg of args) {
    const { path, append, value } = parseProp(arg);
    const node = parentOf(out, path, arg);
    const last = path[path.length - 1] as string;
    const existing = getOwn(node, last);
    if (append) {
      if (existing === undefined) setOwn(node, last, [value]);
      else if (Array.isArray(existing)) existing.push(value);
      else throw new PropError(arg, `--prop ${JSON.stringify(arg)}: ${path.join('.')} is already set and is not an array`);
    } else if (existing !== undefined) {
      throw new PropError(arg, `--prop ${JSON.stringify(arg)}: ${path.join('.')} is given twice`);
    } else setOwn(node, last, value);
  }
  return out;
}

/** The object that holds the path's last key, made on the way; a value in the way is an error. */
function parentOf(root: Properties, path: string[], arg: string): Properties {
  let node = root;
  for (let k = 0; k < path.length - 1; k++) {
    const key = path[k] as string;
    const next = getOwn(node, key);
    if (next === undefined) {
      const created: Properties = {};
      setOwn(node, key, created);
      node = created;
    } else if (isPlainObject(next)) node = next;
    else
      throw new PropError(arg, `--prop ${JSON.stringify(arg)}: ${path.slice(0, k + 1).join('.')} is already set to a value, not an object`);
  }
  return node;
}

/**
 * Deep-merges `--prop` values over a `--properties` object: objects merge key by key, anything
 * else from `over` replaces what `base` had. Neither input is changed.
 */
export function mergeProperties(base: Properties, over: Properties): Properties {
  const out: Properties = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = getOwn(out, key);
    setOwn(out, key, isPlainObject(prev) && isPlainObject(value) ? mergeProperties(prev, value) : value);
  }
  return out;
}
