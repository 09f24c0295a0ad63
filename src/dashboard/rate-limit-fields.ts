/**
 * The rate-limit part of the fault form (PUT /_sandbox/faults `rate_limits`, docs/sandbox.md):
 * who is counted, the headers, the in-flight cap, and the windows as JSON (any number of them,
 * each fixed or sliding, for every route or one endpoint).
 */
import { h, input, type Rec } from './dom.js';

function choice(id: string, label: string, options: [string, string][], value: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('select', { id, name: id }, ...options.map(([v, text]) => h('option', { value: v, selected: v === value }, text))),
  );
}

/** The fields, filled with the limits in force. */
export function rateLimitFields(current: Rec | undefined): HTMLElement {
  const windows = (current?.windows as unknown[] | undefined) ?? [];
  return h(
    'fieldset',
    { class: 'rate-limits' },
    h('legend', {}, 'Rate limits'),
    choice(
      'rl-per',
      'Count requests per',
      [
        ['token', 'token'],
        ['business', 'business'],
      ],
      String(current?.per ?? 'token'),
    ),
    choice(
      'rl-headers',
      'Headers on answers',
      [
        ['none', 'none'],
        ['ratelimit', 'RateLimit-* (Reset in seconds)'],
        ['x-ratelimit', 'X-RateLimit-* (Reset as epoch time)'],
      ],
      String(current?.headers ?? 'none'),
    ),
    input('rl-max-in-flight', 'Most requests in flight', {
      name: 'rl-max-in-flight',
      type: 'number',
      min: 1,
      step: 1,
      value: (current?.max_in_flight as number | undefined) ?? '',
    }),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'rl-windows' }, 'Windows (JSON)'),
      h(
        'textarea',
        { id: 'rl-windows', name: 'rl-windows', rows: 3, spellcheck: 'false', 'aria-describedby': 'rl-windows-hint' },
        windows.length > 0 ? JSON.stringify(windows) : '',
      ),
      h(
        'p',
        { id: 'rl-windows-hint', class: 'hint' },
        'Each {"limit", "window_s", "sliding"?, "start"?, "endpoint"?}; a burst and a steady window: [{"limit": 75, "window_s": 1}, {"limit": 750, "window_s": 60}]',
      ),
    ),
  );
}

/** The `rate_limits` object from the form, or undefined when no limit is set. */
export function rateLimitBody(data: FormData): Record<string, unknown> | undefined {
  const text = String(data.get('rl-windows') ?? '').trim();
  let windows: unknown;
  if (text !== '') {
    try {
      windows = JSON.parse(text);
    } catch {
      throw new Error('Windows: not valid JSON (an array such as [{"limit": 750, "window_s": 60}])');
    }
  }
  const cap = String(data.get('rl-max-in-flight') ?? '').trim();
  if (windows === undefined && cap === '') return undefined;
  const out: Record<string, unknown> = { per: data.get('rl-per') ?? 'token', headers: data.get('rl-headers') ?? 'none' };
  if (windows !== undefined) out.windows = windows;
  if (cap !== '') out.max_in_flight = Number(cap);
  return out;
}
