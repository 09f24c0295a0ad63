import { describe, expect, it } from 'vitest';
import { classifyNetworkError } from '../../src/client/network.js';
import { parseScopeList, resolveCredentials } from '../../src/store/credentials.js';

describe('resolveCredentials: SVC_TOKEN > SVC_CLIENT_ID/SECRET > profile', () => {
  const profile = {
    auth_method: 'client_credentials' as const,
    client_id: 'app_p',
    client_secret: 'profile-secret',
    requested_scopes: ['contacts_read'],
  };

  it('SVC_TOKEN wins over everything', () => {
    const r = resolveCredentials({ SVC_TOKEN: 'tok_env_123', SVC_CLIENT_ID: 'a', SVC_CLIENT_SECRET: 'b' }, profile);
    expect(r).toMatchObject({ method: 'api_token', source: 'env', token: 'tok_env_123' });
  });

  it('env client credentials win over the profile, with optional scopes and Basic', () => {
    const r = resolveCredentials(
      { SVC_CLIENT_ID: 'app_e', SVC_CLIENT_SECRET: 'env-secret', SVC_SCOPES: 'contacts_read,orders_write', SVC_CLIENT_AUTH: 'basic' },
      profile,
    );
    expect(r).toMatchObject({
      method: 'client_credentials',
      source: 'env',
      clientId: 'app_e',
      clientAuth: 'basic',
      scopes: ['contacts_read', 'orders_write'],
    });
  });

  it('empty variables count as unset', () => {
    const r = resolveCredentials({ SVC_TOKEN: '', SVC_CLIENT_ID: '', SVC_CLIENT_SECRET: '' }, profile);
    expect(r).toMatchObject({
      method: 'client_credentials',
      source: 'profile',
      clientId: 'app_p',
      clientAuth: 'post',
      scopes: ['contacts_read'],
    });
  });

  it('half of the env pair is a usage error; no credentials at all is undefined', () => {
    expect(() => resolveCredentials({ SVC_CLIENT_ID: 'app_e' }, undefined)).toThrow(/SVC_CLIENT_SECRET is not/);
    expect(resolveCredentials({}, undefined)).toBeUndefined();
    expect(resolveCredentials({}, { base_url: 'https://x' })).toBeUndefined();
  });

  it('reads an API token profile', () => {
    expect(resolveCredentials({}, { auth_method: 'api_token', api_token: 'tok_profile' })).toMatchObject({
      method: 'api_token',
      source: 'profile',
    });
  });

  it('parses scope lists with spaces or commas, dropping duplicates', () => {
    expect(parseScopeList('contacts_read, orders_write  contacts_read')).toEqual(['contacts_read', 'orders_write']);
    expect(parseScopeList(' ')).toBeUndefined();
  });
});

describe('classifyNetworkError', () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  it('tells "certainly not sent" from "may have been applied"', () => {
    expect(classifyNetworkError(err('ECONNREFUSED'))).toEqual({ kind: 'refused', sent: false });
    expect(classifyNetworkError(err('UND_ERR_CONNECT_TIMEOUT'))).toEqual({ kind: 'timeout', sent: false });
    expect(classifyNetworkError(err('ENOTFOUND'))).toEqual({ kind: 'dns', sent: false });
    expect(classifyNetworkError(err('UND_ERR_SOCKET'))).toEqual({ kind: 'reset', sent: true });
    expect(classifyNetworkError(err('ECONNRESET'))).toEqual({ kind: 'reset', sent: true });
    expect(classifyNetworkError(err('UND_ERR_HEADERS_TIMEOUT'))).toEqual({ kind: 'timeout', sent: true });
    expect(classifyNetworkError(err('CERT_HAS_EXPIRED'))).toEqual({ kind: 'tls', sent: false });
    expect(classifyNetworkError(new Error('weird'))).toEqual({ kind: 'other', sent: true });
  });
  it('reads the code of an AggregateError (happy eyeballs)', () => {
    const agg = Object.assign(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')]), {});
    expect(classifyNetworkError(agg)).toEqual({ kind: 'refused', sent: false });
  });
});
