/**
 * `svc orders import FILE --plan`: reads the orders and the account, sends nothing, and prints the
 * contacts the orders would create, the SMS opt-ins recorded on them, and the real-time side
 * effects (with the historical orders named) (docs/importer.md, "Planning an import").
 */

import type { AccountRead, OrderWork } from '../../bulk/index.js';
import { HISTORICAL_DAYS, ORDER_PLAN_COLUMNS, type OrderPlan, orderPlanRecord, PlanOutBuffer, planOrders } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { readJson } from './contacts.js';
import { describeRead, type PlanFlags, readRowsAndAccount, writePlanOut } from './read.js';
import { cellJson, planTable, sampleText } from './table.js';

export async function runOrdersPlan(
  ctx: Context,
  rows: AsyncIterable<OrderWork[]>,
  opts: PlanFlags & { initialSync: boolean },
): Promise<number> {
  const { all, index, read } = await readRowsAndAccount(
    ctx,
    rows,
    (w) => ({ email: w.order?.email, phone: w.order?.phone }),
    opts.planRead,
  );
  const out = opts.planOut !== undefined ? new PlanOutBuffer(ORDER_PLAN_COLUMNS) : undefined;
  const plan = planOrders(all, index, ctx.now(), out && ((r) => out.add(orderPlanRecord(r))));
  writePlanOut(opts.planOut, () => (out as PlanOutBuffer).text());
  if (ctx.settings.json) ctx.out.json(orderPlanJson(plan, read, opts.planOut));
  else ctx.out.text(orderPlanText(plan, read, opts.planOut));
  return 0;
}

/** The --json document (field names documented in docs/importer.md). */
export function orderPlanJson(plan: OrderPlan, read: AccountRead, planOut: string | undefined) {
  return {
    plan: 'orders',
    rows: plan.rows,
    account: readJson(read),
    refused: cellJson(plan.refused),
    existing_contacts: cellJson(plan.existingContacts),
    created_contacts: cellJson(plan.createdContacts),
    sms_opt_ins: cellJson(plan.smsOptIns),
    live: cellJson(plan.live),
    historical: { ...cellJson(plan.historical), order_ids: [...plan.historical.orderIds], days: HISTORICAL_DAYS },
    plan_out: planOut ?? null,
  };
}

export function orderPlanText(plan: OrderPlan, read: AccountRead, planOut: string | undefined): string {
  const rows: Array<[string, OrderPlan['refused'], string]> = [];
  const add = (label: string, cell: OrderPlan['refused'], note: string) => {
    if (cell.count > 0) rows.push([label, cell, note]);
  };
  add('existing contacts', plan.existingContacts, 'orders whose buyer is in the account (consent unchanged)');
  add('created contacts', plan.createdContacts, 'e-mail or phone not in the account: a new contact');
  add('SMS opt-ins', plan.smsOptIns, 'accepts_sms_marketing on a created contact: SMS single_opt_in');
  add('live side effects', plan.live, 'sent without initial_sync: flows, automations, revenue attribution');
  add('refused', plan.refused, "svc's rules: an invalid row, not sent");
  const parts = [`plan: ${plan.rows} order(s); nothing was sent (${describeRead(read)})`, '', planTable('orders', rows)];
  const h = plan.historical;
  if (h.count > 0) {
    parts.push(
      '',
      `historical orders that would trigger flows and revenue attribution: ${h.count} dated more than ${HISTORICAL_DAYS} days ago (${sampleText(h)}; order ids ${h.orderIds.join(', ')}${h.count > h.orderIds.length ? ', …' : ''})`,
      'hint: add --initial-sync to import history without side effects',
    );
  }
  if (planOut !== undefined) parts.push('', `every row's planned outcome: ${planOut}`);
  return `${parts.join('\n')}\n`;
}
