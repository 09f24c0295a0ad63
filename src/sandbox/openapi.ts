/**
 * The OpenAPI 3.1 document of the service (not the admin surface), generated from routes.ts —
 * the same table the server registers its routes from.
 */
import { SCHEMAS, SD } from '../contract/schemas.js';
import { MAX_PATH_PARAM, type ResponseSpec, ROUTES, type RouteSpec } from './routes.js';

/** Plain JSON of a TypeBox schema, with `$ref: "Contact"` pointing into components and `$id` dropped. */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => {
    if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) return `#/components/schemas/${value}`;
    return value;
  });
}

function withoutId(schema: unknown): Record<string, unknown> {
  const { $id: _id, ...rest } = plain(schema) as Record<string, unknown>;
  return rest;
}

/** A route's parameters: its path's, its query's (from the query schema) and its headers. */
function parametersOf(r: RouteSpec): unknown[] {
  const parameters: unknown[] = [];
  for (const m of r.url.matchAll(/:([a-z_]+)/g))
    parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string', maxLength: MAX_PATH_PARAM } });
  if (r.query) {
    const q = plain(r.query) as { properties: Record<string, Record<string, unknown>> };
    for (const [name, schema] of Object.entries(q.properties)) {
      const { description, ...rest } = schema;
      parameters.push({ name, in: 'query', required: false, ...(description ? { description } : {}), schema: rest });
    }
  }
  for (const [name, h] of Object.entries(r.headers ?? {})) {
    parameters.push({ name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } });
  }
  return parameters;
}

/** The headers of an answer: the request id on every one, the route's own, and those its status implies. */
function responseHeaders(status: string, res: ResponseSpec): Record<string, unknown> {
  const headers: Record<string, unknown> = {
    'X-Request-Id': { description: `${SD} every response carries a request id.`, schema: { type: 'string' } },
  };
  for (const [name, description] of Object.entries(res.headers ?? {})) headers[name] = { description, schema: { type: 'string' } };
  if (status === '401' || status === '403')
    headers['WWW-Authenticate'] = { description: `${SD} RFC 6750 challenge.`, schema: { type: 'string' } };
  if (status === '429' || status === '503')
    headers['Retry-After'] = { description: `${SD} whole seconds, at least 1.`, schema: { type: 'integer' } };
  return headers;
}

function responsesOf(r: RouteSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, res] of Object.entries(r.responses)) {
    responses[status] = {
      description: res.description,
      headers: responseHeaders(status, res),
      ...(res.schema ? { content: { 'application/json': { schema: plain(res.schema) } } } : {}),
    };
  }
  return responses;
}

/** A route's operation: id, summary, security (its scope), parameters, body and responses. */
function operationOf(r: RouteSpec): Record<string, unknown> {
  const parameters = parametersOf(r);
  return {
    operationId: r.operationId,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    ...(r.deprecated ? { deprecated: true } : {}),
    ...(r.scope ? { security: [{ bearer: [r.scope] }], 'x-required-scope': r.scope } : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(r.body ? { requestBody: { required: r.body.required, content: { [r.body.contentType]: { schema: plain(r.body.schema) } } } } : {}),
    responses: responsesOf(r),
  };
}

export function buildOpenApi(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const s of SCHEMAS) schemas[(s as { $id: string }).$id] = withoutId(s);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[r.method.toLowerCase()] = operationOf(r);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketing Contacts, Orders and Events API (svc sandbox)',
      version: '1',
      description: `The service as the svc sandbox implements it: the published specification plus, where it is silent, the decisions of open-points.md, each marked "${SD}". Generated from src/sandbox/routes.ts; regenerate with npm run openapi.`,
    },
    servers: [
      { url: 'http://127.0.0.1:{port}', description: 'A local sandbox (svc sandbox start)', variables: { port: { default: '8787' } } },
    ],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API token or an access token from POST /oauth/token.' },
      },
      schemas,
    },
    paths,
  };
}
