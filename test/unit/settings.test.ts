import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/main.js';
import { SettingsError } from '../../src/store/errors.js';
import { pick, resolveBaseUrl, resolveSettings, validateBaseUrl } from '../../src/store/settings.js';

describe('settings precedence: flag > env > profile > default', () => {
  it('profile: flag beats env beats default', () => {
    expect(resolveSettings({ profile: 'a' }, { SVC_PROFILE: 'b' })).toMatchObject({ profile: 'a', profileSource: 'flag' });
    expect(resolveSettings({}, { SVC_PROFILE: 'b' })).toMatchObject({ profile: 'b', profileSource: 'env' });
    expect(resolveSettings({}, {})).toMatchObject({ profile: 'default', profileSource: 'default' });
  });

  it('an empty environment variable counts as unset', () => {
    expect(resolveSettings({}, { SVC_PROFILE: '' }).profile).toBe('default');
    expect(resolveBaseUrl({}, { SVC_BASE_URL: '' }, { base_url: 'https://p.example' })).toEqual({
      value: 'https://p.example',
      source: 'profile',
    });
    expect(resolveSettings({}, { SVC_DEBUG: '' }).debug).toBe(false);
  });

  it('base URL: flag > env > profile', () => {
    const profile = { base_url: 'https://profile.example' };
    expect(resolveBaseUrl({ baseUrl: 'https://flag.example' }, { SVC_BASE_URL: 'https://env.example' }, profile).value).toBe(
      'https://flag.example',
    );
    expect(resolveBaseUrl({}, { SVC_BASE_URL: 'https://env.example' }, profile)).toEqual({ value: 'https://env.example', source: 'env' });
    expect(resolveBaseUrl({}, {}, profile).source).toBe('profile');
    expect(resolveBaseUrl({}, {}, undefined)).toEqual({ value: undefined, source: 'default' });
  });

  it('pick falls back to the default', () => {
    expect(pick(undefined, undefined, undefined, 7)).toEqual({ value: 7, source: 'default' });
    expect(pick(undefined, 2, 3, 7)).toEqual({ value: 2, source: 'env' });
  });

  it('boolean env vars: SVC_SANDBOX=1, SVC_DEBUG=1, NO_COLOR', () => {
    expect(resolveSettings({}, { SVC_SANDBOX: '1', SVC_DEBUG: '1', NO_COLOR: '1' })).toMatchObject({
      sandbox: true,
      debug: true,
      color: false,
    });
    expect(resolveSettings({}, { SVC_SANDBOX: '0' }).sandbox).toBe(false);
    expect(resolveSettings({ color: false }, {}).color).toBe(false);
  });

  it('max retry wait: flag > env > 120 s', () => {
    expect(resolveSettings({}, {}).maxRetryWaitMs).toBe(120_000);
    expect(resolveSettings({}, { SVC_MAX_RETRY_WAIT: '30' }).maxRetryWaitMs).toBe(30_000);
    expect(resolveSettings({ maxRetryWait: '2m' }, { SVC_MAX_RETRY_WAIT: '30' }).maxRetryWaitMs).toBe(120_000);
    expect(() => resolveSettings({ maxRetryWait: 'soon' }, {})).toThrow(SettingsError);
  });
});

describe('base URL validation', () => {
  it('allows https anywhere and http on loopback', () => {
    expect(validateBaseUrl('https://api.example.com/', false)).toBe('https://api.example.com');
    expect(validateBaseUrl('http://127.0.0.1:4010', false)).toBe('http://127.0.0.1:4010');
    expect(validateBaseUrl('http://localhost:4010', false)).toBe('http://localhost:4010');
    expect(validateBaseUrl('http://[::1]:4010', false)).toBe('http://[::1]:4010');
  });

  it('refuses plain http to other hosts unless --insecure', () => {
    expect(() => validateBaseUrl('http://api.example.com', false)).toThrow(/refusing plain http/);
    expect(validateBaseUrl('http://api.example.com', true)).toBe('http://api.example.com');
  });

  it('refuses credentials in the URL and odd schemes', () => {
    expect(() => validateBaseUrl('https://user:pw@api.example.com', false)).toThrow(/must not contain credentials/);
    expect(() => validateBaseUrl('ftp://api.example.com', false)).toThrow(SettingsError);
    expect(() => validateBaseUrl('not a url', false)).toThrow(SettingsError);
  });

  it('a settings error is a usage error for the CLI (exit 2, code usage, its hint)', () => {
    let err: unknown;
    try {
      validateBaseUrl('https://user:pw@api.example.com', false);
    } catch (e) {
      err = e;
    }
    expect(describeError(err)).toEqual({
      exitCode: 2,
      code: 'usage',
      message: 'the base URL must not contain credentials',
      hint: 'use `svc auth login` or the SVC_TOKEN / SVC_CLIENT_ID / SVC_CLIENT_SECRET variables',
    });
  });
});
