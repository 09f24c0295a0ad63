/**
 * The plan of an orders import: the contacts its orders would create (an e-mail or phone the
 * account does not hold), the SMS opt-ins recorded on them (`accepts_sms_marketing`), and the
 * real-time side effects (flows, automations, revenue attribution) of orders sent without
 * `initial_sync`, with the historical ones (older than 30 days) named. A pure function of
 * (orders, account, now), following open-points "Orders: contact matching".
 */
import type { ValidOrder } from '../../contract/orders.js';
import type { OrderWork } from '../adapters/orders.js';
import type { AccountIndex, KnownContact } from './account.js';
import { emptyCell, type PlanCell, tally } from './cells.js';

/** Orders older than this (before now) are historical: sending them live re-runs flows for past buyers. */
export const HISTORICAL_DAYS = 30;
const DAY_MS = 86_400_000;

/** One order's planned outcome (a line of `--plan-out`). */
export interface PlannedOrderRow {
  line: number;
  orderId: string;
  email: string;
  phone: string;
  /** `existing`, `created`, or empty for a refused row. */
  contact: '' | 'existing' | 'created';
  contactId: string;
  /** `single_opt_in` when the order would record an SMS opt-in on the contact it creates. */
  smsOptIn: string;
  /** `live` (flows, automations, revenue attribution) or `initial_sync` (none); empty for a refused row. */
  sideEffects: '' | 'live' | 'initial_sync';
  historical: boolean;
  outcome: 'sent' | 'refused';
  message: string;
}

export interface OrderPlan {
  rows: number;
  refused: PlanCell;
  /** Orders whose buyer is in the account. */
  existingContacts: PlanCell;
  /** Orders that would create their buyer (each new person counted once, on the first order naming it). */
  createdContacts: PlanCell;
  /** Created contacts that would get SMS `single_opt_in` from `accepts_sms_marketing`. */
  smsOptIns: PlanCell;
  /** Orders sent without initial_sync: each fires flows, automations and revenue attribution. */
  live: PlanCell;
  /** The live orders dated more than HISTORICAL_DAYS before now. */
  historical: PlanCell & { orderIds: string[] };
}

/** True when the order is sent live and dated more than 30 days before `now`. */
export function isHistorical(order: Pick<ValidOrder, 'order_date' | 'initial_sync'>, now: number): boolean {
  if (order.initial_sync === true) return false;
  const at = Date.parse(order.order_date);
  return Number.isFinite(at) && at < now - HISTORICAL_DAYS * DAY_MS;
}

export function planOrders(
  rows: Iterable<OrderWork>,
  account: AccountIndex,
  now: number,
  onRow?: (row: PlannedOrderRow) => void,
): OrderPlan {
  const created = { byEmail: new Map<string, KnownContact>(), byPhone: new Map<string, KnownContact>() };
  const find = (email: string | undefined, phone: string | undefined): KnownContact | undefined => {
    if (email) return account.byEmail.get(email.toLowerCase()) ?? created.byEmail.get(email.toLowerCase());
    if (phone) return account.byPhone.get(phone) ?? created.byPhone.get(phone);
    return undefined;
  };
  const plan: OrderPlan = {
    rows: 0,
    refused: emptyCell(),
    existingContacts: emptyCell(),
    createdContacts: emptyCell(),
    smsOptIns: emptyCell(),
    live: emptyCell(),
    historical: { ...emptyCell(), orderIds: [] },
  };
  for (const work of rows) {
    plan.rows++;
    const o = work.order;
    const planned: PlannedOrderRow = {
      line: work.line,
      orderId: work.id,
      email: o?.email ?? '',
      phone: o?.phone ?? '',
      contact: '',
      contactId: '',
      smsOptIn: '',
      sideEffects: '',
      historical: false,
      outcome: 'refused',
      message: '',
    };
    if (!o) {
      planned.message = work.problem?.message ?? 'invalid row';
      tally(plan.refused, work.line);
      onRow?.(planned);
      continue;
    }
    planned.outcome = 'sent';
    const found = find(o.email, o.phone);
    if (found) {
      planned.contact = 'existing';
      if (!found.id.startsWith('(new')) planned.contactId = found.id;
      tally(plan.existingContacts, work.line);
    } else {
      // open-points: the new contact takes the phone only if no contact has it.
      const phoneFree = o.phone !== undefined && (o.email === undefined || find(undefined, o.phone) === undefined);
      const c: KnownContact = {
        id: `(new, line ${work.line})`,
        email: o.email ?? null,
        phone: phoneFree ? (o.phone ?? null) : null,
        email_consent: o.accepts_email_marketing === true ? 'subscribed' : 'never_subscribed',
        sms_consent: o.accepts_sms_marketing === true && phoneFree ? 'single_opt_in' : 'never_subscribed',
      };
      if (c.email) created.byEmail.set(c.email.toLowerCase(), c);
      if (c.phone) created.byPhone.set(c.phone, c);
      planned.contact = 'created';
      tally(plan.createdContacts, work.line);
      if (c.sms_consent === 'single_opt_in') {
        planned.smsOptIn = 'single_opt_in';
        tally(plan.smsOptIns, work.line);
      }
    }
    if (o.initial_sync === true) planned.sideEffects = 'initial_sync';
    else {
      planned.sideEffects = 'live';
      tally(plan.live, work.line);
      if (isHistorical(o, now)) {
        planned.historical = true;
        tally(plan.historical, work.line);
        if (plan.historical.orderIds.length < plan.historical.lines.length) plan.historical.orderIds.push(o.order_id);
      }
    }
    onRow?.(planned);
  }
  return plan;
}
