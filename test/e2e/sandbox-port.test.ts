/**
 * A sandbox that keeps its address (issue 36): `svc sandbox start` without --port listens on the
 * port its profile names (so the profile stays valid across restarts), a new one on the documented
 * default; when that port is held by another program it moves, moves the profiles that pointed at
 * the old address, and says so; --port (0 too) always wins. A command whose seeded profile names a
 * sandbox that is not running says so at once, without the client's connection retries.
 * Spawned processes of the built CLI.
 */
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX_PORT } from '../../src/commands/sandbox/start-port.js';
import { CredentialStore } from '../../src/store/store.js';
import { probeListening } from '../../src/util/tcp-probe.js';
import { built, spawnSvc, useRunningSvc } from '../helpers/spawn-cli.js';

const svc = useRunningSvc();

interface StartLine {
  base_url: string;
  port: number;
  profile?: string;
}

async function started(args: string[]) {
  const child = svc.start(['sandbox', 'start', '--json', ...args], { SVC_PROFILE: '' });
  return { child, line: JSON.parse(await child.firstLine(30_000)) as StartLine };
}

const run = (args: string[]) => spawnSvc(args, { HOME: process.env.HOME ?? '', SVC_CONFIG_DIR: svc.cfg.dir, SVC_DATA_DIR: '' });

function occupy(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe.skipIf(!built)('sandbox start keeps its address', () => {
  it('a restart without --port takes the seeded profile’s port again, and the profile keeps working', async () => {
    const first = await started(['--port', '0', '--seed']);
    expect(first.line.profile).toBe('sandbox');
    expect(await first.child.stop()).toBe(0);

    const again = await started([]);
    expect(again.line.base_url).toBe(first.line.base_url);
    expect(again.child.stderr()).not.toContain('moved');
    const list = await run(['--profile', 'sandbox', 'contacts', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(new CredentialStore(svc.cfg.dir).getProfile('sandbox')?.base_url).toBe(first.line.base_url);
  }, 90_000);

  it('its port held by another program: it moves, moves the profiles pointing there and says so', async () => {
    const first = await started(['--port', '0', '--seed']);
    const old = first.line.base_url;
    new CredentialStore(svc.cfg.dir).setProfile('default', {
      base_url: old,
      auth_method: 'api_token',
      api_token: first.line.profile ?? 'x',
    });
    expect(await first.child.stop()).toBe(0);
    const blocker = await occupy(first.line.port);
    try {
      const moved = await started([]);
      expect(moved.line.port).not.toBe(first.line.port);
      await moved.child.stderrShows('now point at');
      expect(moved.child.stderr()).toContain(
        `warning: port ${first.line.port} is in use by another program: the sandbox moved to ${moved.line.base_url}; profiles \`default\`, \`sandbox\` now point at ${moved.line.base_url}`,
      );
      const store = new CredentialStore(svc.cfg.dir);
      expect(store.getProfile('sandbox')?.base_url).toBe(moved.line.base_url);
      expect(store.getProfile('default')?.base_url).toBe(moved.line.base_url);
      const list = await run(['--profile', 'sandbox', 'contacts', 'list', '--json']);
      expect(list.code, list.stderr).toBe(0);
    } finally {
      blocker.close();
    }
  }, 90_000);

  it('an explicit --port 0 wins over the profile’s port; a second sandbox on a taken port leaves the profiles to the first', async () => {
    const first = await started(['--port', '0', '--seed', '--memory']);
    const second = await started(['--memory']);
    expect(second.line.port).not.toBe(first.line.port);
    await second.child.stderrShows('taken by another running sandbox');
    expect(new CredentialStore(svc.cfg.dir).getProfile('sandbox')?.base_url).toBe(first.line.base_url);
    expect(await first.child.stop()).toBe(0);
    // The `sandbox` profile's port is free now, but --port 0 asks for any free port.
    const third = await started(['--port', '0', '--memory']);
    expect(third.line.port).not.toBe(first.line.port);
    expect(third.child.stderr()).toBe('');
    expect(new CredentialStore(svc.cfg.dir).getProfile('sandbox')?.base_url).toBe(first.line.base_url);
  }, 90_000);

  it(`a new sandbox with no profile listens on the default port ${DEFAULT_SANDBOX_PORT}`, async (ctx) => {
    // Another program (another checkout's tests) may hold it on a shared machine: then nothing to check.
    if ((await probeListening('127.0.0.1', DEFAULT_SANDBOX_PORT)) !== 'refused') ctx.skip();
    const first = await started(['--memory']);
    expect(first.line.base_url).toBe(`http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`);
  }, 60_000);

  it('a seeded profile whose sandbox is not running: said at once, no retries', async () => {
    const first = await started(['--port', '0', '--seed']);
    expect(await first.child.stop()).toBe(0);
    const t0 = Date.now();
    const list = await run(['--profile', 'sandbox', 'contacts', 'list']);
    const took = Date.now() - t0;
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`error: the sandbox at ${first.line.base_url} is not running: start it with \`svc sandbox start\``);
    expect(list.stderr).toContain('hint: `svc sandbox start` listens at that address again');
    expect(list.stderr).not.toContain('retrying');
    // Eight connection attempts took some 10 s; one refused connection takes milliseconds (+ start-up).
    expect(took).toBeLessThan(5_000);
  }, 60_000);
});
