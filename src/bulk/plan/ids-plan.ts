/**
 * The plan of `contacts unsubscribe|delete --ids-file`: what each id would become, from the
 * contacts read, without sending anything. Follows the service's rules as the sandbox implements
 * them: a compliance-suppressed contact answers 422 to any write (delete included); unsubscribing
 * writes a consent value, so a merchant-suppressed contact is unsuppressed first, then
 * unsubscribed; an unknown id is 404 (`not_found`, not an error for these verbs). An id repeated
 * in the file sees what its earlier line did.
 */
import type { KnownContact } from './account.js';
import { emptyCell, type PlanCell, type Transition, TransitionTable, tally } from './cells.js';

export type IdsVerb = 'unsubscribe' | 'delete';
export const IDS_PLAN_OUTCOMES = ['done', 'unsuppressed', 'not_found', 'answered_422', 'rejected'] as const;
export type IdsPlanOutcome = (typeof IDS_PLAN_OUTCOMES)[number];

export interface PlannedIdRow {
  line: number;
  id: string;
  outcome: IdsPlanOutcome;
  emailFrom: string;
  emailTo: string;
  message: string;
}

export interface IdsPlan {
  verb: IdsVerb;
  rows: number;
  outcomes: Record<IdsPlanOutcome, PlanCell>;
  /** Email consent before → after (unsubscribe), or before → `deleted`. */
  transitions: Transition[];
}

/** What can be a contact id (commands/contacts/bulk.ts rejects the rest before sending). */
export const ID_OK = /^[^\s/?#]+$/;

/** The verb applied to a known contact that may be written: the row's outcome and the contact's new state. */
function applyIdVerb(row: PlannedIdRow, c: KnownContact, verb: IdsVerb, state: Map<string, KnownContact | null>): void {
  row.emailFrom = c.email_consent;
  if (verb === 'delete') {
    row.outcome = 'done';
    row.emailTo = 'deleted';
    state.set(row.id, null);
    return;
  }
  row.outcome = c.email_consent === 'suppressed' ? 'unsuppressed' : 'done';
  row.emailTo = 'unsubscribed';
  if (row.outcome === 'unsuppressed') row.message = 'merchant suppression lifted, then unsubscribed';
  state.set(row.id, { ...c, email_consent: 'unsubscribed' });
}

export function planIds(
  lines: ReadonlyArray<{ line: number; id: string }>,
  byId: ReadonlyMap<string, KnownContact | null>,
  verb: IdsVerb,
  order: readonly string[],
  onRow?: (row: PlannedIdRow) => void,
): IdsPlan {
  const state = new Map(byId);
  const outcomes = Object.fromEntries(IDS_PLAN_OUTCOMES.map((o) => [o, emptyCell()])) as Record<IdsPlanOutcome, PlanCell>;
  const table = new TransitionTable();
  for (const { line, id } of lines) {
    const row: PlannedIdRow = { line, id, outcome: 'rejected', emailFrom: '', emailTo: '', message: '' };
    const c = ID_OK.test(id) ? state.get(id) : undefined;
    if (!ID_OK.test(id)) row.message = `invalid id ${JSON.stringify(id)}`;
    else if (!c) {
      row.outcome = 'not_found';
      row.message = 'no such contact';
    } else if (c.email_consent === 'compliance_suppressed') {
      row.outcome = 'answered_422';
      row.message = 'compliance-suppressed: any write answers 422';
    } else {
      applyIdVerb(row, c, verb, state);
      table.add(row.emailFrom, row.emailTo, line);
    }
    tally(outcomes[row.outcome], line);
    onRow?.(row);
  }
  return { verb, rows: lines.length, outcomes, transitions: table.list(order) };
}
