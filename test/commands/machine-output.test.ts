/**
 * Machine output that scripts can trust: --json keeps stderr empty on success, and a list that
 * fails never leaves a well-formed document on stdout (nothing before the first page; after it,
 * a JSON array without its end).
 */
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { fakeIO, runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, config: 'file' });

let env: Record<string, string>;
beforeAll(() => {
  env = fx.env();
});

describe('--json is quiet', () => {
  it('contacts create, patch and unsubscribe print nothing on stderr', async () => {
    const created = await runCli(
      ['contacts', 'create', '--email', 'quiet@example.com', '--phone', '+14155550199', '--sms-consent', 'subscribed', '--json'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toBe('');
    const id = JSON.parse(created.stdout).id as string;
    const patched = await runCli(['contacts', 'patch', id, '--first-name', 'Q', '--json'], { env });
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stderr).toBe('');
    const unsub = await runCli(['contacts', 'unsubscribe', id, '--json'], { env });
    expect(unsub.code, unsub.stderr).toBe(0);
    expect(unsub.stderr).toBe('');
  });
});

describe('a failed list', () => {
  it('writes nothing to stdout when the first page fails (json and csv)', async () => {
    for (const format of [['--json'], ['--format', 'csv'], ['--format', 'ndjson']]) {
      const r = await runCli(['contacts', 'list', ...format], { env: { ...env, SVC_TOKEN: 'svc_bad_token' } });
      expect(r.code, format.join(' ')).toBe(3);
      expect(r.stdout, format.join(' ')).toBe('');
    }
  });

  it('an empty list that succeeds is still a document', async () => {
    const r = await runCli(['contacts', 'list', '--email', 'nobody-here@example.com', '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('a failure after the first page leaves the JSON array unterminated', async () => {
    for (let i = 0; i < 3; i++) await runCli(['contacts', 'create', '--email', `page${i}@example.com`, '--json'], { env });
    const token = await fx.sb.admin.createApiToken(['contacts_read']);
    // stdout that takes nothing until the token is revoked: the list waits for it to drain
    // before asking for the second page, so the second page is asked with a revoked token.
    const f = fakeIO();
    const stdout = new PassThrough({ highWaterMark: 1 });
    let text = '';
    const run = main(['contacts', 'list', '--all', '--page-size', '1', '--json'], {
      io: { ...f.io, stdout },
      env: { ...env, SVC_TOKEN: token.token },
    });
    while (stdout.readableLength === 0) await new Promise((r) => setTimeout(r, 10));
    await fx.sb.admin.revokeApiToken(token.id);
    stdout.on('data', (d: Buffer) => {
      text += d.toString('utf8');
    });
    const code = await run;
    await new Promise((r) => setImmediate(r));
    expect(code).toBe(3);
    expect(text.startsWith('[')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
    expect(JSON.parse(f.stderr())).toMatchObject({ error: { code: 'unauthorized' } });
  });
});
