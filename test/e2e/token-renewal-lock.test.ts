/**
 * Processes sharing a profile renew its access token one at a time (issue 26: 8 processes with a
 * 2-second token lifetime asked for 25 tokens where 18 would do). Eight spawned `svc events send
 * --file -`, each fed a line every 100 ms for about 5 s, against a sandbox whose tokens live 3 s:
 * the token endpoint issues at most one token per lifetime window.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { CredentialStore } from '../../src/store/store.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

const LIFETIME_S = 3;
const PROCESSES = 8;
const RUN_MS = 5_000;

let sb: RunningSandbox;
const issued: number[] = [];
const cfg = tempConfigDir();

beforeAll(async () => {
  await ensureBuilt();
  sb = await startSandbox({
    tokenTtlSeconds: LIFETIME_S,
    onAnswer: (a) => {
      // When the token request ARRIVED: on a loaded machine the answer itself may be seconds late
      // (the sandbox shares this process), which would make two renewals look close together.
      if (a.method === 'POST' && a.url.startsWith('/oauth/token') && a.status === 200) issued.push(Date.now() - (a.elapsedMs ?? 0));
    },
  });
  const app = (await (
    await fetch(`${sb.baseUrl}/_sandbox/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'lock test', scopes: [...SCOPES] }),
    })
  ).json()) as { client_id: string; client_secret: string };
  new CredentialStore(cfg.dir).setProfile('default', {
    base_url: sb.baseUrl,
    auth_method: 'client_credentials',
    client_id: app.client_id,
    client_secret: app.client_secret,
    requested_scopes: [...SCOPES],
  });
}, 60_000);
afterAll(async () => {
  await sb.close();
  cfg.cleanup();
});

function sender(): { proc: ChildProcessWithoutNullStreams; done: Promise<{ code: number | null; stderr: string }> } {
  const proc = spawn(process.execPath, [join(root, 'bin', 'svc.js'), 'events', 'send', '--file', '-', '--concurrency', '1'], {
    env: { PATH: process.env.PATH ?? '', SVC_CONFIG_DIR: cfg.dir, SVC_DATA_DIR: join(cfg.dir, 'data') },
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d;
  });
  proc.stdout.resume();
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
  return { proc, done };
}

describe('token renewal across processes', () => {
  it(`${PROCESSES} processes on one profile: at most one token per ${LIFETIME_S}-second lifetime window`, async () => {
    const senders = Array.from({ length: PROCESSES }, sender);
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < RUN_MS) {
      for (const s of senders) s.proc.stdin.write(`{"event_type":"lock_test","email":"p${n++ % PROCESSES}@example.com"}\n`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const s of senders) s.proc.stdin.end();
    const results = await Promise.all(senders.map((s) => s.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const elapsed = Date.now() - started;
    // Renewed when due (the last tenth of the lifetime): one token per 0.9 lifetime at most.
    const gaps = issued.slice(1).map((t, i) => t - (issued[i] as number));
    expect(issued.length, `tokens issued at ${issued.map((t) => t - started).join(', ')} ms`).toBeLessThanOrEqual(
      Math.ceil(elapsed / (LIFETIME_S * 900)) + 1,
    );
    // Without the lock, tokens come in bursts (gaps of a few ms). With it, each renewal waits for
    // the last tenth of the lifetime, counted from BEFORE the renewer's own token request: a slow
    // request (a cold process on a loaded machine: up to ~1 s seen in the full suite) brings the
    // next renewal that much earlier, as the server counts. So the floor is a quarter lifetime: a
    // gap under it means a token request took 0.65 lifetime longer than the next one, not an early
    // renewal (instrumented runs at load 16: every renewal started >= 0.9 lifetime after the one
    // before, holding the lock, finding its own token in the store; the short gaps followed a cold
    // first request slower than the whole lifetime). 3 s, not 2: that much more room for it.
    expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(LIFETIME_S * 1000 * 0.25);
    expect(issued.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
