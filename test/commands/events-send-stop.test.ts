/**
 * `svc events send --file` stopped early: the credentials stop working mid-run (a revoked token),
 * or Ctrl-C while stdin waits for more input. The run stops, but first says exactly which lines
 * were sent, so the rest can be sent once — never the whole file again. Against a real sandbox.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { fakeIO, runCli } from '../helpers/run-cli.js';

const fx = cliSuite();

function eventsFile(n: number, type: string): string {
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ event_type: type, email: `stop${i + 1}@events.test` }));
  const path = join(fx.tmp.dir, `${type}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/**
 * `svc events send ARGS` at 20 ms a request with a token of its own, revoked once `flowing` flow
 * runs are stored; resolves with the finished run and the environment it ran with.
 */
async function sendRevokedAfter(flowing: number, args: string[]) {
  const token = await fx.sb.admin.createApiToken(['events_write']);
  const env = fx.env({ SVC_TOKEN: token.token });
  await fx.sb.admin.setFaults({ latency_ms: 20 });
  const running = runCli(['events', 'send', ...args], { env });
  // Revoke once events are flowing.
  for (let i = 0; i < 400 && (await fx.sb.admin.outbox({ type: 'flow_run' })).length < flowing; i++)
    await new Promise((r) => setTimeout(r, 10));
  await fx.sb.admin.revokeApiToken(token.id);
  const res = await running;
  await fx.sb.admin.setFaults({});
  return { res, env };
}

describe('svc events send --file, credentials revoked mid-run', () => {
  it('stops with exit 3 after printing which lines were sent; the hinted command sends exactly the rest', async () => {
    await fx.sb.admin.createFlow('stop');
    const total = 150;
    const file = eventsFile(total, 'stop');
    const report = join(fx.tmp.dir, 'report.csv');
    const { res, env } = await sendRevokedAfter(10, ['--file', file, '--concurrency', '4', '--report', report, '--json']);

    expect(res.code).toBe(3);
    expect(JSON.parse(res.stderr).error).toMatchObject({ code: 'unauthorized', status: 401 });
    const s = JSON.parse(res.stdout);
    const stored = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(s.accepted).toBe(stored.length);
    expect(s.accepted).toBeGreaterThanOrEqual(10);
    expect(s.stopped_after_line).toBeLessThan(total);
    expect(s.rows).toBe(s.stopped_after_line);
    expect(s.accepted + s.failed + s.unconfirmed + s.rejected).toBe(s.rows);
    expect(s.failed).toBeGreaterThanOrEqual(1);
    // The report holds every settled line: the accepted ones with their ids, the refused ones as failed.
    const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(lines).toHaveLength(s.rows);
    expect(lines.filter((l) => l.split(',')[2] === 'failed').map((l) => Number(l.split(',')[0]))).toEqual(s.failed_lines);

    // The hinted command, run with working credentials, sends every event exactly once in all.
    const command = /sed -n '([^']+)' (\S+) \| svc events send --file -$/.exec(s.rest_hint as string);
    expect(command?.[2]).toBe(file);
    // The same command on its own, for a script.
    expect(s.rest_command).toBe(`sed -n '${command?.[1]}' ${file} | svc events send --file -`);
    const rest = execFileSync('sed', ['-n', command?.[1] as string, file], { encoding: 'utf8' });
    const again = await runCli(['events', 'send', '--file', '-', '--json'], {
      env: { ...env, SVC_TOKEN: await fx.sb.tokenWithAllScopes() },
      stdin: rest,
    });
    expect(again.code).toBe(0);
    const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(runs).toHaveLength(total);
    expect(new Set(runs.map((r) => r.contact_id)).size).toBe(total);
  });

  it('in human mode the summary is printed and the stop explained before the error', async () => {
    await fx.sb.admin.createFlow('human');
    const file = eventsFile(100, 'human');
    const { res } = await sendRevokedAfter(4, ['--file', file, '--concurrency', '2']);
    expect(res.code).toBe(3);
    const accepted = (await fx.sb.admin.outbox({ type: 'flow_run' })).length;
    expect(res.stdout).toMatch(new RegExp(String.raw`^rows\t\d+\naccepted\t${accepted}\n`));
    // A file keeps its journal: the stop names it and the command that sends the failed lines and the rest.
    expect(res.stderr).toMatch(
      new RegExp(
        String.raw`stopped after line \d+: progress saved in \S+; once the credentials are fixed, continue with: svc events send --file ${file} --resume --concurrency 2`,
      ),
    );
    expect(res.stderr).toMatch(/^error: .*HTTP 401/m);
  });

  it('refused from the first line (nothing stored): a plain credential error, no summary', async () => {
    const token = await fx.sb.admin.createApiToken(['events_write']);
    await fx.sb.admin.revokeApiToken(token.id);
    const res = await runCli(['events', 'send', '--file', eventsFile(30, 'gone'), '--json'], {
      env: fx.env({ SVC_TOKEN: token.token }),
    });
    expect(res.code).toBe(3);
    expect(res.stdout).toBe('');
    expect(JSON.parse(res.stderr).error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(await fx.sb.admin.outbox()).toEqual([]);
  });
});

describe('svc events send --file -, Ctrl-C while stdin waits for more lines', () => {
  it('ends at once with exit 130 and the summary of what was sent (not after the next line that never comes)', async () => {
    await fx.sb.admin.createFlow('wait');
    const env = fx.env({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    const f = fakeIO();
    const stdin = new PassThrough();
    for (let i = 0; i < 3; i++) stdin.write(`${JSON.stringify({ event_type: 'wait', email: `wait${i}@events.test` })}\n`);
    const controller = new AbortController();
    const running = main(['events', 'send', '--file', '-', '--json'], { io: { ...f.io, stdin }, env, signal: controller.signal });
    for (let i = 0; i < 400 && (await fx.sb.admin.outbox({ type: 'flow_run' })).length < 3; i++)
      await new Promise((r) => setTimeout(r, 10));
    controller.abort(new DOMException('received SIGINT', 'AbortError'));
    const code = await Promise.race([running, new Promise((r) => setTimeout(() => r('still waiting'), 3000))]);
    expect(code).toBe(130);
    expect(JSON.parse(f.stdout())).toMatchObject({ rows: 3, accepted: 3, interrupted_after_line: 3 });
    expect(JSON.parse(f.stderr()).error.code).toBe('interrupted');
    // The input was released, so a real process can exit.
    expect(stdin.destroyed).toBe(true);
  });
});

describe('svc events send (one event), Ctrl-C while the request is in flight', () => {
  it('exits 130 and says the event may or may not have been accepted', async () => {
    const env = fx.env({ SVC_TOKEN: await fx.sb.tokenWithAllScopes() });
    await fx.sb.admin.setFaults({ latency_ms: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('received SIGINT', 'AbortError')), 300);
    const res = await runCli(['events', 'send', '--type', 'x', '--email', 'int@events.test', '--json'], { env, signal: controller.signal });
    await fx.sb.admin.setFaults({});
    expect(res.code).toBe(130);
    expect(res.stdout).toBe('');
    expect(JSON.parse(res.stderr).error).toMatchObject({ code: 'interrupted', message: expect.stringContaining('may or may not') });
  });
});
