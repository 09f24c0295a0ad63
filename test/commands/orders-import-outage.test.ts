/**
 * An outage in the middle of an orders import (bulk/outage.ts): the sandbox is stopped for a
 * minute and started again on the same port and database file; the import waits (probing at
 * least every 5 s) and finishes with every row once, or stops past
 * --max-outage with its journal kept, and --resume finishes it (the scenario: test/helpers/outage.ts).
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { describeOutage } from '../helpers/outage.js';

const ROWS = 300;

describeOutage({
  noun: 'orders',
  rows: ROWS,
  flags: ['--initial-sync'],
  // The minute: the contacts import runs the same scenario with a short outage.
  outageMs: 60_000,
  write(path) {
    const lines = ['order_id,total,currency,order_date,email'];
    for (let i = 1; i <= ROWS; i++) lines.push(`O-${i},${i}.00,EUR,2024-01-01,c${i % 40}@example.com`);
    writeFileSync(path, `${lines.join('\n')}\n`);
  },
  async stored60(s) {
    return Boolean(await s.admin.order('O-60'));
  },
  async expectEveryRowOnce(sb) {
    let n = 0;
    for (let i = 1; i <= ROWS; i++) if (await sb.admin.order(`O-${i}`)) n++;
    expect(n).toBe(ROWS);
  },
});
