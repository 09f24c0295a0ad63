import { describe, expect, it } from 'vitest';
import { basicAuthorization, ClientCredentialsProvider, formEncode, renewalMargin, tokenRequest } from '../../src/client/auth.js';

const silent = { debug() {}, warn() {} };

describe('client authentication encoding', () => {
  it('form-encodes id and secret before Base64 (RFC 6749 §2.3.1)', () => {
    const secret = 'a+b/c:d=e%f g&h';
    expect(formEncode(secret)).toBe('a%2Bb%2Fc%3Ad%3De%25f+g%26h');
    const header = basicAuthorization('app_1', secret);
    const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
    const [id, enc] = decoded.split(':');
    expect(id).toBe('app_1');
    expect(decoded.split(':')).toHaveLength(2);
    expect(new URLSearchParams(`s=${enc}`).get('s')).toBe(secret);
  });

  it('sends the secret in the form by default and only in the header with basic', () => {
    const post = tokenRequest({ clientId: 'app_1', clientSecret: 's3cr+t', scopes: ['contacts_read', 'orders_write'] });
    const form = new URLSearchParams(post.form);
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.get('client_secret')).toBe('s3cr+t');
    expect(form.get('scope')).toBe('contacts_read orders_write');
    expect(post.headers.authorization).toBeUndefined();
    const basic = tokenRequest({ clientId: 'app_1', clientSecret: 's3cr+t', clientAuth: 'basic' });
    expect(basic.form).not.toContain('s3cr');
    expect(basic.form).not.toContain('client_id');
    expect(basic.headers.authorization).toMatch(/^Basic /);
  });

  it('renews a tenth of the lifetime early, at most a minute', () => {
    expect(renewalMargin(2000)).toBe(200);
    expect(renewalMargin(7_200_000)).toBe(60_000);
  });
});

describe('ClientCredentialsProvider (injected clock and exchange)', () => {
  it('reads expires_in given as a string and scope given as an array (other services do)', async () => {
    const now = 5_000_000;
    const p = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'a', clientSecret: 'sssss' },
      async () => ({ access_token: 'tokS', token_type: 'Bearer', expires_in: '7200', scope: ['contacts_read', 'orders_write'] }),
      silent,
      () => now,
    );
    expect(await p.get()).toBe('tokS');
    expect(p.expiresAt()).toBe(now + 7_200_000);
    expect(p.grantedScopes()).toEqual(['contacts_read', 'orders_write']);
  });

  it('shares one renewal between concurrent callers and renews ahead of expiry', async () => {
    let now = 1_000_000;
    let calls = 0;
    const exchange = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 10));
      return { access_token: `tok${calls}`, token_type: 'Bearer', expires_in: 10, scope: 'contacts_read', created_at: 0 };
    };
    const p = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'a', clientSecret: 'sssss' },
      exchange,
      silent,
      () => now,
    );
    const tokens = await Promise.all(Array.from({ length: 20 }, () => p.get()));
    expect(new Set(tokens)).toEqual(new Set(['tok1']));
    expect(calls).toBe(1);
    now += 8_900; // before expiry minus 1 s margin
    expect(p.current()).toBe('tok1');
    now += 200; // within the margin
    expect(p.current()).toBeUndefined();
    expect(await p.get()).toBe('tok2');
    expect(p.grantedScopes()).toEqual(['contacts_read']);
  });

  it('renews once after a 401 and lets late callers reuse the newer token', async () => {
    let calls = 0;
    const exchange = async () => ({ access_token: `tok${++calls}`, expires_in: 3600, scope: 'contacts_read' });
    const p = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'a', clientSecret: 'sssss' },
      exchange,
      silent,
      () => 0,
    );
    const first = await p.get();
    const [a, b] = await Promise.all([p.renewAfterUnauthorized(first), p.renewAfterUnauthorized(first)]);
    expect(a).toBe('tok2');
    expect(b).toBe('tok2');
    expect(calls).toBe(2);
    expect(await p.renewAfterUnauthorized(first)).toBe('tok2');
    expect(calls).toBe(2);
  });

  it('warns once when fewer scopes were granted than requested', async () => {
    const warnings: string[] = [];
    const exchange = async () => ({ access_token: 't', expires_in: 1, scope: 'contacts_read' });
    const p = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'a', clientSecret: 'sssss', scopes: ['contacts_read', 'orders_write'] },
      exchange,
      { debug() {}, warn: (m) => warnings.push(m) },
      () => 0,
    );
    await p.get();
    await p.renewAfterUnauthorized('t');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('missing orders_write');
  });

  it('adopts a token another process stored instead of renewing', async () => {
    let stored = { accessToken: 'old', expiresAt: 500, issuedAt: 0 };
    let calls = 0;
    const cache = {
      load: () => stored,
      save: (t: typeof stored) => {
        stored = t;
      },
    };
    const now = 1000;
    const p = new ClientCredentialsProvider(
      { kind: 'client_credentials', clientId: 'a', clientSecret: 'sssss', cache },
      async () => ({ access_token: `new${++calls}`, expires_in: 100 }),
      silent,
      () => now,
    );
    expect(p.current()).toBeUndefined();
    stored = { accessToken: 'other-process', expiresAt: 100_000, issuedAt: 900 };
    expect(await p.get()).toBe('other-process');
    expect(calls).toBe(0);
  });
});
