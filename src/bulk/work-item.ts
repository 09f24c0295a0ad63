/** One row of a bulk run before it is sent, and the result of a row that cannot be sent. */
import type { Outcome, RowResult } from './outcome.js';
import type { OriginalRow } from './rejects.js';

/** One input row (or group of lines) on its way through a run. */
export interface WorkItem {
  /** Position among the rows (1-based, contiguous). */
  seq: number;
  /** Physical line where the row starts. */
  line: number;
  /** Data lines it spans (1 for a plain row). */
  lines: number;
  /** The row's id in the report (order_id, e-mail…), empty when it has none. */
  id: string;
  /** The report's id cells when it has several (RowResult.ids), for a row rejected before sending. */
  ids?: string[];
  /** Known before sending: the row cannot be sent (unreadable or invalid); `field` is the first field it names. */
  problem?: RowProblem;
  /** The row as read, kept when the run writes a rejects file. */
  original?: OriginalRow;
}

/** Why a row cannot be sent. */
export interface RowProblem {
  code: string;
  message: string;
  field?: string;
}

/** The result of a row rejected before sending (unreadable or invalid). */
export function rejectedRow(work: WorkItem, problem: RowProblem): RowResult<Outcome> {
  const r: RowResult<Outcome> = {
    seq: work.seq,
    line: work.line,
    id: work.id,
    outcome: 'rejected',
    errorCode: problem.code,
    message: problem.message,
  };
  if (problem.field !== undefined) r.errorField = problem.field;
  if (work.ids) r.ids = work.ids;
  return r;
}
