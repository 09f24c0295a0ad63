/** svc sandbox start / outbox / reset, in-process with a fake terminal and real HTTP. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { CredentialStore } from '../../src/store/store.js';
import { fakeIO, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let cfg: ReturnType<typeof tempConfigDir>;
let env: Record<string, string>;

useSandbox((s) => ({ sb } = s));

function freshEnv() {
  cfg = tempConfigDir();
  env = { SVC_CONFIG_DIR: cfg.dir, XDG_DATA_HOME: join(cfg.dir, 'data'), SVC_DATA_DIR: join(cfg.dir, 'data') };
}
afterEach(() => cfg?.cleanup());

/** Runs `svc sandbox start ...` until its first stdout line appears; returns that and a stop function. */
async function startInProcess(args: string[], tty = false) {
  const f = fakeIO({ tty });
  const controller = new AbortController();
  const done = main(['sandbox', 'start', ...args], { io: f.io, env, signal: controller.signal });
  const deadline = Date.now() + 10_000;
  while (!f.stdout().includes('\n') && Date.now() < deadline) {
    const early = await Promise.race([done.then((c) => c), new Promise<undefined>((r) => setTimeout(() => r(undefined), 20))]);
    if (early !== undefined) throw new Error(`start exited ${early}: ${f.stderr()}`);
  }
  await new Promise((r) => setTimeout(r, 50));
  return {
    stdout: f.stdout,
    stderr: f.stderr,
    stop: async () => {
      controller.abort();
      return done;
    },
  };
}

