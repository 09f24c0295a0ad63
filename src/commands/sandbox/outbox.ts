/** svc sandbox outbox: the side effects a running sandbox recorded (welcome SMS, flow triggers and runs, revenue attribution). */

import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseFields, pickFields } from '../../io/fields.js';
import type { Column } from '../../io/output.js';
import { didYouMean } from '../../util/did-you-mean.js';
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
  fields?: string;
}

/** The fields of a side effect, in the order of the admin API's objects (--fields). */
export const SIDE_EFFECT_FIELDS = ['seq', 'type', 'business_id', 'contact_id', 'order_id', 'event_id', 'trigger', 'created_at'] as const;
type SideEffectField = (typeof SIDE_EFFECT_FIELDS)[number];

/**
 * The table's column of each field. At a narrow terminal columns are dropped lowest priority
 * first: business, event, order, created, trigger, contact, type; the sequence number stays.
 * Ids are never cut (people copy them).
 */
const FIELD_COLUMNS: Record<SideEffectField, Column<SideEffect>> = {
  seq: { header: 'SEQ', get: (e) => e.seq, noTruncate: true, priority: 100 },
  type: { header: 'TYPE', get: (e) => e.type, priority: 90 },
  trigger: { header: 'TRIGGER', get: (e) => e.trigger, priority: 70 },
  contact_id: { header: 'CONTACT', get: (e) => e.contact_id, noTruncate: true, priority: 80 },
  order_id: { header: 'ORDER', get: (e) => e.order_id, maxWidth: 40, priority: 50 },
  event_id: { header: 'EVENT', get: (e) => e.event_id, noTruncate: true, priority: 40 },
  business_id: { header: 'BUSINESS', get: (e) => e.business_id, priority: 30 },
  created_at: { header: 'CREATED', get: (e) => e.created_at, noTruncate: true, priority: 60 },
};
const DEFAULT_FIELDS: SideEffectField[] = ['seq', 'type', 'trigger', 'contact_id', 'order_id', 'event_id', 'business_id', 'created_at'];

export async function run(_args: string[], opts: OutboxOptions, ctx: Context): Promise<number> {
  const live = opts.follow || opts.wait !== undefined;
  if (live && opts.fields !== undefined) throw new UsageError('--fields works with the listing, not with --follow or --wait');
  const fields = opts.fields === undefined ? undefined : parseFields(opts.fields, SIDE_EFFECT_FIELDS);
  if (live) {
    const { runLive } = await import('./outbox-live.js');
    return runLive(opts, ctx, await sandboxBaseUrl(ctx), SIDE_EFFECT_TYPES);
  }
  const params = outboxQuery(opts);
  const baseUrl = await sandboxBaseUrl(ctx);
  const qs = params.toString();
  const answer = (await adminCall(ctx, baseUrl, 'GET', `/outbox${qs ? `?${qs}` : ''}`)) as { data: SideEffect[] };
  const shown = lastOf(answer.data, opts);
  const writer = await ctx.out.list(
    ctx.out.defaultFormat(ctx.settings.json),
    (fields ?? DEFAULT_FIELDS).map((f) => FIELD_COLUMNS[f]),
    undefined,
    fields ? (e) => pickFields(e, fields) : undefined,
  );
  // Long output at a terminal goes through the pager (`sandbox outbox` can list many thousands).
  if (shown.length > 0) ctx.startPager();
  writer.writePage(shown);
  writer.end();
  if (shown.length === 0 && !ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('no side effects recorded');
  return 0;
}

/** The admin API's query for --type, --after and --business-id (checked here: mistakes are usage errors); --limit checked. */
function outboxQuery(opts: OutboxOptions): URLSearchParams {
  const params = new URLSearchParams();
  if (opts.type !== undefined) {
    if (!(SIDE_EFFECT_TYPES as readonly string[]).includes(opts.type))
      throw new UsageError(
        `--type must be one of: ${SIDE_EFFECT_TYPES.join(', ')}; got ${JSON.stringify(opts.type)}${didYouMean(opts.type, SIDE_EFFECT_TYPES)}`,
      );
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
  return params;
}

/** --contact keeps one contact's side effects; --limit N the N most recent, still oldest first. */
function lastOf(effects: SideEffect[], opts: OutboxOptions): SideEffect[] {
  const mine = opts.contact === undefined ? effects : effects.filter((e) => e.contact_id === opts.contact);
  return opts.limit === undefined ? mine : mine.slice(-Number(opts.limit));
}
