/**
 * The sandbox's HTTP application, laid out as fastify's templates do: the plugins (body parsers,
 * error handler) and the route modules (the service's operations, the OpenAPI document, the
 * admin surface under /_sandbox, the dashboard at /), each registered with the dependencies it needs.
 */
import { createServer, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ServerDeps } from './deps.js';
import bodyParsers from './plugins/body-parsers.js';
import errorHandler, { BODY_LIMIT, clientError, frameworkError } from './plugins/error-handler.js';
import requestRecorder from './plugins/request-recorder.js';
import { nextRequestId, noteArrival } from './request-id.js';
import { CredentialNames } from './request-log/credentials.js';
import { adminRoutes } from './routes/admin.js';
import { contactRoutes } from './routes/contacts.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { eventRoutes } from './routes/events.js';
import { tokenRoutes } from './routes/oauth-token.js';
import { openApiRoute } from './routes/openapi.js';
import { orderRoutes } from './routes/orders.js';
import { MAX_PATH_PARAM } from './routes.js';

/** Builds (but does not start) the server. */
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    // Every response carries X-Request-Id: set on the raw response before fastify sees the
    // request, so it also covers answers fastify gives on its own (503 while closing, routing
    // errors), at no per-request hook cost.
    serverFactory: (handler) =>
      createServer((req, res) => {
        noteArrival(req);
        const id = nextRequestId();
        (req as IncomingMessage & { svcRequestId?: string }).svcRequestId = id;
        res.setHeader('x-request-id', id);
        // No page may frame any of it (the dashboard's Reset and Reveal buttons under a decoy).
        res.setHeader('x-frame-options', 'DENY');
        res.setHeader('content-security-policy', "frame-ancestors 'none'");
        handler(req, res);
      }),
    genReqId: (req) => (req as IncomingMessage & { svcRequestId?: string }).svcRequestId ?? 'req_unknown',
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PATH_PARAM },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  const onAnswer = deps.onAnswer;
  if (onAnswer) {
    app.addHook('onSend', async (req, reply, payload) => {
      const contentType = reply.getHeader('content-type');
      onAnswer({
        method: req.method,
        url: req.url,
        status: reply.statusCode,
        contentType: typeof contentType === 'string' ? contentType : undefined,
        body: typeof payload === 'string' ? payload : payload === null || payload === undefined ? '' : String(payload),
        elapsedMs: reply.elapsedTime,
      });
      return payload;
    });
  }
  await app.register(bodyParsers, { keepRaw: deps.requestLog !== undefined });
  await app.register(errorHandler);
  if (deps.requestLog && deps.deprecations) {
    await app.register(requestRecorder, {
      log: deps.requestLog,
      tally: deps.deprecations,
      names: new CredentialNames(deps.domain),
      domain: deps.domain,
    });
  }
  await app.register(tokenRoutes, { deps });
  await app.register(contactRoutes, { deps });
  await app.register(orderRoutes, { deps });
  await app.register(eventRoutes, { deps });
  await app.register(openApiRoute);
  await app.register(adminRoutes, { deps, prefix: '/_sandbox' });
  await app.register(dashboardRoutes, { deps });
  return app;
}
