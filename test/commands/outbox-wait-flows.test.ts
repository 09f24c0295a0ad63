/**
 * `sandbox outbox --wait flow_run --event-type T` timing out says when no flow of the sandbox is
 * keyed on T (issue 30), from GET /_sandbox/flows. Against the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let cfg: { dir: string; cleanup: () => void };
beforeAll(async () => {
  sb = await withSandbox();
  cfg = tempConfigDir();
});
afterAll(async () => {
  cfg.cleanup();
  await sb.close();
});

const wait = (eventType: string) =>
  runCli(['sandbox', 'outbox', '--wait', 'flow_run', '--event-type', eventType, '--timeout', '0.3s'], {
    env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl },
  });

describe('outbox --wait flow_run --event-type, timing out', () => {
  it('names the missing flow and the event types that have one', async () => {
    const flows = (await (await fetch(`${sb.baseUrl}/_sandbox/flows`)).json()) as { data: Array<{ event_type: string }> };
    const keyed = flows.data.map((f) => f.event_type);
    expect(keyed).not.toContain('ci_check_nobody_keys');
    const r = await wait('ci_check_nobody_keys');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no flow_run side effect with event type ci_check_nobody_keys within 0.3s');
    expect(r.stderr).toContain('hint: no enabled flow of this sandbox is keyed on event type ci_check_nobody_keys');
  });

  it('says nothing more when a flow is keyed on it', async () => {
    const res = await fetch(`${sb.baseUrl}/_sandbox/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_type: 'keyed_here', name: 'keyed' }),
    });
    expect(res.status, await res.text()).toBeLessThan(300);
    const r = await wait('keyed_here');
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('hint:');
  });
});
