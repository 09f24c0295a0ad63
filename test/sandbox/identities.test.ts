/**
 * E-mail identities: stored and matched after NFC and lower-casing, an IDN domain in punycode;
 * invisible characters refused naming the field; fullwidth forms not folded. The same rule for
 * the sandbox and the CLI's own checks (contract/formats.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkEmail } from '../../src/contract/formats.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let token: string;
useSandbox((s) => ({ sb, token } = s));

const NFC = 'jos\u00e9@example.com';
const NFD = 'jose\u0301@example.com';

describe('checkEmail', () => {
  it('normalises to NFC, lower case and a punycode domain', () => {
    expect(checkEmail(NFD)).toEqual({ ok: true, value: NFC });
    expect(checkEmail('JOS\u00c9@EXAMPLE.COM')).toEqual({ ok: true, value: NFC });
    expect(checkEmail('user@ex\u00e4mple.com')).toEqual({ ok: true, value: 'user@xn--exmple-cua.com' });
    expect(checkEmail('\u00fcser@example.com')).toEqual({ ok: true, value: '\u00fcser@example.com' });
  });
  it('refuses zero-width characters and bidi controls, naming the character', () => {
    for (const c of ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u202a', '\u202e', '\u2066', '\u2069']) {
      const r = checkEmail(`k${c}@example.com`);
      expect(r.ok, c).toBe(false);
      if (!r.ok) expect(r.message).toContain(`U+${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}`);
    }
  });
  it('does not fold fullwidth forms', () => {
    expect(checkEmail('\uff4b@example.com')).toEqual({ ok: true, value: '\uff4b@example.com' });
    expect(checkEmail('k@\uff45xample.com').ok).toBe(false);
  });
});

describe('one contact per identity', () => {
  it('NFC and NFD forms of an address are one contact: the second POST is the 409 with the first id', async () => {
    const first = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: NFC } });
    expect(first.status).toBe(201);
    expect(first.body.email).toBe(NFC);
    const second = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: NFD } });
    expect(second.status).toBe(409);
    expect(second.body.error.id).toBe(first.body.id);
    const upper = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'JOSE\u0301@EXAMPLE.COM' } });
    expect(upper.body.error.id).toBe(first.body.id);
    const listed = await http(sb.baseUrl, 'GET', `/v1/contacts?email=${encodeURIComponent(NFD)}`, { token });
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([first.body.id]);
  });

  it('an IDN domain and its punycode form are one contact', async () => {
    const first = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'user@ex\u00e4mple.com' } });
    expect(first.status).toBe(201);
    expect(first.body.email).toBe('user@xn--exmple-cua.com');
    const second = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'user@xn--exmple-cua.com' } });
    expect(second.status).toBe(409);
    expect(second.body.error.id).toBe(first.body.id);
  });

  it('invisible characters answer 400 naming the field, on contacts, orders and events', async () => {
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['/v1/contacts', { email: 'k\u200b@example.com' }],
      ['/v1/contacts', { email: '\u202ek@example.com' }],
      ['/v1/orders/placed', { order_id: 'z1', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'k\u200d@example.com' }],
      ['/v1/events', { event_type: 'x', email: 'k\ufeff@example.com' }],
    ];
    for (const [path, json] of bodies) {
      const r = await http(sb.baseUrl, 'POST', path, { token, json });
      expect(r.status, path).toBe(400);
      expect(r.body.error.details, path).toEqual([{ field: 'email', message: expect.stringMatching(/invisible/) }]);
    }
  });

  it('an order and an event find the contact whatever the normal form', async () => {
    const c = await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'ren\u00e9e@example.com' } });
    const order = await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token,
      json: { order_id: 'idn-1', total: 1, currency: 'USD', order_date: '2026-01-01', email: 'RENE\u0301E@example.com' },
    });
    expect(order.body.contact_id).toBe(c.body.id);
  });
});

describe("the CLI's own check", () => {
  it('refuses an invisible character before sending, naming it', async () => {
    const cfg = tempConfigDir();
    try {
      const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'test-token-not-used' };
      const r = await runCli(['contacts', 'list', '--email', 'k\u200b@example.com'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('U+200B');
    } finally {
      cfg.cleanup();
    }
  });
});
