/** The `--json` summary a bulk import prints, as tests expect it. */
import { expect } from 'vitest';

/**
 * The summary with the figures given; every count not given is 0, every list of lines empty and
 * rows_per_second any number (a verb's own members, such as `lines` or `sms_subscribed`, given).
 */
export function importSummary(figures: { rows: number } & Record<string, unknown>): Record<string, unknown> {
  return {
    created: 0,
    updated: 0,
    unconfirmed: 0,
    rejected: 0,
    failed: 0,
    resumed: 0,
    rows_per_second: expect.any(Number),
    rate_limited: 0,
    unconfirmed_lines: [],
    rejected_lines: [],
    failed_lines: [],
    ...figures,
  };
}
