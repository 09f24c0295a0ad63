/**
 * `svc contacts unsubscribe|delete --ids-file FILE --plan`: reads the contacts the ids name (every
 * page, or one look-up per id, chosen by the counts), sends nothing, and prints what each id would
 * become (docs/contacts.md, "Many ids").
 */
import { stringify } from 'csv-stringify/sync';
import { ID_OK, type IdsPlan, type IdsVerb, type PlannedIdRow, planIds, type ReadMethod, readContactsById } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { EMAIL_CONSENT_VALUES } from '../../contract/consent.js';
import type { IdLine } from '../contacts/bulk.js';
import { readJson } from './contacts.js';
import { describeRead, type PlanFlags, writePlanOut } from './read.js';
import { cellJson, planTable } from './table.js';

export async function runIdsPlan(ctx: Context, ids: IdLine[], verb: IdsVerb, opts: PlanFlags): Promise<number> {
  const client = await ctx.client();
  await client.ensureScope('getContact');
  const { byId, read } = await readContactsById(client, new Set(ids.map((i) => i.id).filter((id) => ID_OK.test(id))), {
    method: (opts.planRead ?? 'auto') as ReadMethod | 'auto',
    signal: ctx.signal,
  });
  const records: string[][] = [['line', 'id', 'outcome', 'email_from', 'email_to', 'message']];
  const onRow = (r: PlannedIdRow) => records.push([String(r.line), r.id, r.outcome, r.emailFrom, r.emailTo, r.message]);
  const plan = planIds(ids, byId, verb, ['deleted', ...EMAIL_CONSENT_VALUES], opts.planOut !== undefined ? onRow : undefined);
  writePlanOut(opts.planOut, () => stringify(records, { record_delimiter: '\n' }));
  const done = verb === 'delete' ? 'deleted' : 'unsubscribed';
  if (ctx.settings.json) {
    ctx.out.json({
      plan: verb,
      rows: plan.rows,
      account: readJson(read),
      outcomes: Object.fromEntries(Object.entries(plan.outcomes).map(([k, c]) => [k === 'done' ? done : k, cellJson(c)])),
      transitions: { email: plan.transitions.map((t) => ({ from: t.from, to: t.to, ...cellJson(t) })) },
      plan_out: opts.planOut ?? null,
    });
  } else ctx.out.text(idsPlanText(plan, done, describeRead(read), opts.planOut));
  return 0;
}

function idsPlanText(plan: IdsPlan, done: string, read: string, planOut: string | undefined): string {
  const notes: Record<string, [string, string]> = {
    done: [done, verb(plan)],
    unsuppressed: ['unsuppressed', 'merchant-suppressed: the consent write lifts the suppression first'],
    not_found: ['not found', 'no such contact (not an error for this command)'],
    answered_422: ['answered 422', 'compliance-suppressed: the service refuses any write'],
    rejected: ['rejected', 'not a contact id'],
  };
  const outcomes = Object.entries(plan.outcomes)
    .filter(([, c]) => c.count > 0)
    .map(([k, c]) => [(notes[k] as [string, string])[0], c, (notes[k] as [string, string])[1]] as [string, typeof c, string]);
  const parts = [`plan: ${plan.rows} id(s); nothing was sent (${read})`];
  if (plan.transitions.length > 0)
    parts.push(
      '',
      planTable(
        'email consent',
        plan.transitions.map((t) => [`${t.from} → ${t.to}`, t, '']),
      ),
    );
  parts.push('', planTable('outcome', outcomes));
  if (planOut !== undefined) parts.push('', `every id's planned outcome: ${planOut}`);
  return `${parts.join('\n')}\n`;
}

function verb(plan: IdsPlan): string {
  return plan.verb === 'delete' ? 'the contact is deleted' : 'email_consent becomes unsubscribed';
}
