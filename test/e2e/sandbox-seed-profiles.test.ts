/**
 * `svc sandbox start --seed` never replaces a profile silently (issue 30): two sandboxes started
 * with --seed on one config folder get `sandbox` and `sandbox-2`, and both keep working; a
 * `sandbox` profile whose sandbox is gone is reused; `--profile NAME` chooses. Spawned processes
 * (real pipes, real signals). Needs `node build.mjs` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { root } from '../helpers/spawn-cli.js';

const built = existsSync(`${root}/dist/main.js`);
const children: ChildProcess[] = [];
let cfg: ReturnType<typeof tempConfigDir> | undefined;

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  cfg?.cleanup();
});

interface StartLine {
  base_url: string;
  profile: string;
}

/** Starts `svc [global] sandbox start --seed --memory --json` and resolves with its JSON line and stderr so far. */
function startSeeded(dir: string, global: string[] = []): Promise<{ line: StartLine; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, ['bin/svc.js', ...global, 'sandbox', 'start', '--port', '0', '--memory', '--json', '--seed'], {
    cwd: root,
    env: { ...process.env, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: '', SVC_PROFILE: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no JSON line within 15 s; stderr: ${err}`)), 15_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({ line: JSON.parse(buf.slice(0, nl)) as StartLine, child, stderr: () => err });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe.skipIf(!built)('sandbox start --seed and the profiles it saves', () => {
  it('twice: `sandbox` then `sandbox-2`, both working; a gone sandbox frees its profile; --profile chooses', async () => {
    cfg = tempConfigDir();
    const env = { SVC_CONFIG_DIR: cfg.dir };
    const first = await startSeeded(cfg.dir);
    const second = await startSeeded(cfg.dir);
    expect(first.line.profile).toBe('sandbox');
    expect(second.line.profile).toBe('sandbox-2');
    const pairs: Array<[string, string]> = [
      ['sandbox', first.line.base_url],
      ['sandbox-2', second.line.base_url],
    ];
    for (const [name, url] of pairs) {
      const created = await runCli(['--profile', name, 'contacts', 'create', '--email', `${name}@example.com`, '--json'], { env });
      expect(created.code, created.stderr).toBe(0);
      const status = await runCli(['--profile', name, 'auth', 'status', '--json'], { env });
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout).base_url).toBe(url);
    }

    // The first sandbox stops: the next seed takes its `sandbox` profile back, sandbox-2 stays.
    await stop(first.child);
    const third = await startSeeded(cfg.dir);
    expect(third.line.profile).toBe('sandbox');
    const store = new CredentialStore(cfg.dir);
    expect(store.getProfile('sandbox')?.base_url).toBe(third.line.base_url);
    expect(store.getProfile('sandbox-2')?.base_url).toBe(second.line.base_url);
    const again = await runCli(['--profile', 'sandbox-2', 'contacts', 'list', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);

    // A profile named on the command line is the one written, whatever exists.
    const named = await startSeeded(cfg.dir, ['--profile', 'local']);
    expect(named.line.profile).toBe('local');
    expect(new CredentialStore(cfg.dir).getProfile('local')?.base_url).toBe(named.line.base_url);
  }, 60_000);

  it('a person is told which profile was written and why not `sandbox`', async () => {
    cfg = tempConfigDir();
    new CredentialStore(cfg.dir).setProfile('sandbox', {
      base_url: 'https://api.example.com',
      auth_method: 'api_token',
      api_token: 'x'.repeat(20),
    });
    const child = spawn(process.execPath, ['bin/svc.js', 'sandbox', 'start', '--port', '0', '--memory', '--seed'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG_DIR: cfg.dir, SVC_DATA_DIR: '', SVC_PROFILE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let err = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no saved-profile line: ${err}`)), 15_000);
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString('utf8');
        if (err.includes('press Ctrl-C')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(err).toContain('saved profile `sandbox-2` (`sandbox` still points at a running sandbox or another service: kept)');
    expect(new CredentialStore(cfg.dir).getProfile('sandbox')?.base_url).toBe('https://api.example.com');
    await stop(child);
  }, 30_000);
});
