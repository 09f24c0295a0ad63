/**
 * One logged request in full (`svc sandbox logs --request-id`): what it was, why it was refused
 * and what to change (wrapped between words to the terminal), what it did by person, and both
 * bodies.
 */
import type { Context } from '../../context.js';
import { escapeControls } from '../../io/escape.js';
import { wrapHanging } from '../../io/wrap.js';
import { credentialText, type LoggedRequest } from './request-lines.js';

type Effects = LoggedRequest['effects'];
type Person = Effects['records'][number]['person'];

const who = (p: Person) => (p === null ? '' : (p.email ?? p.phone ?? p.contact_id));

/** What the request did, one line per record and side effect, people by e-mail or phone. */
export function effectLines(effects: Effects): string[] {
  const lines: string[] = [];
  for (const r of effects.records) {
    const name = who(r.person);
    const id = r.type === 'contact' ? r.id : `${r.id}`;
    lines.push(`${r.action} ${r.type} ${id}${name !== '' && name !== r.id ? ` (${name})` : ''}`);
  }
  for (const s of effects.side_effects) {
    const name = who(s.person);
    const about = s.flow_id ? ` flow ${s.flow_id}` : s.trigger ? ` ${s.trigger}` : '';
    lines.push(`${s.type}${about}${name !== '' ? ` for ${name}` : ''} (outbox #${s.seq})`);
  }
  return lines;
}

/** One request in full: aligned `key  value` lines, long values wrapped between words under their column. */
export function printDetail(ctx: Context, e: LoggedRequest): void {
  const fields = detailFields(e);
  const keyWidth = Math.max(...fields.map(([k]) => k.length));
  const width = ctx.io.stdoutIsTTY ? (ctx.io.columns ?? 80) : undefined;
  const indent = ' '.repeat(keyWidth + 2);
  const out: string[] = [];
  for (const [k, v] of fields) {
    const [first, ...rest] = wrapHanging(escapeControls(v), width === undefined ? undefined : width - keyWidth - 2, '', 0);
    out.push(`${ctx.colors.bold(k.padEnd(keyWidth))}  ${first}`, ...rest.map((l) => indent + l));
  }
  ctx.out.stdout(`${out.join('\n')}\n`);
  ctx.out.text(bodyText('Request body', e.request));
  ctx.out.text(bodyText('Answer body', e.response));
}

/** The `key value` pairs of one request: always its identity and answer, then what it has of the rest. */
function detailFields(e: LoggedRequest): [string, string][] {
  const path = e.query ? `${e.path}?${e.query}` : e.path;
  const fields: [string, string][] = [
    ['request_id', e.request_id],
    ['time', e.time],
    ['kind', e.kind],
    ['business', e.business_id ?? '-'],
    ['credential', credentialText(e.credential)],
    ['request', `${e.method} ${path}`],
    ['status', String(e.status)],
    ['duration', `${e.duration_ms} ms`],
    ['error', e.error ? `${e.error.code}: ${e.error.message}` : '-'],
  ];
  if (e.explanation) fields.push(['why', e.explanation.rule], ['fix', e.explanation.fix]);
  if (e.write_applied !== null) fields.push(['write applied', e.write_applied ? 'yes' : 'no']);
  for (const d of e.deprecations) fields.push(['deprecated', `${d.what}; use ${d.replacement}`]);
  for (const line of effectLines(e.effects)) fields.push(['did', line]);
  if (e.replay_of) fields.push(['replay of', e.replay_of]);
  for (const r of e.replays) fields.push(['replayed as', r]);
  return fields;
}

/** A body under its title: pretty JSON, cut note, or why there is none. */
function bodyText(title: string, b: LoggedRequest['request']): string {
  const text =
    b.body === null
      ? b.bytes > 0
        ? `(${b.bytes} bytes, not read: the request was refused before its body was read)`
        : '(none)'
      : `${pretty(b.body)}${b.truncated ? `\n… (cut at 16 KiB of ${b.bytes} bytes)` : ''}`;
  return `\n${title}${b.content_type ? ` (${b.content_type})` : ''}:\n${text}\n`;
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
