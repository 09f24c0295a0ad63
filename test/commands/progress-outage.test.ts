/**
 * The outage lines of a bulk command's progress (commands/progress.ts): the service stopped
 * answering, then answers again. The watch looks every 250 ms; a run that finishes within that
 * tick of the service's return still says it answered again when its progress stops (a real
 * outage test found the line missing when the last rows went in a few milliseconds).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutageState } from '../../src/bulk/outage.js';
import { showProgress } from '../../src/commands/progress.js';
import { type Context, createContext } from '../../src/context.js';
import { fakeIO, tempConfigDir } from '../helpers/run-cli.js';

let cfg: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  cfg = tempConfigDir();
});
afterEach(() => cfg.cleanup());

/** The progress of a source whose outage the test sets, started; `stop` ends it. */
async function watched(flags: { json?: boolean }) {
  const f = fakeIO({});
  const ctx: Context = createContext({ io: f.io, env: { SVC_CONFIG_DIR: cfg.dir, SVC_PROGRESS_INTERVAL: '0' }, flags });
  let outage: OutageState | undefined;
  const src = {
    done: () => 0,
    resumed: () => 0,
    bytesRead: () => 0,
    rateLimited: () => 0,
    counts: () => '',
    outage: () => outage,
  };
  const stop = await showProgress(ctx, src, { unit: 'rows', totalBytes: undefined, starting: 'importing' });
  return {
    stderr: f.stderr,
    stop,
    set(o: OutageState | undefined) {
      outage = o;
    },
  };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([{ json: false }, { json: true }])('progress: the outage said (json %j)', (flags) => {
  it('says the outage, then its end when the run stops before the next look', async () => {
    const { stderr, stop, ...s } = await watched(flags);
    s.set({ sinceEpochMs: Date.now() - 3000, elapsedMs: 3000 });
    await tick(400);
    expect(stderr()).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting/);
    expect(stderr()).not.toMatch(/answers again/);
    // Back, and the run ends at once: the stop looks one last time.
    s.set(undefined);
    stop();
    expect(stderr()).toMatch(/the service answers again after 3 s; continuing/);
    expect(stderr().match(/answers again/g)).toHaveLength(1);
  });

  it('a run that ends before the outage was first seen says no "waiting"', async () => {
    const { stderr, stop, ...s } = await watched(flags);
    s.set({ sinceEpochMs: Date.now(), elapsedMs: 0 });
    stop();
    expect(stderr()).not.toMatch(/cannot reach the service|answers again/);
  });

  it('a run stopped while the service is still down says no return', async () => {
    const { stderr, stop, ...s } = await watched(flags);
    s.set({ sinceEpochMs: Date.now() - 1000, elapsedMs: 1000 });
    await tick(400);
    stop();
    expect(stderr().match(/cannot reach the service since/g)).toHaveLength(1);
    expect(stderr()).not.toMatch(/answers again/);
  });
});
