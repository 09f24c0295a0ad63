/**
 * `--plan-out FILE`: every row's planned outcome as CSV, in input order (docs/importer.md lists
 * the columns). Cells that a spreadsheet would run as a formula are written as they are: the
 * file is data for scripts, like --report.
 */
import { stringify } from 'csv-stringify/sync';
import type { PlannedContactRow } from './contacts-plan.js';
import type { PlannedOrderRow } from './orders-plan.js';

export const CONTACT_PLAN_COLUMNS = [
  'line',
  'email',
  'phone',
  'contact_id',
  'outcome',
  'email_from',
  'email_to',
  'sms_from',
  'sms_to',
  'welcome_sms',
  'message',
] as const;

export const ORDER_PLAN_COLUMNS = [
  'line',
  'order_id',
  'email',
  'phone',
  'contact',
  'contact_id',
  'sms_opt_in',
  'side_effects',
  'historical',
  'outcome',
  'message',
] as const;

export function contactPlanRecord(r: PlannedContactRow): string[] {
  return [String(r.line), r.email, r.phone, r.contactId, r.outcome, r.emailFrom, r.emailTo, r.smsFrom, r.smsTo, r.welcomeSms, r.message];
}

export function orderPlanRecord(r: PlannedOrderRow): string[] {
  return [
    String(r.line),
    r.orderId,
    r.email,
    r.phone,
    r.contact,
    r.contactId,
    r.smsOptIn,
    r.sideEffects,
    r.historical ? 'yes' : 'no',
    r.outcome,
    r.message,
  ];
}

/** Collects CSV records and gives the text in chunks (the caller writes them to the file). */
export class PlanOutBuffer {
  private readonly records: string[][] = [];
  private readonly chunks: string[] = [];

  constructor(columns: readonly string[]) {
    this.records.push([...columns]);
  }

  add(record: string[]): void {
    this.records.push(record);
    if (this.records.length >= 1000) this.flush();
  }

  private flush(): void {
    if (this.records.length === 0) return;
    this.chunks.push(stringify(this.records, { record_delimiter: '\n' }));
    this.records.length = 0;
  }

  text(): string {
    this.flush();
    return this.chunks.join('');
  }
}
