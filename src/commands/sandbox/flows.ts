/**
 * svc sandbox flows list|show|enable|disable: the flows of a running sandbox (admin API
 * /_sandbox/flows), found as `svc sandbox outbox` finds it. A disabled flow stops running; its
 * past runs stay in the outbox.
 */
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import type { Column } from '../../io/output.js';
import type { FlowView } from '../../sandbox/domain/flows.js';
import { adminCall, type SideEffect, sandboxBaseUrl } from './admin-client.js';

/** A flow as the admin API answers it (the sandbox's own view of one). */
type Flow = FlowView;

const COLUMNS: Column<Flow>[] = [
  { header: 'ID', get: (f) => f.id, noTruncate: true, priority: 100 },
  { header: 'NAME', get: (f) => f.name, maxWidth: 32, priority: 80 },
  { header: 'ON', get: (f) => `${f.trigger === 'order' ? 'order' : 'event'} ${f.event_type}`, maxWidth: 32, priority: 90 },
  { header: 'ENABLED', get: (f) => (f.enabled ? 'yes' : 'no'), priority: 95 },
  { header: 'RUNS', get: (f) => f.runs, priority: 70 },
  { header: 'LAST RUN', get: (f) => f.last_run_at ?? '-', noTruncate: true, priority: 50 },
];

const RECENT_RUNS = 10;

/** svc sandbox flows list */
export async function list(_args: string[], opts: { businessId?: string }, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const q = opts.businessId === undefined ? '' : `?business_id=${encodeURIComponent(opts.businessId)}`;
  const page = (await adminCall(ctx, baseUrl, 'GET', `/flows${q}`)) as { data: Flow[] };
  const writer = await ctx.out.list(ctx.out.defaultFormat(ctx.settings.json), COLUMNS);
  writer.writePage(page.data);
  writer.end();
  if (page.data.length === 0 && !ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('no flows in this business');
  return EXIT.ok;
}

const flowPath = (id: string) => `/flows/${encodeURIComponent(id)}`;

/** svc sandbox flows show FLOW_ID: the flow, then its most recent runs. */
export async function show([id]: [string], _opts: object, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const f = (await adminCall(ctx, baseUrl, 'GET', flowPath(id))) as Flow;
  const runs = (await adminCall(ctx, baseUrl, 'GET', `/outbox?flow_id=${encodeURIComponent(id)}&limit=${RECENT_RUNS}`)) as {
    data: (SideEffect & { request_id?: string })[];
  };
  if (ctx.settings.json) {
    ctx.out.json({ ...f, recent_runs: runs.data });
    return EXIT.ok;
  }
  printFlow(ctx, f);
  if (runs.data.length > 0) ctx.out.text(`\nrecent runs (newest last):\n`);
  for (const r of runs.data)
    ctx.out.text(
      `  ${r.created_at}  ${r.trigger ?? ''}  contact ${r.contact_id ?? '-'}${r.event_id ? `  event ${r.event_id}` : ''}${r.order_id ? `  order ${r.order_id}` : ''}${r.request_id ? `  ${r.request_id}` : ''}\n`,
    );
  return EXIT.ok;
}

function printFlow(ctx: Context, f: Flow): void {
  ctx.out.record([
    ['id', f.id],
    ['name', f.name],
    ['business', f.business_id],
    ['runs on', `${f.trigger} ${f.event_type}`],
    ['enabled', f.enabled ? 'yes' : 'no'],
    ['runs', f.runs],
    ['last run', f.last_run_at ?? '-'],
    ['created', f.created_at],
  ]);
}

async function setEnabled(id: string, enabled: boolean, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const f = (await adminCall(ctx, baseUrl, 'PATCH', flowPath(id), { enabled })) as Flow;
  if (ctx.settings.json) ctx.out.json(f);
  else ctx.out.info(`flow ${f.id} (${f.name}) ${enabled ? 'enabled' : 'disabled'}`);
  return EXIT.ok;
}

/** svc sandbox flows enable FLOW_ID */
export const enable = ([id]: [string], _opts: object, ctx: Context) => setEnabled(id, true, ctx);
/** svc sandbox flows disable FLOW_ID */
export const disable = ([id]: [string], _opts: object, ctx: Context) => setEnabled(id, false, ctx);