describe('svc sandbox start', () => {
  it('--json prints one line {base_url} and serves until interrupted, then exits 0', async () => {
    freshEnv();
    const s = await startInProcess(['--port', '0', '--memory', '--json']);
    const line = JSON.parse(s.stdout().split('\n')[0] as string);
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.dashboard_url).toBe(`${line.base_url}/`);
    expect((await http(line.base_url, 'GET', '/openapi.json')).status).toBe(200);
    expect(await s.stop()).toBe(0);
    await expect(fetch(`${line.base_url}/openapi.json`)).rejects.toThrow();
  });

  it('prints "Sandbox listening on <base_url>" for humans', async () => {
    freshEnv();
    const s = await startInProcess(['--memory'], true);
    expect(s.stdout()).toMatch(
      /^Sandbox listening on http:\/\/127\.0\.0\.1:(\d+)\nDashboard: http:\/\/127\.0\.0\.1:\1\/ \(from this machine only\)\n/,
    );
    expect(s.stderr()).toContain('Ctrl-C');
    expect(await s.stop()).toBe(0);
  });

  it('--seed prints working credentials once and saves the sandbox profile', async () => {
    freshEnv();
    const s = await startInProcess(['--memory', '--seed', '--json']);
    const line = JSON.parse(s.stdout().split('\n')[0] as string);
    const seed = line.seed;
    expect(seed).toMatchObject({
      client_id: expect.stringMatching(/^app_/),
      client_secret: expect.any(String),
      api_token: expect.any(String),
    });
    expect(seed.scopes).toEqual(['contacts_read', 'contacts_write', 'events_write', 'orders_write']);
    const tok = await http(line.base_url, 'POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: seed.client_id,
        client_secret: seed.client_secret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(tok.body.scope).toBe('contacts_read contacts_write events_write orders_write');
    const order = { order_id: 'seed-1', total: '1.00', currency: 'USD', order_date: '2026-01-01', email: 'seed@example.com' };
    const headers = { 'x-service-integration-token': seed.integration_token };
    expect((await http(line.base_url, 'POST', '/v1/orders/placed', { token: seed.api_token, json: order, headers })).status).toBe(201);
    const again = await http(line.base_url, 'POST', '/v1/orders/placed', { token: tok.body.access_token, json: order, headers });
    expect(again.status).toBe(200);
    expect(again.body.integration_id).toBe(seed.integration_id);
    const profile = new CredentialStore(cfg.dir).getProfile('sandbox');
    expect(profile).toMatchObject({
      base_url: line.base_url,
      auth_method: 'client_credentials',
      client_id: seed.client_id,
      client_secret: seed.client_secret,
      integration_token: seed.integration_token,
    });
    expect(await s.stop()).toBe(0);
  });

  it('keeps its data in a file (WAL checkpointed on stop) and finds it again', async () => {
    freshEnv();
    const file = join(cfg.dir, 'sb', 'data.db');
    const s1 = await startInProcess(['--db', file, '--seed', '--json']);
    const first = JSON.parse(s1.stdout().split('\n')[0] as string);
    await http(first.base_url, 'POST', '/v1/contacts', { token: first.seed.api_token, json: { email: 'kept@example.com' } });
    expect(await s1.stop()).toBe(0);
    expect(existsSync(`${file}-wal`) ? 'wal left' : 'clean').toBe('clean');
    const s2 = await startInProcess(['--db', file, '--json']);
    const second = JSON.parse(s2.stdout().split('\n')[0] as string);
    const list = await http(second.base_url, 'GET', '/v1/contacts', { token: first.seed.api_token });
    expect(list.body.data.map((c: { email: string }) => c.email)).toEqual(['kept@example.com']);
    expect(await s2.stop()).toBe(0);
  });

  it('--token-ttl sets the lifetime of access tokens', async () => {
    freshEnv();
    const s = await startInProcess(['--memory', '--seed', '--token-ttl', '60', '--json']);
    const line = JSON.parse(s.stdout().split('\n')[0] as string);
    const tok = await http(line.base_url, 'POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: line.seed.client_id,
        client_secret: line.seed.client_secret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(tok.body.expires_in).toBe(60);
    expect(await s.stop()).toBe(0);
  });

  it('exit 2 for bad options: --db with --memory, a bad port, a bad ttl', async () => {
    freshEnv();
    for (const args of [
      ['--db', 'x.db', '--memory'],
      ['--port', '70000'],
      ['--port', 'abc'],
      ['--token-ttl', '0'],
      ['--token-ttl', '1.5'],
    ]) {
      const r = await runCli(['sandbox', 'start', ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: /);
    }
  });

  it('exit 1 naming the port when it is in use', async () => {
    freshEnv();
    const r = await runCli(['sandbox', 'start', '--memory', '--port', String(sb.port)], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`port ${sb.port}`);
  });
});

describe('svc sandbox outbox', () => {
  it('--json prints the side effects as an array, filtered by --type and --after', async () => {
    freshEnv();
    await sb.admin.reset();
    const t = await sb.tokenWithAllScopes();
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { phone: '+14155550101', sms_consent: 'subscribed' } });
    await http(sb.baseUrl, 'POST', '/v1/orders/placed', {
      token: t,
      json: { order_id: 'cmd-1', total: '2.00', currency: 'USD', order_date: '2026-01-01', email: 'cmd@example.com' },
    });
    const all = await runCli(['sandbox', 'outbox', '--json', '--base-url', sb.baseUrl], { env });
    expect(all.code).toBe(0);
    const effects = JSON.parse(all.stdout);
    expect(effects.map((e: { type: string }) => e.type)).toEqual(['welcome_sms', 'flow_trigger', 'revenue_attribution']);
    const typed = await runCli(['sandbox', 'outbox', '--json', '--type', 'flow_trigger'], { env: { ...env, SVC_BASE_URL: sb.baseUrl } });
    expect(JSON.parse(typed.stdout).map((e: { trigger: string }) => e.trigger)).toEqual(['order_placed']);
    const after = await runCli(['sandbox', 'outbox', '--json', '--after', String(effects[1].seq), '--base-url', sb.baseUrl], { env });
    expect(JSON.parse(after.stdout).map((e: { type: string }) => e.type)).toEqual(['revenue_attribution']);
  });

  it('--sandbox reads the embedded sandbox, where --sandbox commands left their side effects', async () => {
    freshEnv();
    const created = await runCli(['--sandbox', 'contacts', 'create', '--phone', '+14155550177', '--sms-consent', 'subscribed', '--json'], {
      env,
    });
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const r = await runCli(['--sandbox', 'sandbox', 'outbox', '--json', '--contact', id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((e: { type: string }) => e.type)).toEqual(['welcome_sms']);
  });

  it('prints a table on a terminal, TSV otherwise', async () => {
    freshEnv();
    const tty = await runCli(['sandbox', 'outbox', '--base-url', sb.baseUrl], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/SEQ\s+TYPE/);
    const plain = await runCli(['sandbox', 'outbox', '--base-url', sb.baseUrl], { env });
    expect(plain.stdout.split('\n')[0]?.split('\t')[1]).toBe('welcome_sms');
  });

  it('uses the sandbox profile base_url when no flag or env is given', async () => {
    freshEnv();
    new CredentialStore(cfg.dir).setProfile('sandbox', { base_url: sb.baseUrl });
    const r = await runCli(['sandbox', 'outbox', '--json', '--type', 'welcome_sms'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
  });

  it('--limit N keeps the N most recent (oldest first), --contact one contact', async () => {
    freshEnv();
    await sb.admin.reset();
    const t = await sb.tokenWithAllScopes();
    const ids: string[] = [];
    for (const phone of ['+14155550111', '+14155550112', '+14155550113']) {
      const r = await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { phone, sms_consent: 'subscribed' } });
      ids.push((r.body as { id: string }).id);
    }
    const last2 = await runCli(['sandbox', 'outbox', '--json', '--limit', '2', '--base-url', sb.baseUrl], { env });
    expect(last2.code, last2.stderr).toBe(0);
    expect(JSON.parse(last2.stdout).map((e: { contact_id: string }) => e.contact_id)).toEqual([ids[1], ids[2]]);
    const one = await runCli(['sandbox', 'outbox', '--json', '--contact', ids[0] as string, '--base-url', sb.baseUrl], { env });
    expect(JSON.parse(one.stdout).map((e: { contact_id: string }) => e.contact_id)).toEqual([ids[0]]);
    const bad = await runCli(['sandbox', 'outbox', '--limit', '0', '--base-url', sb.baseUrl], { env });
    expect(bad.code).toBe(2);
  });

  it('uses the base_url of the profile chosen with --profile', async () => {
    freshEnv();
    new CredentialStore(cfg.dir).setProfile('staging', { base_url: sb.baseUrl });
    const r = await runCli(['sandbox', 'outbox', '--json', '--profile', 'staging'], { env });
    expect(r.code, r.stderr).toBe(0);
  });

  it('exit 2 for an unknown --type or a bad --after; exit 2 without any address', async () => {
    freshEnv();
    expect((await runCli(['sandbox', 'outbox', '--type', 'email', '--base-url', sb.baseUrl], { env })).code).toBe(2);
    expect((await runCli(['sandbox', 'outbox', '--after', '-1', '--base-url', sb.baseUrl], { env })).code).toBe(2);
    const none = await runCli(['sandbox', 'outbox'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('svc sandbox start');
  });

  it('exit 1 naming the address when no sandbox answers', async () => {
    freshEnv();
    const r = await runCli(['sandbox', 'outbox', '--base-url', 'http://127.0.0.1:9'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no sandbox answers at http://127.0.0.1:9');
  });
});

describe('svc sandbox reset', () => {
  it('empties the data of a running sandbox', async () => {
    freshEnv();
    const t = await sb.tokenWithAllScopes();
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { email: 'reset-me@example.com' } });
    const r = await runCli(['sandbox', 'reset', '--base-url', sb.baseUrl], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('reset');
    const t2 = await sb.tokenWithAllScopes();
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t2 })).body.data).toEqual([]);
    const json = await runCli(['sandbox', 'reset', '--json', '--base-url', sb.baseUrl], { env });
    expect(JSON.parse(json.stdout)).toEqual({ status: 'reset', base_url: sb.baseUrl });
  });

  it('asks first at a terminal: no keeps the data (exit 1), --yes does not ask', async () => {
    freshEnv();
    const t = await sb.tokenWithAllScopes();
    await http(sb.baseUrl, 'POST', '/v1/contacts', { token: t, json: { email: 'keep-me@example.com' } });
    const no = await runCli(['sandbox', 'reset', '--base-url', sb.baseUrl], { env: { ...env, CI: '' }, tty: true, stdin: 'n\n' });
    expect(no.code, no.stderr).toBe(1);
    expect(no.stderr).toMatch(/Reset the sandbox at .*\?/);
    expect(no.stderr).toContain('not reset');
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t })).body.data).toHaveLength(1);
    const yes = await runCli(['sandbox', 'reset', '--yes', '--base-url', sb.baseUrl], { env: { ...env, CI: '' }, tty: true });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).not.toMatch(/Reset the sandbox/);
    const t2 = await sb.tokenWithAllScopes();
    expect((await http(sb.baseUrl, 'GET', '/v1/contacts', { token: t2 })).body.data).toEqual([]);
  });
});

describe('data folder', () => {
  it('defaults to sandbox.db in the data folder', async () => {
    freshEnv();
    const s = await startInProcess(['--json']);
    const line = JSON.parse(s.stdout().split('\n')[0] as string);
    expect(line.db).toBe(join(cfg.dir, 'data', 'sandbox.db'));
    expect(existsSync(line.db)).toBe(true);
    expect(await s.stop()).toBe(0);
  });
});
