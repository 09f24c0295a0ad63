/**
 * `svc contacts import FILE --plan`: reads the rows and the account, sends no write, and prints
 * what the import would do to each person (docs/importer.md, "Planning an import").
 */

import type { AccountRead, ContactWork, IfExists, PlanCell } from '../../bulk/index.js';
import { CONTACT_PLAN_COLUMNS, type ContactPlan, contactPlanRecord, PlanOutBuffer, planContacts } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { describeRead, type PlanFlags, readRowsAndAccount, writePlanOut } from './read.js';
import { cellJson, planTable } from './table.js';

export async function runContactsPlan(
  ctx: Context,
  rows: AsyncIterable<ContactWork[]>,
  opts: PlanFlags & { ifExists: IfExists; welcomeSms: boolean },
): Promise<number> {
  const { all, index, read } = await readRowsAndAccount(
    ctx,
    rows,
    (w) => ({ email: w.write?.email, phone: w.write?.phone }),
    opts.planRead,
  );
  const out = opts.planOut !== undefined ? new PlanOutBuffer(CONTACT_PLAN_COLUMNS) : undefined;
  const plan = planContacts(
    all,
    index,
    { ifExists: opts.ifExists, welcomeSms: opts.welcomeSms },
    out && ((r) => out.add(contactPlanRecord(r))),
  );
  writePlanOut(opts.planOut, () => (out as PlanOutBuffer).text());
  if (ctx.settings.json) ctx.out.json(contactPlanJson(plan, read, opts.planOut));
  else ctx.out.text(contactPlanText(plan, read, opts.planOut));
  return 0;
}

export function readJson(read: AccountRead) {
  return { read: read.method, pages: read.pages, lookups: read.lookups, contacts_seen: read.contactsSeen };
}

/** The --json document (field names documented in docs/importer.md). */
export function contactPlanJson(plan: ContactPlan, read: AccountRead, planOut: string | undefined) {
  const tr = (list: ContactPlan['transitions']['email']) => list.map((t) => ({ from: t.from, to: t.to, ...cellJson(t) }));
  return {
    plan: 'contacts',
    rows: plan.rows,
    account: readJson(read),
    outcomes: Object.fromEntries(Object.entries(plan.outcomes).map(([k, c]) => [k, cellJson(c)])),
    transitions: { email: tr(plan.transitions.email), sms: tr(plan.transitions.sms) },
    welcome_sms: { ...cellJson(plan.welcomeSms), sent: plan.welcomeSms.sent },
    no_not_written: { email: cellJson(plan.noKept.email), sms: cellJson(plan.noKept.sms) },
    plan_out: planOut ?? null,
  };
}

const OUTCOME_NOTES: Record<string, [string, string]> = {
  created: ['created', 'new contacts'],
  updated: ['updated', 'existing contacts written (--if-exists update)'],
  unsuppressed: ['unsuppressed', 'merchant-suppressed: the write lifts the suppression (needs --allow-unsuppress)'],
  skipped: ['skipped', 'existing contacts left alone (--if-exists skip)'],
  answered_422: ['answered 422', 'compliance-suppressed: the service refuses any write'],
  refused: ['refused', "svc's rules: an invalid row or a read-only value, not sent"],
  rejected: ['rejected', 'the service would refuse the write (409 or 400; see --plan-out)'],
};

/** The human plan: transitions per channel, outcomes, welcome SMS; only non-zero cells, each with sample lines. */
export function contactPlanText(plan: ContactPlan, read: AccountRead, planOut: string | undefined): string {
  const parts: string[] = [`plan: ${plan.rows} row(s); nothing was sent (${describeRead(read)})`];
  for (const [title, list] of [
    ['email consent', plan.transitions.email],
    ['SMS consent', plan.transitions.sms],
  ] as const) {
    if (list.length === 0) continue;
    parts.push(
      '',
      planTable(
        title,
        list.map((t) => [`${t.from} → ${t.to}`, t as PlanCell, '']),
      ),
    );
  }
  const outcomes = Object.entries(plan.outcomes)
    .filter(([, c]) => c.count > 0)
    .map(
      ([k, c]) => [(OUTCOME_NOTES[k] as [string, string])[0], c, (OUTCOME_NOTES[k] as [string, string])[1]] as [string, PlanCell, string],
    );
  parts.push('', planTable('outcome', outcomes));
  const extra: Array<[string, PlanCell, string]> = [];
  if (plan.welcomeSms.count > 0)
    extra.push([
      'welcome SMS',
      plan.welcomeSms,
      plan.welcomeSms.sent
        ? 'moves into SMS subscribed: the service sends each a welcome SMS (--welcome-sms)'
        : 'moves into SMS subscribed: recorded without a welcome SMS (send_welcome_sms false)',
    ]);
  for (const ch of ['email', 'sms'] as const)
    if (plan.noKept[ch].count > 0)
      extra.push([
        `"no" not written (${ch === 'email' ? 'email' : 'SMS'})`,
        plan.noKept[ch],
        'a "no" never downgrades (--no-means unsubscribed writes it)',
      ]);
  if (extra.length > 0) parts.push('', planTable('also', extra));
  if (planOut !== undefined) parts.push('', `every row's planned outcome: ${planOut}`);
  return `${parts.join('\n')}\n`;
}
