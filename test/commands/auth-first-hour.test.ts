/**
 * The first hour of a login (issue 30): a login that did not ask for a scope says which commands
 * need it and the login that gets it; a stored integration token is shown masked, dropped by a new
 * login unless kept, and a 403 on it names the profile holding it; a refused connection names where
 * the base URL came from. In-process against the real sandbox, with a temporary store.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { CredentialStore } from '../../src/store/store.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { fakeIO, type RunOptions, runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, token: false });

function svc(argv: string[], opts: RunOptions = {}) {
  return runCli(argv, { ...opts, env: { SVC_CONFIG_DIR: fx.tmp.dir, ...opts.env } });
}

async function login(app: { client_id: string; client_secret: string }, extra: string[] = []) {
  return svc(['--base-url', fx.sb.baseUrl, 'auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', ...extra], {
    stdin: `${app.client_secret}\n`,
  });
}

describe('scopes a login did not request', () => {
  it('names the commands that need them and the login that gets them', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read', 'contacts_write', 'events_write', 'orders_write']);
    const r = await login(app, ['--scopes', 'contacts_read']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('not requested: contacts_write events_write orders_write');
    expect(r.stderr).toContain('events send');
    expect(r.stderr).toContain('svc auth login --scopes "contacts_read contacts_write events_write orders_write"');

    // The command that needs the scope says the same fix, not "enable it on the application".
    const send = await svc(['events', 'send', '--type', 'ci_check', '--email', 'ada@example.com']);
    expect(send.code).toBe(3);
    expect(send.stderr).toContain('did not request events_write');
    expect(send.stderr).toContain('auth login --scopes "contacts_read events_write"');
    expect(send.stderr).not.toContain('enable events_write on the application');
  });

  it('nothing requested: no advice when the application grants every scope; the missing ones named when it does not', async () => {
    const full = await fx.sb.admin.createApp(['contacts_read', 'contacts_write', 'events_write', 'orders_write']);
    const r = await login(full);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
    const partial = await fx.sb.admin.createApp(['contacts_read']);
    const p = await login(partial, ['--json']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stderr).toContain('the application does not grant contacts_write events_write orders_write');
    expect(JSON.parse(p.stdout).unrequested_scopes).toEqual([]);
  });
});

describe("a profile's integration token", () => {
  it('is shown masked by auth status, dropped by a new login, kept with --keep-integration-token', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    const integration = await fx.sb.admin.createIntegration('first hour');
    new CredentialStore(fx.tmp.dir).setProfile('default', {
      base_url: fx.sb.baseUrl,
      auth_method: 'api_token',
      api_token: token,
      integration_token: integration.token,
    });
    const status = await svc(['auth', 'status', '--offline']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/integration token\s+\S{4}\*{8} \(profile default; sent on order requests\)/);
    expect(status.stdout).not.toContain(integration.token);
    const json = JSON.parse((await svc(['auth', 'status', '--offline', '--json'])).stdout);
    expect(json.integration_token_source).toBe('profile');
    expect(json.integration_token).not.toContain(integration.token.slice(4));

    const app = await fx.sb.admin.createApp(['contacts_read']);
    const kept = await login(app, ['--keep-integration-token', '--json']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).integration_token_dropped).toBe(false);
    expect(new CredentialStore(fx.tmp.dir).getProfile('default')?.integration_token).toBe(integration.token);

    const dropped = await login(app);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stderr).toContain("the profile's integration token was dropped (keep it with --keep-integration-token)");
    expect(new CredentialStore(fx.tmp.dir).getProfile('default')?.integration_token).toBeUndefined();
  });

  it('a 403 on it names the profile that holds it and how to remove it', async () => {
    const token = await fx.sb.tokenWithAllScopes();
    new CredentialStore(fx.tmp.dir).setProfile('staging', {
      base_url: fx.sb.baseUrl,
      auth_method: 'api_token',
      api_token: token,
      integration_token: 'it_from_a_sandbox_that_is_gone_0123456789',
    });
    const r = await svc([
      '--profile',
      'staging',
      'orders',
      'upsert',
      '--order-id',
      'o-1',
      '--email',
      'ada@example.com',
      '--total',
      '10',
      '--currency',
      'EUR',
      '--order-date',
      '2026-01-02T10:00:00Z',
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('hint: profile staging holds it');
    expect(r.stderr).toContain('svc --profile staging auth logout');
    expect(r.stderr).not.toContain('it_from_a_sandbox_that_is_gone_0123456789');
  });
});

describe('a refused connection', () => {
  /** Backoff waits of 0 (random() = 0): the attempts take milliseconds. */
  async function noWait(argv: string[], env: Record<string, string>) {
    const f = fakeIO();
    const code = await main(argv, { io: f.io, env: { SVC_CONFIG_DIR: fx.tmp.dir, ...env }, random: () => 0 });
    return { code, stderr: f.stderr() };
  }

  it('names where the base URL came from', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await new Promise<void>((r) => server.close(() => r()));
    new CredentialStore(fx.tmp.dir).setProfile('old', { base_url: deadUrl, auth_method: 'api_token', api_token: 'sk_test_token_1234' });
    const fromProfile = await noWait(['--profile', 'old', 'contacts', 'list'], {});
    expect(fromProfile.code).toBe(1);
    expect(fromProfile.stderr).toContain(`hint: is the service running at ${deadUrl} (from profile old)?`);
    const fromEnv = await noWait(['contacts', 'list'], { SVC_BASE_URL: deadUrl, SVC_TOKEN: 'sk_test_token_1234' });
    expect(fromEnv.stderr).toContain(`hint: is the service running at ${deadUrl} (from SVC_BASE_URL)?`);
    const fromFlag = await noWait(['--base-url', deadUrl, 'contacts', 'list'], { SVC_TOKEN: 'sk_test_token_1234' });
    expect(fromFlag.stderr).toContain(`hint: is the service running at ${deadUrl} (from --base-url)?`);
  });
});
