/**
 * What a refusal of the credentials says to do depends on where they came from: the CI variables
 * (never "svc auth login"), the `sandbox` profile a reset deleted (how to get new ones), a login;
 * the same failure has the same error code whether it comes from a login or the environment; a
 * base URL whose path reaches no token endpoint is named as such rather than as its 415.
 */
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../src/store/store.js';
import { cliSuite } from '../helpers/cli-suite.js';

const fx = cliSuite({ reset: false, token: false });

const svc = fx.svc;

const errorOf = (stderr: string) => JSON.parse(stderr.trim().split('\n').at(-1) as string).error;

describe('credentials from the environment', () => {
  it('a wrong SVC_CLIENT_SECRET says to check SVC_CLIENT_ID/SVC_CLIENT_SECRET, not to log in again', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const r = await svc(['contacts', 'list'], { env: { SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: 'cs_wrong_secret_1234' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^hint: check SVC_CLIENT_ID and SVC_CLIENT_SECRET/m);
    expect(r.stderr).not.toContain('svc auth login');
  });

  it('a wrong SVC_TOKEN says to check SVC_TOKEN, not to log in again', async () => {
    const r = await svc(['contacts', 'list'], { env: { SVC_TOKEN: 'sk_not_a_real_token_1234' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^hint: check SVC_TOKEN/m);
    expect(r.stderr).not.toContain('svc auth login');
  });
});

describe('the same failure has the same code', () => {
  it('auth login --json and env credentials both give invalid_client for a wrong secret', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    const login = await svc(['auth', 'login', '--client-id', app.client_id, '--client-secret-stdin', '--json'], {
      stdin: 'cs_wrong_secret_1234',
    });
    const env = await svc(['contacts', 'list', '--json'], {
      env: { SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: 'cs_wrong_secret_1234' },
    });
    expect([login.code, env.code]).toEqual([3, 3]);
    expect(errorOf(login.stderr)).toMatchObject({ code: 'invalid_client', status: 401 });
    expect(errorOf(env.stderr).code).toBe('invalid_client');
  });

  it('auth login --with-token --json and SVC_TOKEN both give the service code for a wrong token', async () => {
    const login = await svc(['auth', 'login', '--with-token', '--json'], { stdin: 'sk_not_a_real_token_1234' });
    const env = await svc(['contacts', 'list', '--json'], { env: { SVC_TOKEN: 'sk_not_a_real_token_1234' } });
    expect([login.code, env.code]).toEqual([3, 3]);
    expect(errorOf(env.stderr).code).toBe('unauthorized');
    expect(errorOf(login.stderr).code).toBe('unauthorized');
  });
});

describe('a base URL with a wrong path during a client-credentials login', () => {
  it('asks whether the base URL is right instead of surfacing the 415, and saves nothing', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read']);
    for (const path of ['/v1', '/api']) {
      const r = await svc(
        ['auth', 'login', '--base-url', `${fx.sb.baseUrl}${path}`, '--client-id', app.client_id, '--client-secret-stdin'],
        {
          stdin: app.client_secret,
        },
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`error: no token endpoint at ${fx.sb.baseUrl}${path}/oauth/token`);
      expect(r.stderr).toMatch(/nothing was saved/);
      expect(r.stderr).toContain(`hint: is the base URL right? It is the service's root, perhaps without ${path}`);
    }
    expect((await svc(['auth', 'status', '--json'])).code).toBe(3);
    // The same base URL from the environment gets the same question.
    const env = await svc(['contacts', 'list'], {
      env: { SVC_BASE_URL: `${fx.sb.baseUrl}/v1`, SVC_CLIENT_ID: app.client_id, SVC_CLIENT_SECRET: app.client_secret },
    });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/^hint: is the base URL right\?/m);
  });
});

describe('the `sandbox` profile after `svc sandbox reset`', () => {
  it('says the sandbox was reset and how to get new credentials; reset --seed makes and saves them', async () => {
    const app = await fx.sb.admin.createApp(['contacts_read', 'contacts_write']);
    new CredentialStore(fx.tmp.dir).setProfile('sandbox', {
      base_url: fx.sb.baseUrl,
      auth_method: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    const env = { SVC_BASE_URL: undefined };
    expect((await svc(['--profile', 'sandbox', 'contacts', 'list'], { env })).code).toBe(0);

    const reset = await svc(['sandbox', 'reset'], { env });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stderr).toMatch(/the `sandbox` profile's credentials were deleted too: `svc sandbox reset --seed`/);

    const after = await svc(['--profile', 'sandbox', 'contacts', 'list'], { env });
    expect(after.code).toBe(3);
    expect(after.stderr).toMatch(/^hint: the sandbox at \S+ no longer knows the `sandbox` profile's credentials: it was reset/m);
    expect(after.stderr).toContain('`svc sandbox reset --seed`');
    expect(after.stderr).not.toMatch(/check the client id and secret/);

    const seeded = await svc(['sandbox', 'reset', '--seed', '--json'], { env });
    expect(seeded.code, seeded.stderr).toBe(0);
    const doc = JSON.parse(seeded.stdout);
    expect(doc).toMatchObject({ status: 'reset', base_url: fx.sb.baseUrl, profile: 'sandbox' });
    expect(doc.seed.api_token).toMatch(/^sk_/);
    expect(seeded.stderr).toBe('');
    const again = await svc(['--profile', 'sandbox', 'contacts', 'list'], { env });
    expect(again.code, again.stderr).toBe(0);
    // The API token it printed works too (a CI job exports it as SVC_TOKEN).
    expect((await svc(['contacts', 'list'], { env: { SVC_TOKEN: doc.seed.api_token } })).code).toBe(0);
  });

  it('reset --seed is refused with --sandbox (the embedded sandbox makes its own credentials)', async () => {
    const r = await svc(['--sandbox', 'sandbox', 'reset', '--seed']);
    expect(r.code).toBe(2);
  });
});
