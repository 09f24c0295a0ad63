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

/** `svc events send ARGS` is refused before sending (exit 2), its message saying `says`. */
async function expectUsage(args: string[], says: string | RegExp) {
  const r = await send(args);
  expect(r.code, args.join(' ')).toBe(2);
  expect(r.stderr).toMatch(says);
}

describe('svc events send: validation before sending (exit 2)', () => {
  it('needs --type or --file, and a contact', async () => {
    await expectUsage(['--email', 'a@b.co'], /--type is required/);
    await expectUsage(['--type', 'signed_up'], /--email, --phone or --contact-id/);
  });

  it('names the flag of an invalid field', async () => {
    await expectUsage(['--type', 'x', '--email', 'not-an-email'], '--email must be an email address');
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--occurred-at', 'yesterday'], '--occurred-at must be an RFC 3339');
    await expectUsage(['--type', 'x', '--phone', '555-0100'], /--phone .*--default-country/);
    await expectUsage(['--type', 'x', '--phone', '555-0100', '--default-country', 'XX'], '--default-country');
  });

  it('refuses a bad --prop or --properties with a JSON error on stderr under --json', async () => {
    const prop = await send(['--type', 'x', '--email', 'a@b.co', '--prop', 'plan'], true);
    expect(prop.code).toBe(2);
    expect(prop.stdout).toBe('');
    expect(JSON.parse(prop.stderr)).toMatchObject({ error: { code: 'validation' } });
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--properties', '[1]'], '--properties must be a JSON object');
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--prop', `blob=${'x'.repeat(70_000)}`], '64 KiB');
  });

  it('reads --properties @file and reports an unreadable one', async () => {
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--properties', `@${join(cfg.dir, 'nope.json')}`], 'cannot read --properties');
    const file = join(cfg.dir, 'bad.json');
    writeFileSync(file, '{"a":');
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--properties', `@${file}`], 'is not valid JSON');
  });

  it('keeps --file apart from single-event flags, and bulk flags apart from single sends', async () => {
    await expectUsage(['--file', 'events.ndjson', '--type', 'x'], '--file cannot be combined with --type');
    await expectUsage(['--type', 'x', '--email', 'a@b.co', '--report', 'r.csv'], '--report only applies with --file');
    // Worded as orders import words it (it said ENOENT).
    await expectUsage(['--file', join(cfg.dir, 'missing.ndjson')], 'no such file: --file ');
    const badConcurrency = await send(['--file', '-', '--concurrency', '0']);
    expect(badConcurrency.code).toBe(2);
    // Memory stays bounded by the concurrency (lines buffered ahead of the requests): it has a ceiling.
    await expectUsage(['--file', '-', '--concurrency', '100000'], '--concurrency must be at most 256');
  });
});
