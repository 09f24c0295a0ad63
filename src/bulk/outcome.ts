/**
 * The outcome model of a bulk run: what became of each input row, and the counts that add up to
 * the rows. The commands print it (io/); nothing here prints.
 */

/**
 * The outcomes of an upsert-like row (orders, contacts): every row ends in exactly one. `skipped`
 * is contacts import's (an existing contact left alone by `--if-exists skip`); orders never have it.
 * `unconfirmed`: the service answered this row (a 200 after an earlier attempt without an answer),
 * so it is stored, created or updated unknown. `unmatched`: the answer could not be tied to this
 * row (another row's answer, a stale one, a page that is not the service's): whether the service
 * stored it is unknown, so the run ends with exit 4, keeps its journal and `--resume` sends the
 * row again where the write is idempotent.
 */
export const OUTCOMES = ['created', 'updated', 'skipped', 'unconfirmed', 'unmatched', 'rejected', 'failed'] as const;
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
  /**
   * A `failed` row whose request may have reached the service (a timeout or a 5xx after it was
   * sent): not "not taken", and said so at the end of the run. Not journaled: --resume sends it again.
   */
  maybeApplied?: true;
  /** The service's error code, or a client-side one (`invalid_row`, `network_error`…). */
  errorCode?: string;
  message?: string;
  /** The field the error names first, when it names one (the rejects file's `error_field`). */
  errorField?: string;
}

/**
 * The outcomes every verb shares, beside its own words for success (created, accepted, deleted…):
 * the engine lists these rows' lines, writes them to a rejects file and sets exit 4 on the last three.
 */
export const PROBLEM_OUTCOMES = ['unconfirmed', 'unmatched', 'rejected', 'failed'] as const;
export type ProblemOutcome = (typeof PROBLEM_OUTCOMES)[number];

/**
 * The summary of a run of any verb: `rows`, one count per outcome of its vocabulary (they add up
 * to `rows`), `resumed`, and `lines` when several lines can form one row.
 */
export type RunSummary<O extends string> = { rows: number; resumed: number; lines?: number } & Record<O, number>;

/** A summary of the verb's vocabulary, every count 0. */
export function emptyRunSummary<O extends string>(outcomes: readonly O[]): RunSummary<O> {
  const s: Record<string, number> = { rows: 0 };
  for (const o of outcomes) s[o] = 0;
  s.resumed = 0;
  return s as RunSummary<O>;
}

/** The contract's summary of an upsert-like import: the outcomes add up to `rows`; `resumed` counts rows an earlier run finished. */
export interface Summary {
  rows: number;
  created: number;
  updated: number;
  /** Contacts import only (always 0 for orders, whose summary does not show it). */
  skipped: number;
  unconfirmed: number;
  /** Rows whose answer could not be tied to them (exit 4; sent again by --resume). */
  unmatched: number;
  rejected: number;
  failed: number;
  resumed: number;
  /** Data lines, when several lines can form one row (orders with line items). */
  lines?: number;
}

export function emptySummary(): Summary {
  return { rows: 0, created: 0, updated: 0, skipped: 0, unconfirmed: 0, unmatched: 0, rejected: 0, failed: 0, resumed: 0 };
}

/** Adds one finished row to the summary. */
export function countOutcome<O extends string>(summary: RunSummary<O>, outcome: O): void {
  summary.rows++;
  const counts = summary as Record<string, number>;
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}
