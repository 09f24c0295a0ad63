import { describe, expect, it } from 'vitest';
import { ApiError, CredentialsError, MissingScopeError, NetworkError, RetryWaitTooLongError } from '../../src/client/errors.js';
import { AuthError, Interrupted, PartialFailure, UsageError, ValidationError } from '../../src/errors.js';
import { InputError } from '../../src/importer/errors.js';
import { describeError, printError } from '../../src/main.js';
import { SettingsError, StoreError } from '../../src/store/errors.js';
import { Redactor } from '../../src/store/redact.js';
import { fakeIO } from '../helpers/run-cli.js';

describe('error → exit code', () => {
  it.each([
    ['usage', new UsageError('bad flag'), 2],
    ['bulk input', new InputError('no such file: a.csv'), 2],
    ['validation', new ValidationError('bad field', { field: 'email' }), 2],
    ['auth', new AuthError('not logged in'), 3],
    ['partial', new PartialFailure('2 rows failed'), 4],
    ['interrupted', new Interrupted(), 130],
    ['401', new ApiError({ status: 401, code: 'unauthorized', message: 'no' }), 3],
    ['invalid_client', new ApiError({ status: 401, code: 'invalid_client', message: 'no' }), 3],
    ['invalid_scope', new ApiError({ status: 400, code: 'invalid_scope', message: 'no' }), 3],
    ['insufficient_scope', new ApiError({ status: 403, code: 'insufficient_scope', message: 'no', requiredScope: 'orders_write' }), 3],
    ['409', new ApiError({ status: 409, code: 'contact_exists', message: 'exists', id: 'ct_1' }), 1],
    ['500', new ApiError({ status: 500, code: 'internal_error', message: 'boom' }), 1],
    ['network', new NetworkError('connection refused', { kind: 'refused', sent: false }), 1],
    ['retry wait', new RetryWaitTooLongError(300_000, 120_000, 429), 1],
    ['credentials', new CredentialsError('not logged in', 'run svc auth login'), 3],
    ['missing scope', new MissingScopeError('orders_write', ['contacts_read']), 3],
    ['settings', new SettingsError('bad base URL'), 2],
    ['store', new StoreError('invalid_file', '/x/credentials.json', 'not valid JSON'), 1],
    ['abort', new DOMException('aborted', 'AbortError'), 130],
    ['unexpected', new TypeError('x is undefined'), 1],
  ])('%s', (_name, err, code) => {
    expect(describeError(err).exitCode).toBe(code);
  });

  it('hints how to get a missing scope', () => {
    expect(describeError(new MissingScopeError('orders_write', [])).hint).toBe(
      'enable orders_write on the application, then `svc auth login` again',
    );
  });

  it('a rejected client secret hints at the secret, not at logging in', () => {
    expect(describeError(new ApiError({ status: 401, code: 'invalid_client', message: 'bad secret' })).hint).toMatch(
      /client id and secret/,
    );
    expect(describeError(new ApiError({ status: 401, code: 'unauthorized', message: 'expired' })).hint).toMatch(/svc auth login/);
  });

  it('prints `error:` and a hint line', () => {
    const f = fakeIO();
    const code = printError(new CredentialsError('no credentials for profile default', 'run `svc auth login`'), f.io, {
      json: false,
      debug: false,
    });
    expect(code).toBe(3);
    expect(f.stderr()).toBe('error: no credentials for profile default\nhint: run `svc auth login`\n');
    expect(f.stdout()).toBe('');
  });

  it('prints the contract JSON error shape with --json', () => {
    const f = fakeIO();
    printError(new ApiError({ status: 409, code: 'contact_exists', message: 'exists', id: 'ct_9', requestId: 'req_1' }), f.io, {
      json: true,
      debug: false,
    });
    const body = JSON.parse(f.stderr());
    expect(body.error).toMatchObject({ code: 'contact_exists', status: 409, id: 'ct_9', request_id: 'req_1' });
    expect(typeof body.error.message).toBe('string');
  });

  it('an unexpected exception gives a short message and a --debug hint, not a stack', () => {
    const f = fakeIO();
    const code = printError(new TypeError('cannot read properties of undefined'), f.io, { json: false, debug: false });
    expect(code).toBe(1);
    expect(f.stderr()).toContain('hint: rerun with --debug');
    expect(f.stderr()).not.toMatch(/\n\s+at /);
  });

  it('store errors keep the contract codes and hints of the CLI errors they replace', () => {
    expect(describeError(new SettingsError('SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not', 'set both'))).toEqual({
      exitCode: 2,
      code: 'usage',
      message: 'SVC_CLIENT_ID is set but SVC_CLIENT_SECRET is not',
      hint: 'set both',
    });
    expect(
      describeError(new StoreError('invalid_file', '/c/credentials.json', 'the credential store /c/credentials.json is not valid JSON')),
    ).toEqual({
      exitCode: 1,
      code: 'invalid_credential_store',
      message: 'the credential store /c/credentials.json is not valid JSON',
      hint: 'fix the file, or remove it and `svc auth login` again',
    });
  });

  it('masks the secrets the run learned (its own redactor), and only those', () => {
    const learned = new Redactor();
    learned.add('plain-secret-value');
    const a = fakeIO();
    printError(new Error('boom plain-secret-value'), a.io, { json: false, debug: false, redactor: learned });
    expect(a.stderr()).not.toContain('plain-secret-value');
    const b = fakeIO();
    printError(new Error('boom plain-secret-value'), b.io, { json: false, debug: false });
    expect(b.stderr()).toContain('plain-secret-value');
  });

  it('never prints a secret that slipped into a message', () => {
    const f = fakeIO();
    printError(new Error('failed with Authorization: Bearer abcdefghijklmnop1234'), f.io, { json: false, debug: false });
    expect(f.stderr()).not.toContain('abcdefghijklmnop1234');
  });
});
