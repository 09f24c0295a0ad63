/**
 * The checks a real import makes before it sends anything (docs/importer.md, "Guards"): orders
 * dated more than 30 days ago sent live (without initial_sync) re-run flows and revenue
 * attribution for past buyers; a contact row writing consent to a merchant-suppressed contact
 * lifts the suppression. Each counts the rows it would stop for; the command decides.
 */
import type { ContactWork } from '../adapters/contacts.js';
import type { OrderWork } from '../adapters/orders.js';
import type { AccountIndex } from './account.js';
import { emptyCell, type PlanCell, tally } from './cells.js';
import { isHistorical } from './orders-plan.js';

/** More than this share of historical orders stops a live import. */
export const HISTORICAL_SHARE = 0.01;

export interface HistoryCount {
  rows: number;
  historical: PlanCell & { orderIds: string[] };
}

export async function countHistorical(rows: AsyncIterable<OrderWork[]>, now: number): Promise<HistoryCount> {
  const out: HistoryCount = { rows: 0, historical: { ...emptyCell(), orderIds: [] } };
  for await (const batch of rows) {
    for (const w of batch) {
      out.rows++;
      if (w.order && isHistorical(w.order, now)) {
        tally(out.historical, w.line);
        if (out.historical.orderIds.length < out.historical.lines.length) out.historical.orderIds.push(w.order.order_id);
      }
    }
  }
  return out;
}

/** True when more than 1 % of the rows are historical. */
export function tooHistorical(c: HistoryCount): boolean {
  return c.historical.count > c.rows * HISTORICAL_SHARE;
}

/**
 * Would the row lift a merchant suppression? It writes a consent value and its e-mail or phone is
 * a merchant-suppressed contact's (counted without the rest of the account, so a row whose e-mail
 * and phone name two different contacts, which the service refuses with 409, counts too).
 */
export function wouldUnsuppress(w: ContactWork, suppressed: AccountIndex): boolean {
  const write = w.write;
  if (!write || (write.email_consent === undefined && write.sms_consent === undefined)) return false;
  return (
    (write.email !== undefined && suppressed.byEmail.has(write.email.toLowerCase())) ||
    (write.phone !== undefined && suppressed.byPhone.has(write.phone))
  );
}

export async function countUnsuppressing(rows: AsyncIterable<ContactWork[]>, suppressed: AccountIndex): Promise<PlanCell> {
  const cell = emptyCell();
  for await (const batch of rows) for (const w of batch) if (wouldUnsuppress(w, suppressed)) tally(cell, w.line);
  return cell;
}

export const UNSUPPRESS_CODE = 'would_unsuppress';

/**
 * The rows with every row that would lift a suppression turned into a rejected one (not sent):
 * what guards the part of a stream after the rows the guard decided on.
 */
export async function* holdUnsuppressing(rows: AsyncIterable<ContactWork[]>, suppressed: AccountIndex): AsyncGenerator<ContactWork[]> {
  for await (const batch of rows) {
    for (const w of batch) {
      const write = w.write;
      if (!write || !wouldUnsuppress(w, suppressed)) continue;
      delete w.write;
      w.ids = [w.email, w.phone, ''];
      w.problem = {
        code: UNSUPPRESS_CODE,
        field: write.email_consent !== undefined ? 'email_consent' : 'sms_consent',
        message: 'would lift a merchant suppression (email_consent suppressed); not sent without --allow-unsuppress',
      };
    }
    yield batch;
  }
}
