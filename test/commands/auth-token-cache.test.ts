/**
 * The token fields of a profile have one writer, the token cache: `auth login` stores the token it
 * obtained through it, with the issue time taken before the token request (the conservative
 * reading: the token is never thought younger than it is).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const TTL_SECONDS = 900;
const fx = cliSuite({ reset: false, token: false, sandbox: { tokenTtlSeconds: TTL_SECONDS } });

describe('auth login stores its token through the token cache', () => {
  it('issued_at is the time before the token request: expiry minus issue time is the whole lifetime', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    // A clock that moves a second at every reading: any reading after the round trip is later.
    let t = Date.now();
    const now = () => (t += 1000);
    const login = await runCli(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], {
      stdin: app.client_secret,
      env: fx.env(),
      now,
    });
    expect(login.code, login.stderr).toBe(0);
    const profile = JSON.parse(readFileSync(`${fx.tmp.dir}/credentials.json`, 'utf8')).profiles.default;
    expect(profile.client_id).toBe(app.client_id);
    expect(typeof profile.access_token).toBe('string');
    expect(profile.granted_scopes).toEqual(['contacts_read']);
    expect(profile.access_token_expires_at - profile.access_token_issued_at).toBe(TTL_SECONDS * 1000);

    // The next run uses the stored token (a new token request would give another one).
    const token = await runCli(['auth', 'token'], { env: { SVC_CONFIG_DIR: fx.tmp.dir }, now });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim()).toBe(profile.access_token);
  });

  it('a rejected login writes no token fields', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const login = await runCli(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], {
      stdin: 'not-the-secret',
      env: fx.env(),
    });
    expect(login.code).toBe(3);
    let stored: unknown;
    try {
      stored = JSON.parse(readFileSync(`${fx.tmp.dir}/credentials.json`, 'utf8')).profiles?.default;
    } catch {
      stored = undefined;
    }
    expect(stored).toBeUndefined();
  });
});
