/** svc sandbox logs and svc sandbox deprecations, in-process against a sandbox on port 0 over real HTTP. */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { http } from '../helpers/sandbox.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

let token: string;
let env: Record<string, string>;
beforeAll(async () => {
  token = (await fx.sb.admin.createApiToken(['contacts_read'])).token;
  env = fx.env({ SVC_TOKEN: token });
});

describe('svc sandbox logs', () => {
  it('a request id printed by a failing svc command is looked up, with the rule that refused it and what to change', async () => {
    const failed = await runCli(['contacts', 'create', '--email', 'ada@example.com'], { env });
    expect(failed.code).not.toBe(0);
    const id = /request id (req_\w+)/.exec(failed.stderr)?.[1];
    expect(id, failed.stderr).toBeDefined();
    const r = await runCli(['sandbox', 'logs', '--request-id', id as string], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('insufficient_scope');
    expect(r.stdout).toMatch(/why\s+Scopes: this operation needs the scope contacts_write/);
    expect(r.stdout).toMatch(/fix\s+Create an API token with contacts_write/);
    expect(r.stdout).toContain('Test token (API token)');
    expect(r.stdout).toContain('Answer body (application/json');
    expect(r.stdout).not.toContain(token);
    const json = await runCli(['sandbox', 'logs', '--request-id', id as string, '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ request_id: id, status: 403, error: { code: 'insufficient_scope' } });
  });

  it('lists the most recent requests oldest first, filtered by --status and --path, as JSON too', async () => {
    await http(fx.sb.baseUrl, 'GET', '/v1/contacts?limit=1', { token: token });
    await http(fx.sb.baseUrl, 'GET', '/v1/contacts?limit=2');
    const r = await runCli(['sandbox', 'logs', '--status', '401', '--path', '/v1/contacts', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { status: number; path: string; seq: number }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((e) => e.status === 401 && e.path.startsWith('/v1/contacts'))).toBe(true);
    const all = JSON.parse((await runCli(['sandbox', 'logs', '--json', '--limit', '5'], { env })).stdout) as { seq: number }[];
    expect(all.length).toBeLessThanOrEqual(5);
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => a - b));
    const table = await runCli(['sandbox', 'logs', '--status', '2xx'], { env, tty: true });
    expect(table.stdout).toMatch(/STATUS\s+METHOD\s+PATH/);
    expect(table.stdout).toContain('/v1/contacts?limit=1');
    const tsv = await runCli(['sandbox', 'logs', '--status', '2xx'], { env });
    expect(tsv.stdout).toMatch(/\t200\tGET\t\/v1\/contacts\?limit=1\t/);
  });

  it('refuses a bad --status or --since as a usage error (exit 2) naming the flag', async () => {
    const bad = await runCli(['sandbox', 'logs', '--status', 'teapot'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--status');
    const since = await runCli(['sandbox', 'logs', '--since', 'last tuesday'], { env });
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since');
  });

  it('--follow prints each request as it is answered, as NDJSON with --json, until interrupted', async () => {
    const controller = new AbortController();
    let seen = '';
    const running = runCli(['sandbox', 'logs', '--follow', '--json', '--status', '4xx'], {
      env,
      signal: controller.signal,
      onStdout: (text) => {
        seen += text;
      },
    });
    // A refused request printed is the state "following": until then (a slow start), send
    // another. Then a 200 that the filter must leave out, and a last refusal: once that one is
    // printed, the 200 before it has been passed over.
    const refusedUntilPrinted = async () => {
      const deadline = Date.now() + 45_000;
      for (;;) {
        const res = await http(fx.sb.baseUrl, 'DELETE', '/v1/contacts/ct_nope', { token: token });
        const id = res.headers.get('x-request-id') ?? '';
        for (let i = 0; i < 10; i++) {
          if (seen.includes(id)) return id;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (Date.now() > deadline) throw new Error('--follow printed none of the refused requests');
      }
    };
    await refusedUntilPrinted();
    const ok = await http(fx.sb.baseUrl, 'GET', '/v1/contacts?limit=3', { token: token });
    const lastRefused = await refusedUntilPrinted();
    controller.abort();
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.request_id)).toContain(lastRefused);
    expect(lines.map((l) => l.request_id)).not.toContain(ok.headers.get('x-request-id'));
  });

  it('a request id no longer in the log exits 1 saying so', async () => {
    const r = await runCli(['sandbox', 'logs', '--request-id', 'req_gone'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not in the request log');
  });
});

describe('svc sandbox deprecations', () => {
  it('exits 0 with nothing seen, and with --fail-on-any exits 1 once a deprecated call was made', async () => {
    const clean = await runCli(['sandbox', 'deprecations', '--fail-on-any', '--json'], { env });
    expect(clean.code, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual([]);
    const writer = (await fx.sb.admin.createApiToken(['contacts_read', 'contacts_write'])).token;
    const c = await http(fx.sb.baseUrl, 'POST', '/v1/contacts', { token: writer, json: { email: 'old@example.com' } });
    const u = await http(fx.sb.baseUrl, 'POST', `/v1/contacts/${(c.body as { id: string }).id}/unsubscribe`, { token: writer });
    const listed = await runCli(['sandbox', 'deprecations'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('unsubscribe_endpoint');
    expect(listed.stdout).toContain(u.headers.get('x-request-id'));
    const failing = await runCli(['sandbox', 'deprecations', '--fail-on-any', '--json'], { env });
    expect(failing.code).toBe(1);
    expect(JSON.parse(failing.stdout)[0]).toMatchObject({ code: 'unsubscribe_endpoint', count: 1 });
    expect(failing.stderr).toContain('deprecated or removed');
  });
});
