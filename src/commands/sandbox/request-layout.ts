/**
 * How `svc sandbox logs` lays logged requests out on a terminal, the list and --follow alike:
 * STATUS, METHOD and the whole PATH always (a path longer than its column continues on the next
 * lines, never cut); TIME, CREDENTIAL, MS and REQUEST ID as the width allows, in that order; a
 * refused request's reason (error code and message) on the line below, wrapped between words,
 * with its request id when the row had no room for it.
 */
import stringWidth from 'string-width';
import { escapeControls } from '../../io/escape.js';
import { wrapHanging } from '../../io/wrap.js';
import { credentialText, type LoggedRequest } from './request-lines.js';

interface Optional {
  header: string;
  width: number;
  get: (e: LoggedRequest) => string;
}

const STATUS_W = 6;
const METHOD_W = 7;
const PATH_MIN = 24;
const PATH_MAX = 56;
const GAP = 2;
const CREDENTIAL_W = 26;

/** The time of day (UTC) of an RFC 3339 time: the log covers minutes, not days. */
const clock = (time: string) => `${time.slice(11, 19)}Z`;
const cut = (text: string, width: number) => {
  if (stringWidth(text) <= width) return text;
  let out = '';
  for (const ch of text) {
    if (stringWidth(`${out}${ch}…`) > width) break;
    out += ch;
  }
  return `${out}…`;
};

/** In the order they are kept as the terminal narrows. */
const OPTIONAL: Optional[] = [
  { header: 'TIME', width: 9, get: (e) => clock(e.time) },
  { header: 'CREDENTIAL', width: CREDENTIAL_W, get: (e) => cut(credentialText(e.credential), CREDENTIAL_W) },
  { header: 'REQUEST ID', width: 20, get: (e) => e.request_id },
  { header: 'MS', width: 7, get: (e) => String(Math.round(e.duration_ms)) },
];

export interface Layout {
  width: number;
  pathWidth: number;
  time: boolean;
  /** Columns after PATH, in print order. */
  after: Optional[];
  requestId: boolean;
}

/** Which columns a terminal of `width` columns shows, and how wide PATH is. */
export function layoutFor(width: number): Layout {
  let room = width - STATUS_W - GAP - METHOD_W - GAP - PATH_MIN;
  const kept = new Set<string>();
  for (const o of OPTIONAL) {
    if (o.width + GAP <= room) {
      kept.add(o.header);
      room -= o.width + GAP;
    }
  }
  const after = ['CREDENTIAL', 'MS', 'REQUEST ID'].filter((h) => kept.has(h)).map((h) => OPTIONAL.find((o) => o.header === h) as Optional);
  return { width, pathWidth: Math.min(PATH_MAX, PATH_MIN + room), time: kept.has('TIME'), after, requestId: kept.has('REQUEST ID') };
}

const pad = (text: string, width: number) => text + ' '.repeat(Math.max(0, width - stringWidth(text)));

/** A path in pieces of at most `width` columns, broken after a / ? & or = where it can be. */
function pathPieces(path: string, width: number): string[] {
  const pieces: string[] = [];
  let rest = path;
  while (stringWidth(rest) > width) {
    const head = rest.slice(0, width);
    const at = Math.max(head.lastIndexOf('/'), head.lastIndexOf('?'), head.lastIndexOf('&'), head.lastIndexOf('='));
    const end = at > width / 3 ? at + 1 : width;
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  pieces.push(rest);
  return pieces;
}

/** Why a request was refused (or what it used that is deprecated), in one line; '' for neither. */
export function reasonOf(e: LoggedRequest): string {
  if (e.error) return `${e.error.code}: ${e.error.message}`;
  if (e.status >= 400) return `HTTP ${e.status}`;
  if (e.deprecations.length > 0) return `deprecated: ${e.deprecations.map((d) => `${d.what}; use ${d.replacement}`).join('; ')}`;
  return '';
}

/** The header line of the layout. */
export function headerLine(l: Layout): string {
  const cells = [...(l.time ? [pad('TIME', 9)] : []), pad('STATUS', STATUS_W), pad('METHOD', METHOD_W), pad('PATH', l.pathWidth)];
  for (const o of l.after) cells.push(pad(o.header, o.width));
  return `${cells.join('  ').trimEnd()}\n`;
}

/** One request's lines (no trailing newline on each); control characters escaped. */
export function requestLines(e: LoggedRequest, l: Layout): string[] {
  const path = escapeControls(e.query ? `${e.path}?${e.query}` : e.path);
  const pieces = pathPieces(path, l.pathWidth);
  const lead = l.time ? 9 + GAP : 0;
  const first = [...(l.time ? [pad(clock(e.time), 9)] : []), pad(String(e.status), STATUS_W), pad(e.method, METHOD_W)];
  first.push(pad(pieces[0] as string, l.pathWidth));
  for (const o of l.after) first.push(pad(escapeControls(o.get(e)), o.width));
  const lines = [first.join('  ').trimEnd()];
  const pathIndent = ' '.repeat(lead + STATUS_W + GAP + METHOD_W + GAP);
  for (const piece of pieces.slice(1)) lines.push(pathIndent + piece);
  const reason = escapeControls(reasonOf(e));
  if (reason !== '') {
    const text = l.requestId ? reason : `${reason} (${e.request_id})`;
    lines.push(...wrapHanging(text, l.width, ' '.repeat(lead + 2), 2));
  }
  return lines;
}
