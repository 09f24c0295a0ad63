/**
 * `svc events send` refuses bad input before any request: these runs point at a closed port, so
 * a test that passes proves nothing was sent (a request would fail with exit 1, not 2).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const cfg = tempConfigDir();
afterAll(() => cfg.cleanup());
const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TOKEN: 'tok_unused' };

async function send(args: string[], json = false) {
  return runCli(['events', 'send', ...args, ...(json ? ['--json'] : [])], { env });
}

describe('svc events send: validation before sending (exit 2)', () => {
  it('needs --type or --file, and a contact', async () => {
    const noType = await send(['--email', 'a@b.co']);
    expect(noType.code).toBe(2);
    expect(noType.stderr).toMatch(/--type is required/);
    const noContact = await send(['--type', 'signed_up']);
    expect(noContact.code).toBe(2);
    expect(noContact.stderr).toMatch(/--email, --phone or --contact-id/);
  });

  it('names the flag of an invalid field', async () => {
    const email = await send(['--type', 'x', '--email', 'not-an-email']);
    expect(email.code).toBe(2);
    expect(email.stderr).toContain('--email must be an email address');
    const when = await send(['--type', 'x', '--email', 'a@b.co', '--occurred-at', 'yesterday']);
    expect(when.code).toBe(2);
    expect(when.stderr).toContain('--occurred-at must be an RFC 3339');
    const phone = await send(['--type', 'x', '--phone', '555-0100']);
    expect(phone.code).toBe(2);
    expect(phone.stderr).toMatch(/--phone .*--default-country/);
    const country = await send(['--type', 'x', '--phone', '555-0100', '--default-country', 'XX']);
    expect(country.code).toBe(2);
    expect(country.stderr).toContain('--default-country');
  });

  it('refuses a bad --prop or --properties with a JSON error on stderr under --json', async () => {
    const prop = await send(['--type', 'x', '--email', 'a@b.co', '--prop', 'plan'], true);
    expect(prop.code).toBe(2);
    expect(prop.stdout).toBe('');
    expect(JSON.parse(prop.stderr)).toMatchObject({ error: { code: 'validation' } });
    const props = await send(['--type', 'x', '--email', 'a@b.co', '--properties', '[1]']);
    expect(props.code).toBe(2);
    expect(props.stderr).toContain('--properties must be a JSON object');
    const big = await send(['--type', 'x', '--email', 'a@b.co', '--prop', `blob=${'x'.repeat(70_000)}`]);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('64 KiB');
  });

  it('reads --properties @file and reports an unreadable one', async () => {
    const missing = await send(['--type', 'x', '--email', 'a@b.co', '--properties', `@${join(cfg.dir, 'nope.json')}`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read --properties');
    const file = join(cfg.dir, 'bad.json');
    writeFileSync(file, '{"a":');
    const bad = await send(['--type', 'x', '--email', 'a@b.co', '--properties', `@${file}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not valid JSON');
  });

  it('keeps --file apart from single-event flags, and bulk flags apart from single sends', async () => {
    const mixed = await send(['--file', 'events.ndjson', '--type', 'x']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('--file cannot be combined with --type');
    const report = await send(['--type', 'x', '--email', 'a@b.co', '--report', 'r.csv']);
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('--report only applies with --file');
    const missing = await send(['--file', join(cfg.dir, 'missing.ndjson')]);
    expect(missing.code).toBe(2);
    // Worded as orders import words it (it said ENOENT).
    expect(missing.stderr).toContain('no such file: --file ');
    const badConcurrency = await send(['--file', '-', '--concurrency', '0']);
    expect(badConcurrency.code).toBe(2);
    // Memory stays bounded by the concurrency (lines buffered ahead of the requests): it has a ceiling.
    const huge = await send(['--file', '-', '--concurrency', '100000']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain('--concurrency must be at most 256');
  });
});
