/**
 * The set-up shared by command test files that run `svc` against one sandbox: the sandbox starts
 * once per file; before each test it is reset, a token with every scope is made and a temporary
 * config folder is created (removed after the test). Read the fields inside tests and hooks (they
 * change from test to test).
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { tempConfigDir } from './run-cli.js';
import { type TestSandbox, withSandbox } from './sandbox.js';

export interface CliSuite {
  sb: TestSandbox;
  token: string;
  tmp: { dir: string; cleanup: () => void };
  /** SVC_CONFIG_DIR, SVC_BASE_URL and SVC_TOKEN of the current test, plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
}

export function cliSuite(): CliSuite {
  const suite: CliSuite = {
    sb: undefined as unknown as TestSandbox,
    token: '',
    tmp: { dir: '', cleanup: () => {} },
    env: (extra: Record<string, string> = {}) => ({
      SVC_CONFIG_DIR: suite.tmp.dir,
      SVC_BASE_URL: suite.sb.baseUrl,
      SVC_TOKEN: suite.token,
      ...extra,
    }),
  };
  beforeAll(async () => {
    suite.sb = await withSandbox();
  });
  afterAll(async () => {
    await suite.sb.close();
  });
  beforeEach(async () => {
    await suite.sb.admin.reset();
    suite.token = await suite.sb.tokenWithAllScopes();
    suite.tmp = tempConfigDir();
  });
  afterEach(() => suite.tmp.cleanup());
  return suite;
}
