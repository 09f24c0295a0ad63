/**
 * Credentials from the environment as secret managers and `$(cat file)` hand them over: the
 * surrounding whitespace is trimmed; a character inside that no HTTP header can carry is a usage
 * error naming the variable or flag before any request, and a stored token holding one fails at
 * once (never retried as a network error).
 */
import { describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/client/client.js';
import { UnsendableRequestError } from '../../src/client/errors.js';
import type { RetryInfo } from '../../src/client/types.js';
import { resolveCredentials } from '../../src/store/credentials.js';
import { SettingsError } from '../../src/store/errors.js';
import { CredentialStore } from '../../src/store/store.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

describe('environment credentials', () => {
  it('trims surrounding whitespace from SVC_TOKEN, SVC_CLIENT_ID, SVC_CLIENT_SECRET', () => {
    expect(resolveCredentials({ SVC_TOKEN: '  tok-1\n' }, undefined)).toMatchObject({ token: 'tok-1' });
    expect(resolveCredentials({ SVC_CLIENT_ID: ' id-1\r\n', SVC_CLIENT_SECRET: 'secret-1\n' }, undefined)).toMatchObject({
      clientId: 'id-1',
      clientSecret: 'secret-1',
    });
    expect(resolveCredentials({ SVC_TOKEN: ' \n' }, undefined)).toBeUndefined();
  });

  it('refuses a line break inside, naming the variable but never the value', () => {
    const err = (() => {
      try {
        resolveCredentials({ SVC_TOKEN: 'secret-part-one\nsecret-part-two' }, undefined);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(SettingsError);
    expect(err?.message).toMatch(/^SVC_TOKEN holds a character that cannot be sent \(U\+000A at position 16/);
    expect(err?.message).not.toMatch(/secret-part/);
    expect(() => resolveCredentials({ SVC_CLIENT_ID: 'id', SVC_CLIENT_SECRET: 'a\u001bb' }, undefined)).toThrow(/SVC_CLIENT_SECRET/);
  });

  it('a token with a trailing newline works (it was retried 8 times as a network error)', async () => {
    const r = await runCli(['contacts', 'list', '--json'], {
      env: t.env({ SVC_TOKEN: `${t.token}\n`, SVC_BASE_URL: `${t.sb.baseUrl}\n` }),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('a token with a line break inside is a usage error naming SVC_TOKEN, before any request', async () => {
    const broken = `${t.token.slice(0, 8)}\n${t.token.slice(8)}`;
    const started = Date.now();
    const r = await runCli(['contacts', 'list', '--debug'], { env: t.env({ SVC_TOKEN: broken }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: SVC_TOKEN holds a character that cannot be sent \(U\+000A at position 9 /);
    expect(r.stderr).not.toMatch(/GET |retry|network/);
    expect(r.stderr).not.toContain(t.token.slice(8));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('SVC_INTEGRATION_TOKEN is trimmed, and refused with a line break inside', async () => {
    const integration = await t.sb.admin.createIntegration();
    const order = [
      'orders',
      'upsert',
      '--order-id',
      'o-ws',
      '--total',
      '5',
      '--currency',
      'EUR',
      '--order-date',
      '2026-01-02',
      '--email',
      'ws@example.com',
    ];
    const ok = await runCli(order, { env: t.env({ SVC_INTEGRATION_TOKEN: `${integration.token}\n` }) });
    expect(ok.stderr).toMatch(/order o-ws created/);
    expect(ok.code).toBe(0);
    const bad = await runCli(order, { env: t.env({ SVC_INTEGRATION_TOKEN: `${integration.token}\nx` }) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SVC_INTEGRATION_TOKEN holds a character that cannot be sent/);
  });

  it('auth login --with-token refuses a control character inside the piped token, naming the flag', async () => {
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', t.sb.baseUrl], {
      stdin: `${t.token.slice(0, 5)}\u0007${t.token.slice(5)}\n`,
      env: { SVC_CONFIG_DIR: t.tmp.dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--with-token holds a character that cannot be sent/);
  });
});

describe('a header value that can never be sent', () => {
  it('a stored token with a line break fails at once with exit 2 (no retries, no network error)', async () => {
    new CredentialStore(t.tmp.dir).setProfile('default', { base_url: t.sb.baseUrl, auth_method: 'api_token', api_token: 'abc\ndef' });
    const r = await runCli(['contacts', 'list', '--debug'], { env: { SVC_CONFIG_DIR: t.tmp.dir } });
    expect(r.stderr).toMatch(/error: GET \/v1\/contacts: the request cannot be sent \(invalid authorization header\)/);
    expect(r.stderr).not.toMatch(/retry:|network error/);
    expect(r.stderr).not.toContain('abc');
    expect(r.code).toBe(2);
  });

  it('the client throws UnsendableRequestError without a retry', async () => {
    const retries: RetryInfo[] = [];
    const client = new ServiceClient({
      baseUrl: t.sb.baseUrl,
      credentials: { kind: 'api_token', token: 'abc\u0000def' },
      logger: { debug: () => {}, warn: () => {} },
    });
    try {
      const err = await client.listContacts({ limit: 1 }, { onRetry: (i) => retries.push(i) }).catch((e) => e);
      expect(err).toBeInstanceOf(UnsendableRequestError);
      expect(retries).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
