/**
 * A refusal explained in words: which rule of the contract refused the request and what to
 * change, from the answer's error (code, message, details) and who sent it.
 */
import type { Credential } from './ring.js';

export interface ServiceErrorBody {
  code?: string;
  message?: string;
  required_scope?: string;
  id?: string;
  details?: { field: string; message: string }[];
}

export interface Explanation {
  rule: string;
  fix: string;
}

function who(c: Credential): string {
  if (c.kind === 'api_token') return `the API token “${c.name}” (${c.id})`;
  if (c.kind === 'oauth_app') return `the OAuth app “${c.name}” (${c.id})`;
  return 'the token';
}

function unauthorized(message: string): Explanation {
  if (message.startsWith('missing'))
    return {
      rule: 'Authentication: every /v1 call needs a bearer token, and this request sent no Authorization header.',
      fix: 'Send Authorization: Bearer <token>, with an access token from POST /oauth/token or an API token (svc does this from your profile).',
    };
  if (message.startsWith('malformed'))
    return {
      rule: 'Authentication: the Authorization header is not of the form Bearer <token>.',
      fix: 'Send exactly "Authorization: Bearer <token>" (one space, no quotes, no other scheme).',
    };
  return {
    rule: 'Authentication rule 4: the bearer token is expired (access tokens live 7200 s), revoked, or not one this sandbox issued.',
    fix: 'Get a new access token from POST /oauth/token (client credentials), or create a new API token in Settings; a reset sandbox forgets every token.',
  };
}

const BY_CODE: Record<string, (e: ServiceErrorBody, c: Credential) => Explanation> = {
  unauthorized: (e) => unauthorized(e.message ?? ''),
  insufficient_scope: (e, c) => ({
    rule: `Scopes: this operation needs the scope ${e.required_scope ?? '(named in the error)'}, and ${who(c)} was not granted it.`,
    fix:
      c.kind === 'api_token'
        ? `Create an API token with ${e.required_scope} (Settings, API tokens).`
        : `Enable ${e.required_scope} on the OAuth app (Settings), then request a new token asking for it (scope=…); a token keeps the scopes it was granted.`,
  }),
  invalid_integration_token: () => ({
    rule: 'Orders: X-Service-Integration-Token must be the token of an active Custom Integration of this business.',
    fix: 'Copy the token with Reveal (Settings, Custom Integrations) or activate the integration; without the header the business’s only active integration is used.',
  }),
  invalid_client: () => ({
    rule: 'Token endpoint: client authentication failed (unknown client_id, or a wrong or regenerated client_secret).',
    fix: 'Check client_id and client_secret; regenerating the secret stops the old one at once.',
  }),
  invalid_scope: () => ({
    rule: 'Token endpoint: a requested scope is unknown or not enabled on the OAuth app (rule 1).',
    fix: 'Request only scopes enabled on the app, or enable them first (Settings).',
  }),
  unsupported_grant_type: () => ({
    rule: 'Token endpoint: only the client credentials grant exists.',
    fix: 'Send grant_type=client_credentials.',
  }),
  invalid_json: () => ({
    rule: 'Request bodies are JSON: this body is not valid JSON (or not UTF-8).',
    fix: 'Send a JSON object, encoded in UTF-8; the message names where parsing stopped.',
  }),
  invalid_request: (e) => ({
    rule: 'Validation: the body or query does not match the contract (unknown fields and parameters are refused too).',
    fix:
      e.details && e.details.length > 0
        ? e.details.map((d) => `${d.field}: ${d.message}`).join('; ')
        : (e.message ?? 'See the error message.'),
  }),
  unsupported_media_type: () => ({
    rule: 'Request bodies are JSON: the Content-Type is not application/json.',
    fix: 'Send Content-Type: application/json (the token endpoint alone takes application/x-www-form-urlencoded).',
  }),
  payload_too_large: () => ({
    rule: 'Bodies are at most 1 MiB.',
    fix: 'Send fewer or smaller records per request.',
  }),
  contact_exists: (e) => ({
    rule: 'Contacts: the e-mail or phone already belongs to a contact (409); creation never merges.',
    fix: `Update the existing contact${e.id ? ` ${e.id}` : ''} with PATCH /v1/contacts/{id} instead.`,
  }),
  compliance_suppressed: () => ({
    rule: 'Consent: the contact is compliance_suppressed (suppressed by the system); no write through the API changes it.',
    fix: 'Leave this contact alone; only the service can lift a compliance suppression.',
  }),
  not_found: (e) => ({
    rule: 'Not found: no such resource in this business, or no such route.',
    fix: `Check the id and the path (${e.message ?? ''}); ids belong to one business.`,
  }),
  rate_limited: () => ({
    rule: 'Rate limit: too many requests in the window (injected in Settings, Faults).',
    fix: 'Wait the Retry-After seconds and pace the requests.',
  }),
  unavailable: () => ({
    rule: 'Unavailable: not processed (an injected fault, Settings, Faults).',
    fix: 'Retry; the request had no effect.',
  }),
  internal_error: () => ({
    rule: 'Internal error: an injected fault (Settings, Faults) or a sandbox bug; the write may or may not have been applied.',
    fix: 'Retry idempotent calls (order upserts are idempotent on order_id); check the state before retrying others.',
  }),
  request_timeout: () => ({ rule: 'The request was not received in time.', fix: 'Send the whole request promptly.' }),
};

/** The explanation of an answer with status ≥ 400 (undefined for others or an unknown error code). */
export function explain(status: number, error: ServiceErrorBody | undefined, credential: Credential): Explanation | undefined {
  if (status < 400) return undefined;
  const f = error?.code === undefined ? undefined : BY_CODE[error.code];
  if (f) return f(error as ServiceErrorBody, credential);
  return { rule: `The sandbox answered ${status}${error?.code ? ` ${error.code}` : ''}.`, fix: error?.message ?? 'See the answer body.' };
}
