/**
 * svc auth login/status/token/logout through the CLI, in-process, against the real sandbox.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { withSandbox } from '../helpers/sandbox.js';

const fx = cliSuite({ reset: false, token: false });

const svc = fx.svc;

describe('auth status checks the credentials against the service', () => {
  it('an invalid SVC_TOKEN is exit 3 with the reason; --offline skips the check', async () => {
    const bad = await svc(['auth', 'status'], { env: { SVC_TOKEN: 'svc_not_a_real_token' } });
    expect(bad.code, bad.stderr).toBe(3);
    expect(bad.stdout).toMatch(/problem\s+\S+/);
    const json = await svc(['auth', 'status', '--json'], { env: { SVC_TOKEN: 'svc_not_a_real_token' } });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).error).toEqual(expect.any(String));
    const offline = await svc(['auth', 'status', '--offline'], { env: { SVC_TOKEN: 'svc_not_a_real_token' } });
    expect(offline.code, offline.stderr).toBe(0);
  });

  it('a valid token without the contacts scope is fine', async () => {
    const { token } = await fx.sb.admin.createApiToken(['events_write']);
    const r = await svc(['auth', 'status'], { env: { SVC_TOKEN: token } });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('auth login with client credentials', () => {
  it('logs in non-interactively, shows status, prints a token, logs out', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read', 'contacts_write']);
    const login = await svc(
      ['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--scopes', 'contacts_read,contacts_write'],
      {
        stdin: `${app.client_secret}\n`,
      },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`Logged in to ${fx.sb.baseUrl}`);
    expect(login.stderr).toContain('granted scopes: contacts_read contacts_write');
    expect(login.stdout + login.stderr).not.toContain(app.client_secret);

    const store = `${fx.tmp.dir}/credentials.json`;
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(statSync(fx.tmp.dir).mode & 0o777).toBe(0o700);

    const status = await svc(['auth', 'status', '--json'], { env: { SVC_BASE_URL: undefined } });
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({
      profile: 'default',
      logged_in: true,
      base_url: fx.sb.baseUrl,
      base_url_source: 'profile',
      method: 'client_credentials',
      credentials_source: 'profile',
      client_id: app.client_id,
      client_auth: 'post',
      requested_scopes: ['contacts_read', 'contacts_write'],
      scopes: ['contacts_read', 'contacts_write'],
    });
    expect(s.token_expires_in).toBeGreaterThan(7100);
    expect(s.token_expires_in).toBeLessThanOrEqual(7200);
    expect(Object.keys(s).sort()).toEqual(
      [
        'base_url',
        'base_url_source',
        'client_auth',
        'client_id',
        'credentials_from',
        'credentials_source',
        'logged_in',
        'method',
        'profile',
        'profile_source',
        'proxy',
        'proxy_from',
        'requested_scopes',
        'scopes',
        'store',
        'error',
        'integration_token',
        'integration_token_source',
        'token_expires_at',
        'token_expires_in',
      ].sort(),
    );
    expect(status.stdout).not.toContain(app.client_secret);

    const human = await svc(['auth', 'status']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/method\s+client credentials/);
    expect(human.stdout).toMatch(/token expires\s+in 2 h /);

    const token = await svc(['auth', 'token']);
    expect(token.code).toBe(0);
    const bearer = token.stdout.trim();
    const res = await fetch(`${fx.sb.baseUrl}/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(res.status).toBe(200);

    const logout = await svc(['auth', 'logout']);
    expect(logout.code).toBe(0);
    const after = await svc(['auth', 'status', '--json']);
    expect(after.code).toBe(3);
    expect(JSON.parse(after.stdout)).toMatchObject({ logged_in: false, method: null });
    const list = await svc(['contacts', 'list']);
    expect(list.code).toBe(3);
    expect(list.stderr).toMatch(/not logged in/);
  });

  it('logs in with HTTP Basic client authentication (--basic-auth) and remembers it', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const login = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--basic-auth', '--debug'], {
      stdin: app.client_secret,
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token → 200/);
    expect(login.stderr).not.toContain(app.client_secret);
    const s = JSON.parse((await svc(['auth', 'status', '--json'])).stdout);
    expect(s.client_auth).toBe('basic');
    expect((await svc(['contacts', 'list', '--json'])).code).toBe(0);
  });

  it('invalid_client: exit 3, one token request, no retry loop, secret not printed', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const wrong = 'Wr0ng+Secret/Value=42%';
    const r = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--debug'], { stdin: wrong });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/error: the service rejected client id app_\S+ or its secret \(invalid_client, HTTP 401\)/);
    expect(r.stderr).toMatch(/hint: check the client id and secret/);
    expect(r.stderr.match(/\/oauth\/token →/g)).toHaveLength(1);
    expect(r.stderr).not.toContain('retry');
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(r.stdout + r.stderr).not.toContain(encodeURIComponent(wrong));
    expect((await svc(['auth', 'status', '--json'])).code).toBe(3);
  });

  it('invalid_scope: exit 3 without retrying', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const r = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--scopes', 'orders_write', '--debug'], {
      stdin: app.client_secret,
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/orders_write is not enabled/);
    expect(r.stderr).toMatch(/hint: request only scopes enabled on the application/);
    expect(r.stderr.match(/\/oauth\/token →/g)).toHaveLength(1);
  });

  it('fewer scopes granted: warns, and --require-scopes exits 3 without saving', async () => {
    const biz = await fx.sb.admin.createBusiness('Basic plan', ['contacts_read', 'contacts_write']);
    const app = await fx.sb.admin.createApp([...SCOPES], biz.id);
    const args = ['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--scopes', 'contacts_read events_write'];
    const strict = await svc([...args, '--require-scopes'], { stdin: app.client_secret });
    expect(strict.code).toBe(3);
    expect(strict.stderr).toMatch(/missing events_write/);
    expect((await svc(['auth', 'status', '--json'])).code).toBe(3);

    const lax = await svc(args, { stdin: app.client_secret });
    expect(lax.code, lax.stderr).toBe(0);
    expect(lax.stderr).toMatch(/warning: .*fewer scopes than requested: missing events_write/);
    const s = JSON.parse((await svc(['auth', 'status', '--json'])).stdout);
    expect(s.scopes).toEqual(['contacts_read']);
    // The command is refused before any request is sent, with exit 3 and a hint.
    const send = await svc(['events', 'send', '--type', 'signup', '--email', 'a@example.com', '--debug']);
    expect(send.code).toBe(3);
    expect(send.stderr).toMatch(/events_write/);
    expect(send.stderr).toMatch(/hint: enable events_write on the application/);
    expect(send.stderr).not.toMatch(/POST \S+\/v1\/events/);
  });

  it('renews an expired cached token, and a revoked one once', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    expect((await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: app.client_secret })).code).toBe(
      0,
    );
    await fx.sb.admin.revokeAppTokens(app.client_id);
    const r = await svc(['contacts', 'list', '--json', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/GET \S+\/v1\/contacts\S* → 401/);
    expect(r.stderr.match(/\/oauth\/token →/g)).toHaveLength(1);
    expect(r.stderr).toMatch(/token renewed, replaying/);

    // Revoked again and the secret regenerated: the one renewal fails, exit 3, no loop.
    await fx.sb.admin.revokeAppTokens(app.client_id);
    await fx.sb.admin.regenerateSecret(app.client_id);
    const dead = await svc(['contacts', 'list', '--json', '--debug']);
    expect(dead.code).toBe(3);
    expect(dead.stderr.match(/\/oauth\/token →/g)).toHaveLength(1);
    // status still reports, naming the problem
    const file = `${fx.tmp.dir}/credentials.json`;
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.profiles.default.access_token_expires_at = Date.now() - 1000;
    writeFileSync(file, JSON.stringify(data));
    const status = await svc(['auth', 'status', '--json']);
    expect(status.code).toBe(3);
    expect(JSON.parse(status.stdout)).toMatchObject({
      logged_in: true,
      client_id: app.client_id,
      error: expect.stringMatching(/^invalid_client: /),
    });
    // ... and prints the error the contract's way on stderr, as JSON with --json.
    expect(JSON.parse(status.stderr).error).toMatchObject({ code: 'invalid_client', status: 401 });
    const human = await svc(['auth', 'status']);
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/^error: .*invalid_client|^error: /m);
    expect(human.stderr).toMatch(/^hint: check the client id and secret/m);
  });
});

describe('auth login with an API token', () => {
  it('--with-token reads stdin, verifies the token and stores it', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    const r = await svc(['auth', 'login', '--with-token'], { stdin: `${token}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(token);
    const s = JSON.parse((await svc(['auth', 'status', '--json'])).stdout);
    expect(s).toMatchObject({ method: 'api_token', credentials_source: 'profile', scopes: null, token_expires_in: null });
    expect((await svc(['auth', 'token'])).stdout.trim()).toBe(token);
  });

  it('auth token --json prints one JSON document; the bare token without it', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: app.client_secret });
    const bare = await svc(['auth', 'token']);
    expect(bare.code, bare.stderr).toBe(0);
    const j = await svc(['auth', 'token', '--json']);
    expect(j.code, j.stderr).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc).toMatchObject({ access_token: bare.stdout.trim(), token_type: 'Bearer', scopes: ['contacts_read'] });
    expect(doc.expires_in).toBeGreaterThan(7000);
    expect(j.stdout).not.toContain(app.client_secret);
  });

  it('not logged in: the report on stdout, then the error on stderr with exit 3 (JSON with --json)', async () => {
    const human = await svc(['auth', 'status'], { env: { SVC_BASE_URL: undefined } });
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/logged in\s+no/);
    expect(human.stderr).toMatch(/^error: not logged in \(profile default\)\nhint: run `svc auth login`/);
    const json = await svc(['auth', 'status', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ logged_in: false });
    expect(JSON.parse(json.stderr)).toEqual({
      error: expect.objectContaining({ code: 'not_logged_in', message: 'not logged in (profile default)' }),
    });
  });

  it('--with-token at a terminal asks with a hidden prompt instead of reading an echoed line', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    const r = await svc(['auth', 'login', '--with-token'], { tty: true, stdin: `${token}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Paste your API token');
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(JSON.parse((await svc(['auth', 'status', '--json'])).stdout)).toMatchObject({ method: 'api_token' });
    // A terminal on stdin where no prompt can be shown (CI): refused, nothing read.
    const ci = await svc(['auth', 'login', '--with-token', '--profile', 'ci'], { tty: true, stdin: `${token}\n`, env: { CI: 'true' } });
    expect(ci.code).toBe(2);
    expect(ci.stderr).toMatch(/pipe it in/);
  });

  it('a base URL that does not lead to the service (404) saves nothing and says so', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    const r = await svc(['auth', 'login', '--with-token', '--base-url', `${fx.sb.baseUrl}/wrong-prefix`], { stdin: token });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/could not check the API token at .*\/wrong-prefix: .*nothing was saved \(is the base URL right\?\)/);
    expect(r.stdout + r.stderr).not.toContain(token);
    expect((await svc(['auth', 'status', '--json'])).code).toBe(3);
  });

  it('refuses a wrong token with exit 3 and stores nothing', async () => {
    const r = await svc(['auth', 'login', '--with-token'], { stdin: 'not-a-real-token-123' });
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).not.toContain('not-a-real-token-123');
    expect((await svc(['auth', 'status'])).code).toBe(3);
  });

  it('a revoked API token (SVC_TOKEN) exits 3 with a hint, without retrying', async () => {
    const t = await fx.sb.admin.createApiToken(['contacts_read']);
    await fx.sb.admin.revokeApiToken(t.id);
    const r = await svc(['contacts', 'list', '--debug'], { env: { SVC_TOKEN: t.token } });
    expect(r.code).toBe(3);
    expect(r.stderr.match(/GET \S+ → 401/g)).toHaveLength(1);
    expect(r.stderr).toContain('hint:');
    expect(r.stdout + r.stderr).not.toContain(t.token);
  });

  it('SVC_TOKEN beats stored credentials and status says so', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: app.client_secret });
    const token = await fx.sb.tokenWithAllScopes();
    const s = JSON.parse((await svc(['auth', 'status', '--json'], { env: { SVC_TOKEN: token } })).stdout);
    expect(s).toMatchObject({ method: 'api_token', credentials_source: 'env', credentials_from: 'SVC_TOKEN', base_url_source: 'env' });
  });
});

describe('credential store', () => {
  it('a store that is not valid JSON is named, with what to do (exit 1, not an unexpected error)', async () => {
    writeFileSync(`${fx.tmp.dir}/credentials.json`, '{"profiles": {');
    const r = await svc(['auth', 'status']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: the credential store ${fx.tmp.dir}/credentials.json is not valid JSON`);
    expect(r.stderr).toMatch(/^hint: fix the file, or remove it/m);
    const j = await svc(['contacts', 'list', '--json'], { env: { SVC_TOKEN: 'tok_abcdef' } });
    expect(JSON.parse(j.stderr).error.code).toBe('invalid_credential_store');
  });
});

describe('profiles', () => {
  it('logs in to a named profile with a default country; --profile and SVC_PROFILE select it', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    const r = await svc(['auth', 'login', '--with-token', '--profile', 'work', '--default-country', 'de'], { stdin: token });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('profile work');
    const stored = JSON.parse(readFileSync(`${fx.tmp.dir}/credentials.json`, 'utf8')).profiles.work;
    expect(stored).toMatchObject({ auth_method: 'api_token', default_country: 'DE', base_url: fx.sb.baseUrl });
    expect((await svc(['auth', 'status'])).code).toBe(3);
    const byFlag = JSON.parse((await svc(['auth', 'status', '--json', '--profile', 'work'])).stdout);
    expect(byFlag).toMatchObject({ profile: 'work', profile_source: 'flag', method: 'api_token' });
    const byEnv = JSON.parse((await svc(['auth', 'status', '--json'], { env: { SVC_PROFILE: 'work' } })).stdout);
    expect(byEnv).toMatchObject({ profile: 'work', profile_source: 'env' });
    const bad = await svc(['auth', 'login', '--with-token', '--default-country', 'Germany'], { stdin: token });
    expect(bad.code).toBe(2);
  });
});

describe('never prompts without a terminal', () => {
  it('no TTY: usage error naming the non-interactive flags', async () => {
    const r = await svc(['auth', 'login']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no terminal to prompt on/);
    expect(r.stderr).toMatch(/--with-token/);
    expect(r.stderr).toMatch(/--client-secret-stdin/);
  });

  it('a TTY in CI does not prompt either', async () => {
    const r = await svc(['auth', 'login'], { tty: true, env: { CI: 'true' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no terminal to prompt on/);
  });

  it('--client-id without --client-secret-stdin and no TTY is a usage error', async () => {
    const r = await svc(['auth', 'login', '--client-id', 'app_x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--client-secret-stdin/);
  });

  it('refuses plain http to a remote host unless --insecure', async () => {
    const r = await svc(['auth', 'login', '--with-token', '--base-url', 'http://api.example.com'], { stdin: 'tok' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing plain http/);
  });

  it('--insecure lets plain http to a non-loopback address through, with a warning', async () => {
    // 0.0.0.0 is not a loopback name, yet on Linux it reaches the sandbox listening on 127.0.0.1.
    const plain = fx.sb.baseUrl.replace('127.0.0.1', '0.0.0.0');
    const token = await fx.sb.tokenWithAllScopes();
    const env = { SVC_TOKEN: token, SVC_BASE_URL: plain };
    const refused = await svc(['contacts', 'list', '--json', '--debug'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toMatch(/→/);
    const ok = await svc(['contacts', 'list', '--json', '--insecure'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toBeInstanceOf(Array);
    expect(ok.stderr).toMatch(/warning: --insecure: credentials and data travel unencrypted to 0\.0\.0\.0:\d+/);
    const loopback = await svc(['contacts', 'list', '--json'], { env: { ...env, SVC_BASE_URL: fx.sb.baseUrl } });
    expect(loopback.stderr).not.toMatch(/insecure/);
  });
});

describe('token expiry mid-run', () => {
  it('a cached token past its 2 s lifetime is renewed transparently', async () => {
    const short = await withSandbox({ tokenTtlSeconds: 2 });
    try {
      const app = await short.admin.createApp(['contacts_read', 'contacts_write']);
      const env = { SVC_BASE_URL: short.baseUrl };
      expect(
        (await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: app.client_secret, env })).code,
      ).toBe(0);
      const first = JSON.parse((await svc(['auth', 'status', '--json'], { env })).stdout);
      expect(first.token_expires_in).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 2200));
      const r = await svc(['contacts', 'list', '--json', '--debug'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/\/oauth\/token → 200/);
      expect(r.stderr).not.toMatch(/→ 401/);
    } finally {
      await short.close();
    }
  });
});
