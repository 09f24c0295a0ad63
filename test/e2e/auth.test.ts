/**
 * The built CLI as a child process: a secret piped on stdin (never in argv), and two processes
 * renewing an expired token at the same moment both ending with a working token.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { spawnSvc } from '../helpers/spawn-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

/** The CLI with the user's HOME, `env` and a secret on stdin. */
const svc = (args: string[], env: Record<string, string>, stdin?: string) =>
  spawnSvc(args, { HOME: process.env.HOME ?? '', ...env }, { stdin });

describe('auth through real pipes', () => {
  it('logs in with the secret on stdin, then two processes renew an expired token at once', async () => {
    const env = fx.env();
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const login = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], env, `${app.client_secret}\n`);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(app.client_secret);

    // Make the cached token look expired, as after a long pause.
    const file = `${fx.tmp.dir}/credentials.json`;
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.profiles.default.access_token_expires_at = Date.now() - 1000;
    writeFileSync(file, JSON.stringify(data));

    const [a, b] = await Promise.all([svc(['auth', 'token'], env), svc(['auth', 'token'], env)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    for (const t of [a.stdout.trim(), b.stdout.trim()]) {
      const res = await fetch(`${fx.sb.baseUrl}/v1/contacts?limit=1`, { headers: { authorization: `Bearer ${t}` } });
      expect(res.status).toBe(200);
    }
    const stored = JSON.parse(readFileSync(file, 'utf8')).profiles.default;
    expect(stored.access_token_expires_at).toBeGreaterThan(Date.now());
    const list = await svc(['contacts', 'list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
  });

  it('exits 3 on a wrong secret and 2 when asked to prompt without a terminal', async () => {
    const env = fx.env();
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const wrong = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin'], env, 'definitely-wrong');
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).not.toContain('definitely-wrong');
    const noTty = await svc(['auth', 'login'], env);
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toMatch(/--with-token/);
  });
});
