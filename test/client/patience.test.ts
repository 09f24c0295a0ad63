/**
 * Patience with silence (issue 36: "waits with no end in sight"): a service, a forward proxy or a
 * CONNECT proxy that takes the connection and never answers held `contacts list` for 495 s and
 * more. A list, get or single write now fails once its patience passes with no answer at all,
 * naming whom it waited for, and says so while it waits. The tests only wait: they run side by
 * side, each with its own silent server (one config folder for the file: the token comes from
 * the environment).
 */
import { describe, expect, it } from 'vitest';
import { type Cleanup, type RawServer, rawServer } from '../helpers/raw-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/tmp.js';

const cfg = useTempDir('file');

/**
 * Runs `body` with a server that reads requests (plain, absolute-form through it as a proxy, or
 * CONNECT) and never answers; the server is closed after it.
 */
async function withSilent(body: (server: RawServer) => Promise<void>): Promise<void> {
  const cleanups: Cleanup[] = [];
  try {
    await body(await rawServer(() => null, cleanups));
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}

describe.concurrent('a call that gets no answer', () => {
  it('fails after SVC_REQUEST_PATIENCE with "no answer from ORIGIN", exit 1', () =>
    withSilent(async (server) => {
      const started = Date.now();
      const r = await runCli(['contacts', 'list'], {
        env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: server.origin, SVC_TOKEN: 'tok_not_real', SVC_REQUEST_PATIENCE: '2' },
      });
      const took = Date.now() - started;
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no answer from ${server.origin} after 2 s`);
      expect(took).toBeLessThan(15_000);
      expect(server.requests()).toBeGreaterThanOrEqual(1);
    }));

  it('a single write that may have been applied says so', () =>
    withSilent(async (server) => {
      const r = await runCli(['events', 'send', '--type', 't', '--email', 'a@x.test'], {
        env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: server.origin, SVC_TOKEN: 'tok_not_real', SVC_REQUEST_PATIENCE: '2' },
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`no answer from ${server.origin} after 2 s; the service may have applied it`);
    }));

  it('through a forward proxy that never answers: names the proxy, without its credentials', () =>
    withSilent(async (proxy) => {
      const r = await runCli(['contacts', 'list', '--insecure'], {
        env: {
          SVC_CONFIG_DIR: cfg.dir,
          SVC_BASE_URL: 'http://api.service.test',
          SVC_TOKEN: 'tok_not_real',
          SVC_REQUEST_PATIENCE: '2',
          HTTP_PROXY: `http://alice:s3cret-pw@127.0.0.1:${proxy.port}`,
        },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no answer from http://api.service.test through http://127.0.0.1:${proxy.port} after 2 s`);
      expect(r.stderr).not.toContain('alice');
      expect(r.stderr).not.toContain('s3cret');
    }));

  it('through a CONNECT proxy that never opens the tunnel', () =>
    withSilent(async (proxy) => {
      const started = Date.now();
      const r = await runCli(['contacts', 'list'], {
        env: {
          SVC_CONFIG_DIR: cfg.dir,
          SVC_BASE_URL: 'https://api.service.test',
          SVC_TOKEN: 'tok_not_real',
          SVC_REQUEST_PATIENCE: '3',
          HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`,
        },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no answer from https://api.service.test through http://127.0.0.1:${proxy.port} after 3 s`);
      expect(Date.now() - started).toBeLessThan(20_000);
    }));

  it(
    'says it is still waiting, every 10 s, to a person',
    () =>
      withSilent(async (server) => {
        const r = await runCli(['contacts', 'list'], {
          env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: server.origin, SVC_TOKEN: 'tok_not_real', SVC_REQUEST_PATIENCE: '11' },
          tty: true,
        });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`no answer from ${server.origin} after 10 s; waiting up to 11 s (Ctrl-C to stop)`);
        expect(r.stderr).toContain(`no answer from ${server.origin} after 11 s`);
      }),
    40_000,
  );
});
