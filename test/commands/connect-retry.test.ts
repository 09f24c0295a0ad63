/**
 * A service that cannot be reached is retried for seconds: after the first failure the CLI says
 * so on stderr (not with --json or --quiet, where only the final error is printed).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { fakeIO, tempConfigDir } from '../helpers/run-cli.js';

let cfg: { dir: string; cleanup: () => void };
let closedUrl: string;

beforeAll(async () => {
  cfg = tempConfigDir();
  // A port that was free a moment ago: nothing listens there, every connection is refused.
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  closedUrl = `http://127.0.0.1:${port}`;
});
afterAll(() => cfg.cleanup());

/** Runs svc with backoff waits of 0 (random() = 0), so the 8 attempts take milliseconds. */
async function svc(argv: string[]) {
  const f = fakeIO();
  const code = await main(argv, {
    io: f.io,
    env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: closedUrl, SVC_TOKEN: 'sk_test_token_1234' },
    random: () => 0,
  });
  return { code, stdout: f.stdout(), stderr: f.stderr() };
}

describe('a refused connection', () => {
  it('says that it cannot connect and is retrying, then fails naming the attempts', async () => {
    const r = await svc(['contacts', 'list']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`cannot connect to ${closedUrl} (connection refused); retrying (attempt 2 of 8)…`);
    expect(r.stderr).toMatch(/^error: GET \/v1\/contacts: connection refused after 8 attempts$/m);
    expect(r.stdout).toBe('');
  });

  it('with --json or --quiet only the error is printed', async () => {
    const json = await svc(['contacts', 'list', '--json']);
    expect(json.code).toBe(1);
    expect(json.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stderr).error.code).toBe('network_error');
    const quiet = await svc(['contacts', 'list', '--quiet']);
    expect(quiet.stderr).not.toContain('retrying');
    expect(quiet.stderr).toMatch(/^error: /);
  });
});
