/** The closing hint of a bulk import with problem rows and no report (issue 30: never "rerun" a real import to see them). */
import type { Outcome, RowResult } from '../bulk/index.js';

/**
 * How to see every problem row without a report: when the input alone decided them (no answer
 * of the service among them), a dry run lists the same rows and sends nothing; otherwise the next
 * run's report does.
 */
export function reportHint(
  problems: Array<RowResult<Outcome>>,
  s: { rejected: number; failed: number },
  listed: boolean,
): string | undefined {
  if (listed) return undefined; // a report or a rejects file lists them already
  const localOnly = s.failed === 0 && problems.length === s.rejected && problems.every((p) => p.status === undefined);
  return localOnly ? 'every row: rerun with --dry-run --report FILE (sends nothing)' : 'every row: --report FILE on the next run';
}
