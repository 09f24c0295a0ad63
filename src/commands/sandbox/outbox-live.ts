/**
 * svc sandbox outbox --follow / --wait: the side effects of a running sandbox as they are
 * recorded. --follow prints each one (NDJSON with --json) until interrupted; --wait TYPE exits 0
 * printing the first side effect of that type matching the filters (one already recorded
 * counts), or 1 when --timeout passes first. Both read GET /_sandbox/outbox with after=SEQ.
 */
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { parseSeconds } from '../../store/settings.js';
import { adminCall, type SideEffect } from './admin-client.js';

/** How often the sandbox is asked for new side effects. */
const POLL_MS = 200;
const DEFAULT_WAIT_MS = 30_000;

export interface LiveOptions {
  type?: string;
  businessId?: string;
  follow?: boolean;
  wait?: string;
  contact?: string;
  email?: string;
  eventType?: string;
  timeout?: string;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function line(e: SideEffect, json: boolean): string {
  if (json) return `${JSON.stringify(e)}\n`;
  const parts = [String(e.seq), e.type, e.trigger, e.contact_id, e.order_id, e.event_id, e.business_id, e.created_at];
  return `${parts.map((p) => p ?? '-').join('\t')}\n`;
}

/** The id of the contact with this e-mail address, once it exists. */
async function contactByEmail(ctx: Context, baseUrl: string, email: string, businessId: string | undefined): Promise<string | undefined> {
  const qs = new URLSearchParams({ q: email, limit: '100', ...(businessId ? { business_id: businessId } : {}) });
  const page = (await adminCall(ctx, baseUrl, 'GET', `/contacts?${qs}`)) as { data: { id: string; email: string | null }[] };
  return page.data.find((c) => c.email?.toLowerCase() === email.toLowerCase())?.id;
}

/** `types`: the side-effect types --wait accepts (outbox.ts's list). */
export async function runLive(opts: LiveOptions, ctx: Context, baseUrl: string, types: readonly string[]): Promise<number> {
  checkLiveOptions(opts, types);
  const timeoutMs = opts.timeout === undefined ? DEFAULT_WAIT_MS : parseSeconds(opts.timeout, '--timeout');
  const deadline = Date.now() + timeoutMs;

  // --follow starts after what is already recorded; --wait looks at everything.
  let after = 0;
  if (opts.follow) {
    const latest = (await adminCall(ctx, baseUrl, 'GET', `/outbox?limit=1`)) as { data: SideEffect[] };
    after = latest.data[0]?.seq ?? 0;
  }
  return watch(ctx, baseUrl, opts, after, deadline);
}

/** Polls until --wait's side effect is printed, --timeout passes (an error) or the run is interrupted. */
async function watch(ctx: Context, baseUrl: string, opts: LiveOptions, after: number, deadline: number): Promise<number> {
  let contactId = opts.contact;
  let seen = after;
  while (!ctx.signal.aborted) {
    if (opts.email !== undefined) contactId ??= await contactByEmail(ctx, baseUrl, opts.email, opts.businessId);
    // --email: nothing to look for until that contact exists.
    const lookNow = opts.email === undefined || contactId !== undefined;
    const polled = lookNow ? await printNew(ctx, baseUrl, opts, contactId, seen) : { after: seen, found: false };
    seen = polled.after;
    if (opts.wait !== undefined && polled.found) return EXIT.ok;
    if (opts.wait !== undefined && Date.now() >= deadline) throw await waitTimeout(ctx, baseUrl, opts, opts.wait, contactId);
    await sleep(opts.wait !== undefined ? Math.min(POLL_MS, Math.max(0, deadline - Date.now())) : POLL_MS, ctx.signal);
  }
  return opts.wait !== undefined ? EXIT.interrupted : EXIT.ok;
}

function checkLiveOptions(opts: LiveOptions, types: readonly string[]): void {
  if (opts.follow && opts.wait !== undefined) throw new UsageError('--follow and --wait cannot be used together');
  if (opts.wait !== undefined && !types.includes(opts.wait))
    throw new UsageError(`--wait must be one of: ${types.join(', ')}; got ${JSON.stringify(opts.wait)}`);
  if (opts.wait !== undefined && opts.type !== undefined && opts.type !== opts.wait)
    throw new UsageError('--type and --wait name different types; give the type once, to --wait');
  if (opts.contact !== undefined && opts.email !== undefined) throw new UsageError('--contact and --email cannot be used together');
  if (opts.timeout !== undefined && opts.wait === undefined) throw new UsageError('--timeout goes with --wait');
}

/**
 * The side effects recorded after `after` that match the filters, printed (with --wait, only the
 * first); the last sequence number read, and whether one was printed.
 */
async function printNew(
  ctx: Context,
  baseUrl: string,
  opts: LiveOptions,
  contactId: string | undefined,
  after: number,
): Promise<{ after: number; found: boolean }> {
  const type = opts.wait ?? opts.type;
  const qs = new URLSearchParams({ after: String(after) });
  if (type !== undefined) qs.set('type', type);
  if (opts.businessId !== undefined) qs.set('business_id', opts.businessId);
  if (contactId !== undefined) qs.set('contact_id', contactId);
  const answer = (await adminCall(ctx, baseUrl, 'GET', `/outbox?${qs}`)) as { data: SideEffect[] };
  let last = after;
  let found = false;
  for (const e of answer.data) {
    last = e.seq;
    if (opts.eventType !== undefined && e.trigger !== opts.eventType) continue;
    ctx.out.stdout(line(e, ctx.settings.json));
    found = true;
    if (opts.wait !== undefined) break;
  }
  return { after: last, found };
}

/** --timeout passed: what was awaited, and for a flow run keyed on no flow, why. */
async function waitTimeout(
  ctx: Context,
  baseUrl: string,
  opts: LiveOptions,
  wait: string,
  contactId: string | undefined,
): Promise<CliError> {
  const what = [
    `no ${wait} side effect`,
    contactId ? `for contact ${contactId}` : opts.email ? `for ${opts.email}` : '',
    opts.eventType ? `with event type ${opts.eventType}` : '',
    `within ${opts.timeout ?? '30s'}`,
  ];
  const hint = wait === 'flow_run' && opts.eventType ? await flowsHint(ctx, baseUrl, opts.eventType, opts.businessId) : undefined;
  return new CliError(what.filter(Boolean).join(' '), { exitCode: EXIT.failure, code: 'wait_timeout', hint });
}

/**
 * Why no flow_run came for an event type: no enabled flow of the sandbox is keyed on it (from
 * GET /_sandbox/flows), with the event types that have one. Nothing when one is, or when the
 * flows cannot be read (an older sandbox): the timeout then says what it says.
 */
async function flowsHint(ctx: Context, baseUrl: string, eventType: string, businessId: string | undefined): Promise<string | undefined> {
  let flows: Array<{ event_type: string; enabled?: boolean }>;
  try {
    const qs = businessId ? `?business_id=${encodeURIComponent(businessId)}` : '';
    flows = ((await adminCall(ctx, baseUrl, 'GET', `/flows${qs}`)) as { data: Array<{ event_type: string; enabled?: boolean }> }).data;
  } catch {
    return undefined;
  }
  if (flows.some((f) => f.event_type === eventType && f.enabled !== false)) return undefined;
  const keyed = [...new Set(flows.filter((f) => f.enabled !== false).map((f) => f.event_type))];
  return (
    `no enabled flow of this sandbox is keyed on event type ${eventType}, so none runs for it` +
    `${keyed.length ? ` (flows are keyed on: ${keyed.join(', ')})` : ' (it has no flow)'}; ` +
    'add one in the dashboard (Flows) or with POST /_sandbox/flows'
  );
}
