/**
 * The only body parsers of the sandbox: JSON for the service (the service's error codes for
 * invalid JSON, UTF-8 and odd strings) and form-encoded for the token endpoint alone.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ServiceError } from '../domain/errors.js';
import { parseFormBody, parseJsonBody } from '../http.js';

/** Each request's body as received, while the request log wants it (keepRaw). */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The body of a request as received (when the request log is on), before parsing. */
export function rawBodyOf(req: FastifyRequest): Buffer | undefined {
  return rawBodies.get(req);
}

const bodyParsers: FastifyPluginAsync<{ keepRaw?: boolean }> = async (app, { keepRaw = false }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    if (keepRaw) rawBodies.set(req, body as Buffer);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    if (keepRaw) rawBodies.set(req, body as Buffer);
    if (req.url.split('?', 1)[0] !== '/oauth/token') {
      done(new ServiceError(415, 'unsupported_media_type', 'send the body as application/json'), undefined);
      return;
    }
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
};

export default fp(bodyParsers, { name: 'body-parsers' });
