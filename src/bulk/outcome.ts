/**
 * The outcome model of a bulk run: what became of each input row, and the counts that add up to
 * the rows. The commands print it (io/); nothing here prints.
 */

/**
 * The outcomes of an upsert-like row (orders, contacts): every row ends in exactly one. `skipped`
 * is contacts import's (an existing contact left alone by `--if-exists skip`); orders never have it.
 */
export const OUTCOMES = ['created', 'updated', 'skipped', 'unconfirmed', 'rejected', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome of one input row (or one order made of several lines). */
export interface RowResult<O extends string = Outcome> {
  /** Position among the rows (1-based, contiguous): the report's order. */
  seq: number;
  /** Physical line of the file where the row starts (1 = the header line). */
  line: number;
  /** The row's key (order_id, event_id…), empty when the row has none. */
  id: string;
  /**
   * The cells of the report's id columns when there are several (contacts: email, phone,
   * contact_id); absent when the report has the one column `id`.
   */
  ids?: string[];
  /** Facts about the row that a command counts beside the outcomes (contacts: `sms_subscribed`). */
  marks?: string[];
  outcome: O;
  /** HTTP status when the service answered. */
  status?: number;
  /** The service's error code, or a client-side one (`invalid_row`, `network_error`…). */
  errorCode?: string;
  message?: string;
  /** The field the error names first, when it names one (the rejects file's `error_field`). */
  errorField?: string;
}

/** The contract's summary: the outcomes add up to `rows`; `resumed` counts rows an earlier run finished. */
export interface Summary {
  rows: number;
  created: number;
  updated: number;
  /** Contacts import only (always 0 for orders, whose summary does not show it). */
  skipped: number;
  unconfirmed: number;
  rejected: number;
  failed: number;
  resumed: number;
  /** Data lines, when several lines can form one row (orders with line items). */
  lines?: number;
}

export function emptySummary(): Summary {
  return { rows: 0, created: 0, updated: 0, skipped: 0, unconfirmed: 0, rejected: 0, failed: 0, resumed: 0 };
}

/** Adds one finished row to the summary. */
export function countOutcome(summary: Summary, outcome: Outcome): void {
  summary.rows++;
  summary[outcome]++;
}
