/**
 * An outage in the middle of an orders import (bulk/outage.ts): the sandbox is stopped for 20 s
 * and started again on the same port and database file; the import waits (probing at
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
  // Long enough for the whole life of waiting out an outage: a probe's own client retries (backoff
  // ceilings 0.1 s to 6.4 s, shortened to the 2-s probe interval while down: at most about 7 s
  // for the 8 attempts of one request) run out at least twice and the gate hands the probe to the
  // next held request; at least 4 probes, none more than 5 s apart. The minute adds only
  // more of the same cycles, idle (it cost CI a minute per Node version). The contacts import runs
  // the same scenario with a 2.5-s outage.
  outageMs: 20_000,
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
