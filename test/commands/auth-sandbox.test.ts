/**
 * --sandbox: the embedded sandbox starts in-process, credentials are created on first use and
 * remembered, and its data persists in the data folder between runs.
 */
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/tmp.js';

const cfg = useTempDir('file');

describe('--sandbox', () => {
  it('needs no login, remembers its credentials and keeps its data between runs', async () => {
    const env = { SVC_CONFIG_DIR: cfg.dir };
    const first = await runCli(['contacts', 'create', '--email', 'embedded@example.com', '--json', '--sandbox'], { env });
    expect(first.code, first.stderr).toBe(0);
    const created = JSON.parse(first.stdout);

    const status1 = JSON.parse((await runCli(['auth', 'status', '--json', '--profile', 'embedded-sandbox'], { env })).stdout);
    expect(status1).toMatchObject({ profile: 'embedded-sandbox', method: 'client_credentials', credentials_source: 'profile' });

    const second = await runCli(['contacts', 'get', created.id, '--json'], { env: { ...env, SVC_SANDBOX: '1' } });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).email).toBe('embedded@example.com');

    const sandboxStatus = await runCli(['auth', 'status', '--json', '--sandbox'], { env });
    expect(sandboxStatus.code, sandboxStatus.stderr).toBe(0);
    expect(JSON.parse(sandboxStatus.stdout)).toMatchObject({
      profile: 'embedded-sandbox',
      method: 'client_credentials',
      client_id: status1.client_id,
      scopes: ['contacts_read', 'contacts_write', 'events_write', 'orders_write'],
    });

    const human = await runCli(['auth', 'status', '--sandbox'], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^profile\s+embedded-sandbox \(--sandbox: the embedded sandbox\)$/m);
    expect(human.stdout).not.toContain('SVC_PROFILE');

    const token = await runCli(['auth', 'token', '--sandbox'], { env });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim().length).toBeGreaterThan(10);
  });

  it("ignores a profile's and the environment's integration token: they belong to another service", async () => {
    const env = { SVC_CONFIG_DIR: cfg.dir };
    new CredentialStore(cfg.dir).setProfile('sandbox', {
      base_url: 'http://127.0.0.1:9',
      integration_token: 'sit_not_of_this_sandbox_0123456789',
    });
    const upsert = (orderId: string) => [
      'orders',
      'upsert',
      '--order-id',
      orderId,
      '--total',
      '1',
      '--currency',
      'EUR',
      '--order-date',
      '2024-03-01',
      '--email',
      'sb@example.com',
      '--json',
    ];
    const viaProfile = await runCli(['--sandbox', '--profile', 'sandbox', ...upsert('SB-1')], { env });
    expect(viaProfile.code, viaProfile.stderr).toBe(0);
    expect(JSON.parse(viaProfile.stdout)).toMatchObject({ outcome: 'created' });
    const viaEnv = await runCli(['--sandbox', ...upsert('SB-2')], {
      env: { ...env, SVC_INTEGRATION_TOKEN: 'sit_not_of_this_sandbox_0123456789' },
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout)).toMatchObject({ outcome: 'created' });
  });
});
