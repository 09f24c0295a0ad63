/**
 * An outage in the middle of a contacts import (bulk/outage.ts), as for orders: the sandbox is
 * stopped and started again on the same port and database file; the import waits and finishes
 * with every contact once, or stops past --max-outage with its journal kept, exit 1 and the
 * exact resume command, and --resume finishes it (the scenario: test/helpers/outage.ts).
 */
import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import { describeOutage } from '../helpers/outage.js';
import { runCli } from '../helpers/run-cli.js';

const ROWS = 300;

describeOutage({
  noun: 'contacts',
  rows: ROWS,
  write(path) {
    const lines = ['email,first_name,email_consent'];
    for (let i = 1; i <= ROWS; i++) lines.push(`c${i}@example.com,C${i},subscribed`);
    writeFileSync(path, `${lines.join('\n')}\n`);
  },
  /** Whether the service has contact 60 (its public list, filtered by e-mail). */
  async stored60(s, token) {
    const email = 'c60@example.com';
    const res = await fetch(`${s.baseUrl}/v1/contacts?email=${encodeURIComponent(email)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return res.ok && (await res.text()).includes(`"${email}"`);
  },
  async expectEveryRowOnce(_sb, env) {
    const list = await runCli(['contacts', 'list', '--all', '--page-size', '250', '--format', 'ndjson'], { env });
    expect(list.code, list.stderr).toBe(0);
    const emails = list.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { email: string }).email);
    expect(emails).toHaveLength(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
  },
});
