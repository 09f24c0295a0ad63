/**
 * The built `svc events send` as a CI job runs it: a child process with pipes (no TTY), only
 * environment credentials, no config file. Needs `node build.mjs` first (npm test does it).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { killWhen, spawnSvc } from '../helpers/spawn-cli.js';

const fx = cliSuite({ build: true });

const svc = spawnSvc;

/** Only what a CI job sets: the address, a credential, an empty home and config folder. */
function ciEnv(creds: Record<string, string>): Record<string, string> {
  return { HOME: fx.tmp.dir, SVC_CONFIG_DIR: join(fx.tmp.dir, 'config'), SVC_BASE_URL: fx.sb.baseUrl, CI: 'true', ...creds };
}

describe('spawned svc events send, CI style', () => {
  it('SVC_TOKEN only, no TTY: exit 0, JSON on stdout, nothing on stderr; the flow ran once', async () => {
    await fx.sb.admin.createFlow('ci_check');
    const env = ciEnv({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    const r = await svc(['events', 'send', '--type', 'ci_check', '--email', 'ci@example.com', '--prop', 'build=1234', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toEqual({ status: 'accepted', id: expect.stringMatching(/^ev_/) });
    const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(runs.map((x) => x.event_id)).toEqual([body.id]);
    // No config file: nothing was written to SVC_CONFIG_DIR (not even an empty store).
    expect(existsSync(env.SVC_CONFIG_DIR as string)).toBe(false);
  });

  it('SVC_CLIENT_ID/SVC_CLIENT_SECRET only: exit 0, JSON on stdout, nothing on stderr', async () => {
    const app = await fx.sb.admin.createApp(['events_write']);
    const env = ciEnv({ SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret });
    const r = await svc(['events', 'send', '--type', 'ci_check', '--email', 'ci@example.com', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('accepted');
    expect(r.stdout).not.toContain(app.client_secret);
    // The access token stays in memory: no store is created for env credentials.
    expect(existsSync(env.SVC_CONFIG_DIR as string)).toBe(false);
  });

  it('human mode off a TTY: the id alone on stdout, a plain note on stderr, no colour', async () => {
    const env = ciEnv({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    const r = await svc(['events', 'send', '--type', 'ci_check', '--contact-id', 'ct_missing'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: the service rejected the event \(HTTP 404, request id req_\w+\)/);
    const ok = await svc(['events', 'send', '--type', 'ci_check', '--email', 'x@example.com'], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ev_\w+\n$/);
    expect(ok.stderr).toContain('does not mean a Flow');
    expect(ok.stderr).not.toMatch(/\u001b\[/);
  });

  it('an NDJSON file on stdin with --json: the summary on stdout, nothing on stderr', async () => {
    const env = ciEnv({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ event_type: 'bulk', email: `b${i}@example.com` }));
    const r = await svc(['events', 'send', '--file', '-', '--json'], env, { stdin: `${lines.join('\n')}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 30, accepted: 30, rejected: 0, failed: 0, unconfirmed: 0 });
    expect(existsSync(env.SVC_CONFIG_DIR as string)).toBe(false);
  });

  it('Ctrl-C: in-flight events finish, exit 130, and the printed --resume command sends exactly the rest', async () => {
    await fx.sb.admin.createFlow('slow');
    const env = ciEnv({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    const file = join(fx.tmp.dir, 'slow.ndjson');
    const total = 200;
    writeFileSync(
      file,
      `${Array.from({ length: total }, (_, i) => JSON.stringify({ event_type: 'slow', email: `s${i}@example.com` })).join('\n')}\n`,
    );
    await fx.sb.admin.setFaults({ latency_ms: 100 });
    const r = await svc(['events', 'send', '--file', file, '--concurrency', '4', '--json'], env, {
      // Interrupt once events are flowing (not at a fixed time: start-up is slow on a busy machine).
      onSpawn: killWhen(async () => (await fx.sb.admin.outbox({ type: 'flow_run' })).length >= 8, 'SIGINT', 50),
    });
    await fx.sb.admin.setFaults({});
    expect(r.code).toBe(130);
    const s = JSON.parse(r.stdout);
    const after = s.interrupted_after_line as number;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(total);
    expect(s).toMatchObject({ rows: after, accepted: after, unconfirmed: 0 });
    expect(JSON.parse(r.stderr).error).toMatchObject({
      code: 'interrupted',
      hint: `continue with: svc events send --file ${file} --resume --concurrency 4`,
    });
    expect(await fx.sb.admin.outbox({ type: 'flow_run' })).toHaveLength(after);

    const rest = await svc(['events', 'send', '--file', file, '--resume', '--concurrency', '4', '--json'], env);
    expect(rest.code, rest.stderr).toBe(0);
    expect(JSON.parse(rest.stdout)).toMatchObject({ rows: total, accepted: total, resumed: after, unconfirmed: 0 });
    const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(runs).toHaveLength(total);
    expect(new Set(runs.map((x) => x.contact_id)).size).toBe(total);
  });
});
