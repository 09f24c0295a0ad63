/** GET /openapi.json: the service's OpenAPI document, without a token. */
import type { FastifyPluginAsync } from 'fastify';
import { openApiText } from '../openapi-write.js';

export const openApiRoute: FastifyPluginAsync = async (app) => {
  let openapi: string | undefined;
  app.get('/openapi.json', (_req, reply) => {
    openapi ??= openApiText();
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(openapi);
  });
};
