/**
 * `svc sandbox start --seed` never replaces a profile silently (issue 30): two sandboxes started
 * with --seed on one config folder get `sandbox` and `sandbox-2`, and both keep working; a
 * `sandbox` profile whose sandbox is gone is reused; `--profile NAME` chooses. Spawned processes
 * (real pipes, real signals). Needs `node build.mjs` first.
 */
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { runCli } from '../helpers/run-cli.js';
import { built, type RunningSvc, useRunningSvc } from '../helpers/spawn-cli.js';

const svc = useRunningSvc();

interface StartLine {
  base_url: string;
  profile: string;
}

/** Starts `svc [global] sandbox start --seed --memory --json` and resolves with its JSON line. */
async function startSeeded(global: string[] = []): Promise<{ line: StartLine; child: RunningSvc }> {
  const child = svc.start([...global, 'sandbox', 'start', '--port', '0', '--memory', '--json', '--seed'], { SVC_PROFILE: '' });
  return { line: JSON.parse(await child.firstLine()) as StartLine, child };
}

describe.skipIf(!built)('sandbox start --seed and the profiles it saves', () => {
  it('twice: `sandbox` then `sandbox-2`, both working; a gone sandbox frees its profile; --profile chooses', async () => {
    const cfg = svc.cfg;
    const env = { SVC_CONFIG_DIR: cfg.dir };
    const first = await startSeeded();
    const second = await startSeeded();
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
    await first.child.stop();
    const third = await startSeeded();
    expect(third.line.profile).toBe('sandbox');
    const store = new CredentialStore(cfg.dir);
    expect(store.getProfile('sandbox')?.base_url).toBe(third.line.base_url);
    expect(store.getProfile('sandbox-2')?.base_url).toBe(second.line.base_url);
    const again = await runCli(['--profile', 'sandbox-2', 'contacts', 'list', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);

    // A profile named on the command line is the one written, whatever exists.
    const named = await startSeeded(['--profile', 'local']);
    expect(named.line.profile).toBe('local');
    expect(new CredentialStore(cfg.dir).getProfile('local')?.base_url).toBe(named.line.base_url);
  }, 60_000);

  it('a person is told which profile was written and why not `sandbox`', async () => {
    const cfg = svc.cfg;
    new CredentialStore(cfg.dir).setProfile('sandbox', {
      base_url: 'https://api.example.com',
      auth_method: 'api_token',
      api_token: 'x'.repeat(20),
    });
    const child = svc.start(['sandbox', 'start', '--port', '0', '--memory', '--seed'], { SVC_PROFILE: '' });
    await child.stderrShows('press Ctrl-C');
    const err = child.stderr();
    expect(err).toContain('saved profile `sandbox-2` (`sandbox` still points at a running sandbox or another service: kept)');
    expect(new CredentialStore(cfg.dir).getProfile('sandbox')?.base_url).toBe('https://api.example.com');
    await child.stop();
  }, 30_000);
});
