/** Messages say a thing once: no field named twice in a row, no detail printed again after the message that already says it. */
import { describe, expect, it } from 'vitest';
import { messageWithDetails } from '../../src/contract/errors.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
useSandbox((s) => ({ sb } = s));

/** True when some run of three or more words comes twice in a row ("x y z x y z", "a b a b" of long words). */
function repeats(text: string): boolean {
  const words = text.split(/[\s:;,]+/).filter(Boolean);
  for (let n = 1; n <= words.length / 2; n++) {
    for (let i = 0; i + 2 * n <= words.length; i++) {
      const a = words.slice(i, i + n).join(' ');
      if (a.length >= 6 && a === words.slice(i + n, i + 2 * n).join(' ')) return true;
    }
  }
  return false;
}

describe('messages', () => {
  it('the fault settings check names error_rate once', async () => {
    const r = await http(sb.baseUrl, 'PUT', '/_sandbox/faults', { json: { error_rate: 0.6, unavailable_rate: 0.6 } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('error_rate plus unavailable_rate and reset_rate must not exceed 1');
    expect(repeats(r.body.error.message)).toBe(false);
  });

  it('a message and its details on one line say each problem once', async () => {
    const token = await sb.tokenWithAllScopes();
    const r = await http(sb.baseUrl, 'POST', '/v1/events', {
      token,
      raw: '{"event_type":"a\\u0000","email":"a@example.com"}',
      headers: { 'content-type': 'application/json' },
    });
    const line = messageWithDetails(r.body.error.message, r.body.error.details);
    expect(line).toBe('event_type contains a NUL character');
    expect(repeats(`${r.body.error.message}: ${r.body.error.details[0].field} ${r.body.error.details[0].message}`)).toBe(true);
  });

  it("the CLI's error line says the sandbox's problem once", async () => {
    const cfg = tempConfigDir();
    try {
      const order = { order_id: 'a\u0000', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'nul@example.com' };
      const r = await runCli(['orders', 'upsert', '--input', '-'], {
        stdin: JSON.stringify(order),
        env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: await sb.tokenWithAllScopes() },
      });
      expect(r.code).toBe(1);
      expect(r.stderr.match(/order_id contains a NUL character/g)).toHaveLength(1);
    } finally {
      cfg.cleanup();
    }
  });

  it('messageWithDetails adds the details the message does not say', () => {
    const details = [
      { field: 'email', message: 'must be an email address' },
      { field: 'phone', message: 'must be an E.164 phone number' },
    ];
    expect(messageWithDetails('email must be an email address (and 1 more)', details)).toBe(
      'email must be an email address (and 1 more): phone must be an E.164 phone number',
    );
    expect(messageWithDetails('plain', undefined)).toBe('plain');
  });
});
