import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { maskSecret, Redactor } from '../../src/store/redact.js';
import { CredentialStore } from '../../src/store/store.js';
import { fakeIO, tempConfigDir } from '../helpers/run-cli.js';

describe('redaction', () => {
  it('masks registered secrets, also URL-encoded', () => {
    const r = new Redactor();
    r.add('s3cr+t/with=chars');
    expect(r.redact('secret is s3cr+t/with=chars here')).toBe('secret is [REDACTED] here');
    expect(r.redact(`form: a=${encodeURIComponent('s3cr+t/with=chars')}`)).not.toContain('s3cr');
  });

  it('masks Authorization headers, form fields and JSON fields by pattern', () => {
    const r = new Redactor();
    expect(r.redact('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [REDACTED]');
    expect(r.redact('authorization=Basic dXNlcjpwYXNz')).not.toContain('dXNlcjpwYXNz');
    expect(r.redact('grant_type=client_credentials&client_secret=xyz123&client_id=app_1')).toBe(
      'grant_type=client_credentials&client_secret=[REDACTED]&client_id=app_1',
    );
    expect(r.redact('{"access_token": "tok_abc", "expires_in": 7200}')).toBe('{"access_token":"[REDACTED]", "expires_in": 7200}');
    expect(r.redact('x-service-integration-token: itk_123')).toBe('x-service-integration-token: [REDACTED]');
  });

  it('leaves prose about tokens alone', () => {
    const r = new Redactor();
    expect(r.redact('the bearer token is expired')).toBe('the bearer token is expired');
    expect(r.redact('Basic authentication failed')).toBe('Basic authentication failed');
    expect(r.redact('authorization: bearer tok_1234567890')).not.toContain('tok_1234567890');
  });

  it('masks secret-keyed values in objects', () => {
    const r = new Redactor();
    expect(r.redactObject({ client_id: 'app_1', client_secret: 'x', nested: { token: 't', ok: 1 } })).toEqual({
      client_id: 'app_1',
      client_secret: '[REDACTED]',
      nested: { token: '[REDACTED]', ok: 1 },
    });
  });

  it('ignores very short values so it does not mask ordinary words', () => {
    const r = new Redactor();
    r.add('ab');
    expect(r.redact('abc')).toBe('abc');
  });

  it('maskSecret shows at most 4 characters', () => {
    expect(maskSecret('tok_1234567890abcdef')).toBe('tok_********');
    expect(maskSecret('short')).toBe('********');
    expect(maskSecret(undefined)).toBe('');
  });
});

describe('the run owns its redactor', () => {
  it('secrets read from the store are masked in that run only', async () => {
    const cfg = tempConfigDir();
    try {
      new CredentialStore(cfg.dir).setProfile('default', { auth_method: 'api_token', api_token: 'tok_stored_0123456789' });
      const one = fakeIO();
      const run = createContext({ io: one.io, env: { SVC_CONFIG_DIR: cfg.dir }, flags: {} });
      (await run.store()).getProfile('default');
      run.log.warn('the token tok_stored_0123456789 leaked');
      expect(one.stderr()).toContain('the token [REDACTED] leaked');

      // Another run that never read the profile has learned nothing from the first one.
      const other = createContext({ io: fakeIO().io, env: { SVC_CONFIG_DIR: cfg.dir }, flags: {} });
      expect(other.redactor).not.toBe(run.redactor);
      expect(other.redactor.redact('tok_stored_0123456789')).toBe('tok_stored_0123456789');
    } finally {
      cfg.cleanup();
    }
  });
});
