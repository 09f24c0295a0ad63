/** The token endpoint, POST /oauth/token: OAuth 2.0 client credentials, form-encoded, no bearer token. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenResponse } from '../../contract/types.js';
import type { RouteOptions, ServerDeps } from '../deps.js';
import { grantClientCredentials } from '../domain/auth.js';
import { ServiceError } from '../domain/errors.js';
import { faultAt, faultsBefore, rateKey } from '../fault-answers.js';
import type { FaultDecision } from '../faults.js';
import { sendError, sendJson } from '../http.js';
import { routeSpec } from '../routes.js';

type Form = Record<string, string | string[]>;

const formDecode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/** The client id and secret, from HTTP Basic when the request has an Authorization header, else from the form. */
function clientCredentials(req: FastifyRequest, f: Record<string, string>) {
  const authz = req.headers.authorization;
  if (authz === undefined) return { clientId: f.client_id, clientSecret: f.client_secret, viaBasic: false };
  const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authz);
  const decoded = m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new ServiceError(400, 'invalid_request', 'malformed HTTP Basic credentials: expected base64(client_id:client_secret)');
  if (f.client_id !== undefined || f.client_secret !== undefined)
    throw new ServiceError(400, 'invalid_request', 'send the client credentials either with HTTP Basic or as form fields, not both');
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)), viaBasic: true };
}

/** The form's fields, each given once; a 400 when the body is not a form. */
function formFields(form: Form | undefined): Record<string, string> {
  if (!form) throw new ServiceError(400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded');
  const repeated = Object.keys(form).filter((k) => Array.isArray(form[k]));
  if (repeated.length > 0) throw new ServiceError(400, 'invalid_request', `parameter ${repeated.join(', ')} must be given once`);
  return form as Record<string, string>;
}

/** The grant: the client's credentials, the injected faults before and after the write, the token. */
async function answerGrant(
  deps: ServerDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  f: Record<string, string>,
  decision: FaultDecision | undefined,
): Promise<FastifyReply> {
  const { clientId, clientSecret, viaBasic } = clientCredentials(req, f);
  if (faultAt(decision, false, req, reply)) return reply;
  deps.domain.db.beginBatch();
  const token = grantClientCredentials(
    deps.domain,
    { grant_type: f.grant_type, client_id: clientId, client_secret: clientSecret, scope: f.scope ?? f.scopes },
    viaBasic,
  );
  await deps.domain.db.flushed();
  if (faultAt(decision, true, req, reply)) return reply;
  return sendJson(reply, 200, token, { pragma: 'no-cache' });
}

export const tokenRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const spec = routeSpec('requestToken');
  app.route<{ Body: Form | undefined; Reply: TokenResponse }>({
    method: spec.method,
    url: spec.url,
    handler: async (req, reply) => {
      const ct = req.headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase();
      const form = ct === 'application/x-www-form-urlencoded' ? req.body : undefined;
      // The rate limit counts per client when the form names one.
      const clientKey = () => (typeof form?.client_id === 'string' ? `client:${form.client_id}` : rateKey(req));
      const decision = deps.faults.active ? await faultsBefore(deps, req, reply, clientKey()) : undefined;
      if (reply.sent) return reply;
      reply.header('cache-control', 'no-store');
      try {
        return await answerGrant(deps, req, reply, formFields(form), decision);
      } catch (e) {
        if (e instanceof ServiceError) return sendError(reply, e);
        throw e;
      }
    },
  });
};
