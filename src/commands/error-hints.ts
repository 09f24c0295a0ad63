/**
 * The hints of the errors main.ts prints: what to do next, by where the run's credentials and
 * base URL came from (CredentialOrigin).
 */
import type { ApiError } from '../client/errors.js';
import type { IntegrationTokenOrigin } from '../context.js';
import type { StoreErrorKind } from '../store/errors.js';
import type { CredentialOrigin } from '../wiring/client.js';

/** The credential store's errors by kind: the contract's code and what to do next. */
export const STORE_ERRORS: Record<StoreErrorKind, { code: string; hint: string }> = {
  invalid_file: { code: 'invalid_credential_store', hint: 'fix the file, or remove it and `svc auth login` again' },
  locked: {
    code: 'credential_store_locked',
    hint: 'another svc is writing its credentials: retry; remove the lock file if no svc is running',
  },
};

/**
 * What to do about credentials the service refused (401, invalid_client), by where they came
 * from: the CI variables to check, the `sandbox` profile a reset deleted, or a login to redo.
 */
export function refusedCredentialsHint(err: ApiError, origin: CredentialOrigin | undefined): string {
  const clientRefused = err.code === 'invalid_client';
  if (origin?.seededSandbox) {
    return (
      `the sandbox at ${origin.baseUrl} no longer knows the \`${origin.profile}\` profile's credentials: it was reset ` +
      '(`svc sandbox reset`) or restarted on new data since `svc sandbox start --seed` made them. ' +
      'Get new ones with `svc sandbox reset --seed` (empties it again) or by restarting it with `svc sandbox start --seed`'
    );
  }
  if (origin?.source === 'env') {
    return origin.method === 'api_token'
      ? 'check SVC_TOKEN: the service does not accept it (revoked, expired, mistyped, or for another base URL)'
      : 'check SVC_CLIENT_ID and SVC_CLIENT_SECRET: the service knows no such client, or the secret is not its current one (regenerated?)';
  }
  const login = origin?.profile && origin.profile !== 'default' ? `svc auth login --profile ${origin.profile}` : 'svc auth login';
  if (clientRefused) return `check the client id and secret, then \`${login}\` again`;
  return `run \`${login}\` (or check SVC_TOKEN)`;
}

/** A refused integration token: which place holds it, and how to stop sending it. */
export function integrationTokenHint(origin: IntegrationTokenOrigin): string {
  if (origin.source === 'flag')
    return 'the token given with --integration-token-stdin is not an active Custom Integration of this business';
  if (origin.source === 'env') return 'SVC_INTEGRATION_TOKEN holds it: unset it (or set a current token) to stop sending the header';
  const profile = origin.profile === 'default' ? '' : `--profile ${origin.profile} `;
  return (
    `profile ${origin.profile} holds it (see \`svc ${profile}auth status\`): remove it with ` +
    `\`svc ${profile}auth logout\` or a new \`svc ${profile}auth login\` (both drop it)`
  );
}

/** A refused connection: is the service running at the address, named by where that address came from. */
export function refusedConnectionHint(origin: CredentialOrigin | undefined): string {
  if (!origin?.baseUrlSource) return 'is the service running at --base-url / SVC_BASE_URL?';
  if (origin.baseUrlSource === 'profile' && origin.seededSandbox) {
    const named = origin.profile === 'sandbox' ? '' : `--profile ${origin.profile} `;
    return `\`svc ${named}sandbox start\` listens at that address again; \`svc auth logout --profile ${origin.profile}\` forgets the profile`;
  }
  const from =
    origin.baseUrlSource === 'flag'
      ? 'from --base-url'
      : origin.baseUrlSource === 'env'
        ? 'from SVC_BASE_URL'
        : `from profile ${origin.profile}`;
  const fix = origin.baseUrlSource === 'profile' ? `; another address: svc --profile ${origin.profile} auth login --base-url URL` : '';
  return `is the service running at ${origin.baseUrl} (${from})?${fix}`;
}

/** Where the base URL came from, for hints that ask to check it. */
export function baseUrlFrom(origin: CredentialOrigin | undefined): string {
  if (!origin) return '--base-url / SVC_BASE_URL';
  const from =
    origin.baseUrlSource === 'flag' ? '--base-url' : origin.baseUrlSource === 'env' ? 'SVC_BASE_URL' : `profile ${origin.profile}`;
  return `${origin.baseUrl}, from ${from}`;
}

/** Headers too large (431): the one header a person controls is the token. */
export function headersTooLargeHint(origin: CredentialOrigin | undefined): string {
  const where =
    origin?.source === 'env' ? origin.sourceName : origin?.source === 'profile' ? `the token of profile ${origin.profile}` : 'the token';
  return `request headers too large: is the token right? A token is a few hundred characters at most: check ${where}`;
}

/** What to do about a missing scope: enable it, then log in again (environment credentials need no login). */
export function missingScopeHint(scope: string, origin: CredentialOrigin | undefined): string {
  if (origin?.source === 'env') {
    return origin.method === 'api_token'
      ? `SVC_TOKEN lacks ${scope}: use an API token created with it`
      : `enable ${scope} on the application of SVC_CLIENT_ID (the next run gets a new token)`;
  }
  // The login asked for a list of scopes without this one: the application may well have it.
  if (origin?.requestedScopes && !origin.requestedScopes.includes(scope) && /^[a-z_]+$/.test(scope)) {
    const profile = origin.profile === 'default' ? '' : `--profile ${origin.profile} `;
    return `the login of profile ${origin.profile} did not request ${scope}: svc ${profile}auth login --scopes "${[...origin.requestedScopes, scope].join(' ')}"`;
  }
  return `enable ${scope} on the application, then \`svc auth login\` again`;
}
