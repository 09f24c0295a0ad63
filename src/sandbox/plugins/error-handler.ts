/** Every error fastify raises on its own answered in the service's error shape, and 404 for unknown routes. */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ServiceError } from '../domain/errors.js';
import { JSON_TYPE, sendError } from '../http.js';
import { nextRequestId } from '../request-id.js';

/** Largest request body (1 MiB). */
export const BODY_LIMIT = 1024 * 1024;

/** How much of an oversized body is read (and dropped) before the 413, so the client sees it. */
export const DRAIN_LIMIT = 16 * BODY_LIMIT;
const DRAIN_TIMEOUT_MS = 5000;

/**
 * Reads and drops the rest of a request body, up to `limit` bytes or DRAIN_TIMEOUT_MS: a client
 * still sending when the connection closes sees a broken pipe instead of the answer.
 */
export function drainBody(raw: IncomingMessage, limit = DRAIN_LIMIT): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', finish);
      raw.off('error', finish);
      raw.off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limit) finish();
    };
    const timer = setTimeout(finish, DRAIN_TIMEOUT_MS);
    raw.on('data', onData);
    raw.on('end', finish);
    raw.on('error', finish);
    raw.on('close', finish);
    raw.resume();
  });
}

/** For fastify's `frameworkErrors`: errors raised before routing (malformed or overlong paths). */
export function frameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', req.id);
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  sendError(
    reply,
    new ServiceError(400, 'invalid_request', tooLong ? 'a path parameter is longer than 1024 characters' : 'the request path is malformed'),
  );
}

const CLIENT_ERRORS: Record<string, [number, string, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'request_header_fields_too_large',
    'the request headers are larger than 16 KiB',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'the request was not received in time'],
};

/**
 * For fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request
 * (headers too large, malformed HTTP) is answered in the service's error shape too, then closed.
 */
export function clientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [
    400,
    'Bad Request',
    'invalid_request',
    'the request is not valid HTTP/1.1',
  ];
  const id = nextRequestId();
  const body = JSON.stringify({ error: { code, message, request_id: id } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

const errorHandler: FastifyPluginAsync = async (app) => {
  app.setErrorHandler(async (error, req, reply) => {
    if (error instanceof ServiceError) return sendError(reply, error);
    const e = error as { code?: string; statusCode?: number; message: string };
    const isToken = req.url.startsWith('/oauth/token');
    switch (e.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // fastify answers with Connection: close; the rest of the body is read first.
        await drainBody(req.raw);
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
