/**
 * The set-up shared by test files that run `svc` against one sandbox (the sandbox fixture of
 * sandbox.ts plus a config folder): the sandbox starts once per file; by default, before each
 * test it is reset, a token with every scope is made and a temporary config folder is created
 * (removed after the test). Read the fields inside tests and hooks (they change from test to test).
 *
 * Options for the files that need less: `reset: false` keeps the sandbox's state from test to
 * test (one token for the file), `config: 'file'` one config folder for the whole file, `token:
 * false` leaves SVC_TOKEN out of env() (auth tests log in themselves), `build: true` builds dist/
 * first when it is missing (tests that spawn bin/svc.js).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { type RunOptions, type RunResult, runCli } from './run-cli.js';
import { type TestSandbox, useSandbox, type WithSandboxOptions } from './sandbox.js';
import { ensureBuilt } from './spawn-cli.js';
import { useTempDir } from './tmp.js';

export interface CliSuite {
  sb: TestSandbox;
  token: string;
  /** The config folder (SVC_CONFIG_DIR) of the current test (or file). */
  tmp: { readonly dir: string };
  /** SVC_CONFIG_DIR, SVC_BASE_URL and SVC_TOKEN (unless `token: false`) of the current test, plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Writes `text` to the file `name` in the config folder of the test; returns its path. */
  file(name: string, text: string | Buffer): string;
  /** Resets the sandbox now and makes a fresh token (what happens before each test unless `reset: false`). */
  reset(): Promise<void>;
  /** `svc ARGV` in-process (run-cli.ts) with env() under `opts.env`. */
  svc(argv: string[], opts?: RunOptions): Promise<RunResult>;
}

export interface CliSuiteOptions {
  /** Reset the sandbox and make a fresh token before each test (default true). */
  reset?: boolean;
  /** One config folder per test (default) or one for the whole file. */
  config?: 'test' | 'file';
  /** SVC_TOKEN in env() (default true). */
  token?: boolean;
  /** Build dist/ first when it is missing (for tests that spawn bin/svc.js). */
  build?: boolean;
  sandbox?: WithSandboxOptions;
}

export function cliSuite(opts: CliSuiteOptions = {}): CliSuite {
  const fx = useSandbox(undefined, { ...opts.sandbox, resetEach: opts.reset !== false });
  const tmp = useTempDir(opts.config ?? 'test');
  const env = (extra: Record<string, string> = {}) => ({
    SVC_CONFIG_DIR: tmp.dir,
    SVC_BASE_URL: fx.sb.baseUrl,
    ...(opts.token === false ? {} : { SVC_TOKEN: fx.token }),
    ...extra,
  });
  if (opts.build) beforeAll(ensureBuilt, 60_000);
  return {
    get sb() {
      return fx.sb;
    },
    get token() {
      return fx.token;
    },
    tmp,
    env,
    file: (name, text) => {
      const path = join(tmp.dir, name);
      writeFileSync(path, text);
      return path;
    },
    reset: fx.reset,
    svc: (argv, o = {}) => runCli(argv, { ...o, env: { ...env(), ...o.env } }),
  };
}
