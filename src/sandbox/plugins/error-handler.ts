/** Every error fastify raises on its own answered in the service's error shape, and 404 for unknown routes. */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ServiceError } from '../domain/errors.js';
import { sendError } from '../http.js';

/** Largest request body (1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** For fastify's `frameworkErrors`: errors raised before routing (malformed or overlong paths). */
export function frameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  sendError(
    reply,
    new ServiceError(400, 'invalid_request', tooLong ? 'a path parameter is longer than 1024 characters' : 'the request path is malformed'),
  );
}

const errorHandler: FastifyPluginAsync = async (app) => {
  app.setErrorHandler((error, req, reply) => {
    if (error instanceof ServiceError) return sendError(reply, error);
    const e = error as { code?: string; statusCode?: number; message: string };
    const isToken = req.url.startsWith('/oauth/token');
    switch (e.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, new ServiceError(413, 'payload_too_large', `the body is larger than ${BODY_LIMIT} bytes (1 MiB)`));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        if (isToken)
          return sendError(reply, new ServiceError(400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded'));
        return sendError(
          reply,
          new ServiceError(
            415,
            'unsupported_media_type',
            `send the body as application/json, not ${req.headers['content-type'] ?? 'without a content type'}`,
          ),
        );
      default:
        if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500)
          return sendError(reply, new ServiceError(e.statusCode, 'invalid_request', e.message));
        return sendError(reply, new ServiceError(500, 'internal_error', 'internal error; the write may or may not have been applied'));
    }
  });

  app.setNotFoundHandler((req, reply) =>
    sendError(reply, new ServiceError(404, 'not_found', `no route ${req.method} ${req.url.split('?')[0]}`)),
  );
};

export default fp(errorHandler, { name: 'error-handler' });
