/** svc sandbox outbox: the side effects a running sandbox recorded (welcome SMS, flow triggers and runs, revenue attribution). */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { adminCall, type SideEffect, sandboxBaseUrl } from './admin-client.js';

export const SIDE_EFFECT_TYPES = ['welcome_sms', 'flow_trigger', 'flow_run', 'revenue_attribution'] as const;

export interface OutboxOptions {
  type?: string;
  after?: string;
  businessId?: string;
  limit?: string;
  contact?: string;
  // --follow and --wait (outbox-live.ts)
  follow?: boolean;
  wait?: string;
  email?: string;
  eventType?: string;
  timeout?: string;
}

const COLUMNS: Column<SideEffect>[] = [
  { header: 'SEQ', get: (e) => e.seq },
  { header: 'TYPE', get: (e) => e.type },
  { header: 'TRIGGER', get: (e) => e.trigger },
  { header: 'CONTACT', get: (e) => e.contact_id, noTruncate: true },
  { header: 'ORDER', get: (e) => e.order_id, maxWidth: 40 },
  { header: 'EVENT', get: (e) => e.event_id, noTruncate: true },
  { header: 'BUSINESS', get: (e) => e.business_id },
  { header: 'CREATED', get: (e) => e.created_at },
];

export async function run(_args: string[], opts: OutboxOptions, ctx: Context): Promise<number> {
  if (opts.follow || opts.wait !== undefined) {
    const { runLive } = await import('./outbox-live.js');
    return runLive(opts, ctx, await sandboxBaseUrl(ctx), SIDE_EFFECT_TYPES);
  }
  const params = new URLSearchParams();
  if (opts.type !== undefined) {
    if (!(SIDE_EFFECT_TYPES as readonly string[]).includes(opts.type))
      throw new UsageError(`--type must be one of: ${SIDE_EFFECT_TYPES.join(', ')}; got ${JSON.stringify(opts.type)}`);
    params.set('type', opts.type);
  }
  if (opts.after !== undefined) {
    if (!/^\d{1,15}$/.test(opts.after))
      throw new UsageError(`--after must be a sequence number (0 or more), got ${JSON.stringify(opts.after)}`);
    params.set('after', opts.after);
  }
  if (opts.businessId !== undefined) params.set('business_id', opts.businessId);
  if (opts.limit !== undefined && !/^[1-9]\d{0,8}$/.test(opts.limit))
    throw new UsageError(`--limit must be a whole number of 1 or more, got ${JSON.stringify(opts.limit)}`);
  const baseUrl = await sandboxBaseUrl(ctx);
  const qs = params.toString();
  const answer = (await adminCall(ctx, baseUrl, 'GET', `/outbox${qs ? `?${qs}` : ''}`)) as { data: SideEffect[] };
  const shown = lastOf(answer.data, opts);
  const writer = ctx.out.list(ctx.out.defaultFormat(ctx.settings.json), COLUMNS);
  writer.writePage(shown);
  writer.end();
  if (shown.length === 0 && !ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('no side effects recorded');
  return 0;
}

/** --contact keeps one contact's side effects; --limit N the N most recent, still oldest first. */
function lastOf(effects: SideEffect[], opts: OutboxOptions): SideEffect[] {
  const mine = opts.contact === undefined ? effects : effects.filter((e) => e.contact_id === opts.contact);
  return opts.limit === undefined ? mine : mine.slice(-Number(opts.limit));
}
