/**
 * svc contacts import through faults: 500s (half applied), dropped connections (half applied) and
 * 429s on 5,000 rows. Every contact ends present once with the consent of its row, the outcomes
 * add up, and a row whose lost first attempt may have created the contact is never `created`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

describe('svc contacts import under faults', () => {
  it('5,000 rows through 10% 500s, 5% resets and 429s: every contact once, right consent, counts add up', async () => {
    const n = 5000;
    const file = join(fx.tmp.dir, 'contacts.csv');
    const lines = ['email,phone,email_consent,accepts_sms_marketing'];
    for (let i = 1; i <= n; i++)
      lines.push(`c${i}@example.com,+1415${String(5000000 + i)},${i % 2 ? 'subscribed' : 'unsubscribed'},${i % 5 === 0 ? 'yes' : ''}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const token = await fx.sb.tokenWithAllScopes();
    await fx.sb.admin.setFaults({ error_rate: 0.1, reset_rate: 0.05, rate_limit_rps: 800 });
    const r = await runCli(['contacts', 'import', file, '--json', '--concurrency', '32'], {
      env: fx.env({ SVC_TOKEN: token }),
    });
    await fx.sb.admin.setFaults({});
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.rows).toBe(n);
    expect(s.failed + s.rejected + s.skipped).toBe(0);
    expect(s.created + s.updated + s.unconfirmed).toBe(n);
    // A create applied before its answer was lost, then 409 on the retry: unconfirmed, never created.
    expect(s.unconfirmed).toBeGreaterThan(0);
    expect(s.updated).toBe(0);
    expect(s.welcome_sms).toBe(0);
    expect(await fx.sb.admin.outbox({ type: 'welcome_sms' })).toHaveLength(0);
    // Every contact present once, with its row's consent.
    const all: Array<{ email: string; phone: string; email_consent: string; sms_consent: string }> = [];
    const list = await runCli(['contacts', 'list', '--all', '--page-size', '250', '--format', 'ndjson'], {
      env: fx.env({ SVC_TOKEN: token }),
    });
    for (const line of list.stdout.trim().split('\n')) all.push(JSON.parse(line));
    expect(all).toHaveLength(n);
    expect(new Set(all.map((c) => c.email)).size).toBe(n);
    for (const c of all) {
      const i = Number(c.email.slice(1, c.email.indexOf('@')));
      expect(c.phone).toBe(`+1415${5000000 + i}`);
      expect(c.email_consent).toBe(i % 2 ? 'subscribed' : 'unsubscribed');
      expect(c.sms_consent).toBe(i % 5 === 0 ? 'subscribed' : 'never_subscribed');
    }
  }, 120_000);
});
