/**
 * The only body parsers of the sandbox: JSON for the service (the service's error codes for
 * invalid JSON, UTF-8 and odd strings) and form-encoded for the token endpoint alone.
 */
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { ServiceError } from '../domain/errors.js';
import { parseFormBody, parseJsonBody } from '../http.js';

const bodyParsers: FastifyPluginAsync = async (app) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
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
