/**
 * Checks that happen before any request: every bad flag exits 2 with a message naming the flag
 * and the allowed values. SVC_BASE_URL points at a closed port, so a request that slipped
 * through would fail with exit 1 (network), never 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

let cfg: ReturnType<typeof tempConfigDir>;
let env: Record<string, string>;

beforeAll(() => {
  cfg = tempConfigDir();
  env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'test-token-not-used' };
});
afterAll(() => cfg.cleanup());

async function usage(argv: string[], tty = false) {
  const r = await runCli(argv, { env, tty });
  expect(r.code, `${argv.join(' ')}\n${r.stderr}`).toBe(2);
  expect(r.stdout).toBe('');
  return r.stderr;
}

describe('contacts list filters', () => {
  it('lists every email consent value, read-only ones included, for an unknown value', async () => {
    const err = await usage(['contacts', 'list', '--email-consent', 'bogus']);
    expect(err).toContain('--email-consent');
    for (const v of ['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed', 'compliance_suppressed']) expect(err).toContain(v);
  });
  it('lists every SMS consent value and names the renamed non_subscribed', async () => {
    const err = await usage(['contacts', 'list', '--sms-consent', 'non_subscribed']);
    for (const v of ['single_opt_in', 'pending', 'never_subscribed']) expect(err).toContain(v);
    expect(err).toContain('renamed');
  });
  it('refuses --limit with --all, a bad time, a bad email, a bad phone and a page size over 250', async () => {
    expect(await usage(['contacts', 'list', '--limit', '5', '--all'])).toMatch(/--limit and --all/);
    expect(await usage(['contacts', 'list', '--updated-since', 'yesterday'])).toMatch(/--updated-since.*RFC 3339/);
    expect(await usage(['contacts', 'list', '--email', 'not-an-email'])).toMatch(/--email/);
    expect(await usage(['contacts', 'list', '--phone', '12'])).toMatch(/--phone/);
    expect(await usage(['contacts', 'list', '--page-size', '300'])).toMatch(/--page-size/);
    expect(await usage(['contacts', 'list', '--limit', '0'])).toMatch(/--limit/);
    expect(await usage(['contacts', 'list', '--format', 'xml'])).toMatch(/format/);
  });
  it('refuses an unknown --default-country', async () => {
    expect(await usage(['contacts', 'list', '--phone', '4155550100', '--default-country', 'XX'])).toMatch(/--default-country/);
  });
});

describe('contacts create / patch checks', () => {
  it('refuses read-only consent values, listing the writable ones', async () => {
    const err = await usage(['contacts', 'create', '--email', 'a@example.com', '--email-consent', 'compliance_suppressed']);
    expect(err).toMatch(/read-only/);
    expect(err).toContain('subscribed, unsubscribed, never_subscribed, suppressed');
    const sms = await usage(['contacts', 'patch', 'ct_1', '--sms-consent', 'pending']);
    expect(sms).toMatch(/read-only/);
    expect(sms).toContain('single_opt_in');
  });
  it('refuses unknown consent values', async () => {
    expect(await usage(['contacts', 'create', '--email', 'a@example.com', '--sms-consent', 'yes'])).toMatch(/must be one of/);
  });
  it('needs a phone for SMS single_opt_in or subscribed on create, naming --phone', async () => {
    for (const v of ['single_opt_in', 'subscribed']) {
      const err = await usage(['contacts', 'create', '--email', 'a@example.com', '--sms-consent', v]);
      expect(err).toContain('--phone');
    }
  });
  it('needs an email or a phone on create, and a field on patch', async () => {
    expect(await usage(['contacts', 'create', '--first-name', 'Ann'])).toMatch(/--email or --phone/);
    expect(await usage(['contacts', 'patch', 'ct_1'])).toMatch(/at least one/);
    expect(await usage(['contacts', 'patch', 'ct_1', '--no-welcome-sms'])).toMatch(/at least one/);
  });
  it('refuses impossible and country-less local phone numbers', async () => {
    expect(await usage(['contacts', 'create', '--phone', '+1 555'])).toMatch(/not a (possible )?phone number/);
    expect(await usage(['contacts', 'create', '--phone', '(415) 555-0100'])).toMatch(/--default-country/);
  });
  it('refuses an unknown --if-exists mode', async () => {
    await usage(['contacts', 'create', '--email', 'a@example.com', '--if-exists', 'merge']);
  });
  it('prints the error as JSON with --json', async () => {
    const r = await runCli(['contacts', 'create', '--json', '--email', 'a@example.com', '--sms-consent', 'pending'], { env });
    expect(r.code).toBe(2);
    const body = JSON.parse(r.stderr) as { error: { code: string; message: string } };
    expect(body.error.message).toMatch(/read-only/);
  });

  it('usage errors found by the option parser are the error JSON too with --json', async () => {
    for (const argv of [
      ['contacts', 'list', '--json', '--limit', '0'],
      ['contacts', 'list', '--json', '--format', 'xml'],
      ['contacts', 'list', '--json', '--bogus'],
      ['contacts', 'create', '--json', '--email', 'a@example.com', '--if-exists', 'merge'],
    ]) {
      const r = await runCli(argv, { env });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(JSON.parse(r.stderr)).toEqual({ error: { code: 'usage', message: expect.stringMatching(/\S/) } });
    }
    const plain = await runCli(['contacts', 'list', '--limit', '0'], { env });
    expect(plain.stderr).toMatch(/^error: option '--limit <n>' argument '0' is invalid/);
  });
});

describe('contacts delete / unsubscribe checks', () => {
  it('refuses to delete without --yes when there is no terminal', async () => {
    expect(await usage(['contacts', 'delete', 'ct_1'])).toMatch(/--yes/);
    expect(await usage(['contacts', 'delete', 'ct_1', '--json'], true)).toMatch(/--yes/);
  });
  it('needs an id or --ids-file, not both', async () => {
    await usage(['contacts', 'delete', '--yes']);
    await usage(['contacts', 'unsubscribe']);
    await usage(['contacts', 'unsubscribe', 'ct_1', '--ids-file', 'x.txt']);
    expect(await usage(['contacts', 'delete', '--ids-file', '/nonexistent/ids.txt', '--yes'])).toMatch(/cannot read/);
  });
  it('refuses an id that cannot be one', async () => {
    await usage(['contacts', 'get', 'a/b']);
  });
});
