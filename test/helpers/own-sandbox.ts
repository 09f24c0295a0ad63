/**
 * A sandbox, a token with every scope and a config folder of one test's own, for tests that run
 * side by side (`it.concurrent`): each sets its own faults and rate windows without touching the
 * others'. Tests that mostly wait on the service's pace (rate windows, latency) overlap their
 * waits this way instead of queueing them.
 */
import { type RunOptions, type RunResult, runCli } from './run-cli.js';
import { type TestSandbox, type WithSandboxOptions, withSandbox } from './sandbox.js';
import { tempConfigDir } from './tmp.js';

export interface OwnSandbox {
  sb: TestSandbox;
  /** An API token with every scope. */
  token: string;
  /** The test's config folder (SVC_CONFIG_DIR), also a place for its files. */
  dir: string;
  /** SVC_CONFIG_DIR, SVC_BASE_URL and SVC_TOKEN, plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** `svc ARGV` in-process (run-cli.ts) with env() under `opts.env`. */
  svc(argv: string[], opts?: RunOptions): Promise<RunResult>;
}

/** Runs `body` with a sandbox and config folder of its own; both removed after it, whatever happened. */
export async function withOwnSandbox<T>(body: (s: OwnSandbox) => Promise<T>, opts: WithSandboxOptions = {}): Promise<T> {
  const sb = await withSandbox(opts);
  const config = tempConfigDir();
  try {
    const token = await sb.tokenWithAllScopes();
    const env = (extra: Record<string, string> = {}) => ({
      SVC_CONFIG_DIR: config.dir,
      SVC_BASE_URL: sb.baseUrl,
      SVC_TOKEN: token,
      ...extra,
    });
    return await body({ sb, token, dir: config.dir, env, svc: (argv, o = {}) => runCli(argv, { ...o, env: { ...env(), ...o.env } }) });
  } finally {
    config.cleanup();
    await sb.close();
  }
}
