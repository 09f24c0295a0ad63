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
  const contacts = new PlannedContacts(account);
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
    if (o) {
      planned.outcome = 'sent';
      planContact(planned, o, work.line, contacts, plan);
      planSideEffects(planned, o, work.line, now, plan);
    } else {
      planned.message = work.problem?.message ?? 'invalid row';
      tally(plan.refused, work.line);
    }
    onRow?.(planned);
  }
  return plan;
}

/** The account's contacts with those earlier orders of the file create. */
class PlannedContacts {
  private readonly byEmail = new Map<string, KnownContact>();
  private readonly byPhone = new Map<string, KnownContact>();
  constructor(private readonly account: AccountIndex) {}

  /** The contact an order's e-mail (else its phone) reaches. */
  find(email: string | undefined, phone: string | undefined): KnownContact | undefined {
    if (email) return this.account.byEmail.get(email.toLowerCase()) ?? this.byEmail.get(email.toLowerCase());
    if (phone) return this.account.byPhone.get(phone) ?? this.byPhone.get(phone);
    return undefined;
  }

  add(c: KnownContact): void {
    if (c.email) this.byEmail.set(c.email.toLowerCase(), c);
    if (c.phone) this.byPhone.set(c.phone, c);
  }
}

/** The contact an order reaches (existing) or creates, with the SMS opt-in a created one gets. */
function planContact(planned: PlannedOrderRow, o: ValidOrder, line: number, contacts: PlannedContacts, plan: OrderPlan): void {
  const found = contacts.find(o.email, o.phone);
  if (found) {
    planned.contact = 'existing';
    if (!found.id.startsWith('(new')) planned.contactId = found.id;
    tally(plan.existingContacts, line);
    return;
  }
  // open-points: the new contact takes the phone only if no contact has it.
  const phoneFree = o.phone !== undefined && (o.email === undefined || contacts.find(undefined, o.phone) === undefined);
  const c: KnownContact = {
    id: `(new, line ${line})`,
    email: o.email ?? null,
    phone: phoneFree ? (o.phone ?? null) : null,
    email_consent: o.accepts_email_marketing === true ? 'subscribed' : 'never_subscribed',
    sms_consent: o.accepts_sms_marketing === true && phoneFree ? 'single_opt_in' : 'never_subscribed',
  };
  contacts.add(c);
  planned.contact = 'created';
  tally(plan.createdContacts, line);
  if (c.sms_consent === 'single_opt_in') {
    planned.smsOptIn = 'single_opt_in';
    tally(plan.smsOptIns, line);
  }
}

/** `initial_sync` or live, and whether a live order is historical. */
function planSideEffects(planned: PlannedOrderRow, o: ValidOrder, line: number, now: number, plan: OrderPlan): void {
  if (o.initial_sync === true) {
    planned.sideEffects = 'initial_sync';
    return;
  }
  planned.sideEffects = 'live';
  tally(plan.live, line);
  if (!isHistorical(o, now)) return;
  planned.historical = true;
  tally(plan.historical, line);
  if (plan.historical.orderIds.length < plan.historical.lines.length) plan.historical.orderIds.push(o.order_id);
}
