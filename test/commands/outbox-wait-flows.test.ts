/**
 * `sandbox outbox --wait flow_run --event-type T` timing out says when no flow of the sandbox is
 * keyed on T (issue 30), from GET /_sandbox/flows. Against the real sandbox.
 */
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const fx = cliSuite({ reset: false, config: 'file', token: false });

const wait = (eventType: string) =>
  runCli(['sandbox', 'outbox', '--wait', 'flow_run', '--event-type', eventType, '--timeout', '0.3s'], {
    env: fx.env(),
  });

describe('outbox --wait flow_run --event-type, timing out', () => {
  it('names the missing flow and the event types that have one', async () => {
    const flows = (await (await fetch(`${fx.sb.baseUrl}/_sandbox/flows`)).json()) as { data: Array<{ event_type: string }> };
    const keyed = flows.data.map((f) => f.event_type);
    expect(keyed).not.toContain('ci_check_nobody_keys');
    const r = await wait('ci_check_nobody_keys');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no flow_run side effect with event type ci_check_nobody_keys within 0.3s');
    expect(r.stderr).toContain('hint: no enabled flow of this sandbox is keyed on event type ci_check_nobody_keys');
  });

  it('says nothing more when a flow is keyed on it', async () => {
    const res = await fetch(`${fx.sb.baseUrl}/_sandbox/flows`, {
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
