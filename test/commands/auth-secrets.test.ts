/**
 * No secret in any output: runs a session of commands with --debug (logins, failures, retries,
 * status, raw requests) and greps everything printed for every secret involved.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { type RunOptions, runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

describe('secrets never reach the output', () => {
  it('a whole session with --debug prints no client secret, API token or access token', async () => {
    let printed = '';
    const svc = async (argv: string[], opts: RunOptions = {}) => {
      const r = await runCli([...argv, '--debug'], { ...opts, env: { ...fx.env(), ...opts.env } });
      printed += `${r.stdout}\n${r.stderr}\n`;
      return r;
    };
    const app = await fx.sb.admin.createApp([...SCOPES]);
    const apiToken = await fx.sb.tokenWithAllScopes();
    const wrongSecret = 'n0t+the/real:secret=%41';

    expect((await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: wrongSecret })).code).toBe(3);
    expect(
      (await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--basic-auth'], { stdin: wrongSecret })).code,
    ).toBe(3);
    expect((await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], { stdin: app.client_secret })).code).toBe(
      0,
    );
    expect((await svc(['auth', 'status'])).code).toBe(0);
    expect((await svc(['auth', 'status', '--json'])).code).toBe(0);
    expect((await svc(['contacts', 'create', '--email', 'secret-test@example.com', '--json'])).code).toBe(0);
    await fx.sb.admin.revokeAppTokens(app.client_id);
    expect((await svc(['contacts', 'list', '--json'])).code).toBe(0);
    expect((await svc(['api', 'GET', '/v1/contacts', '-i'])).code).toBe(0);
    await fx.sb.admin.setFaults({ unavailable_rate: 1 });
    expect((await svc(['contacts', 'list'], { env: { SVC_MAX_RETRY_WAIT: '0' } })).code).toBe(1);
    await fx.sb.admin.setFaults({});
    expect((await svc(['api', 'GET', '/v1/contacts'], { env: { SVC_TOKEN: apiToken } })).code).toBe(0);
    expect((await svc(['contacts', 'list'], { env: { SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: wrongSecret } })).code).toBe(3);
    expect(
      (await svc(['auth', 'status', '--json'], { env: { SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret } })).code,
    ).toBe(0);
    expect((await svc(['auth', 'login', '--with-token'], { stdin: apiToken })).code).toBe(0);
    expect((await svc(['auth', 'logout'])).code).toBe(0);

    const store = JSON.parse(readFileSync(`${fx.tmp.dir}/credentials.json`, 'utf8'));
    const accessTokens: string[] = [];
    // Access tokens issued during the session are what a leak would look like too.
    const tokenRun = await runCli(['auth', 'token'], {
      env: { ...fx.env(), SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret },
    });
    accessTokens.push(tokenRun.stdout.trim());
    expect(store.profiles.default?.api_token).toBeUndefined();

    expect(printed).toContain('[debug]');
    for (const secret of [app.client_secret, apiToken, wrongSecret, encodeURIComponent(wrongSecret), ...accessTokens]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(printed).not.toContain(secret);
    }
    expect(printed).not.toMatch(/Bearer [A-Za-z0-9]/);
    expect(printed).not.toMatch(/Basic [A-Za-z0-9]/);
    expect(printed).not.toMatch(/client_secret=[^[]/);
  });
});
