/**
 * Snapshots on the admin API: POST /snapshots {name}, GET /snapshots, POST
 * /snapshots/{name}/restore, DELETE /snapshots/{name}. Not through adminRouter: a snapshot is
 * taken and restored between group-commit batches, never inside one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../deps.js';
import { clearCaches } from '../domain/context.js';
import { invalidRequest, ServiceError } from '../domain/errors.js';
import { sendError, sendJson } from '../http.js';
import type { Snapshots } from '../snapshots.js';
import { markStateChange } from '../state-changes.js';

type Handler = (req: FastifyRequest, snapshots: Snapshots) => Promise<{ status: number; body?: unknown }>;

export function registerSnapshots(app: FastifyInstance, deps: ServerDeps, snapshots: Snapshots): void {
  const route = (method: 'GET' | 'POST' | 'DELETE', url: string, handler: Handler) =>
    app.route({
      method,
      url,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        try {
          const r = await handler(req, snapshots);
          if (r.status === 204) return reply.code(204).send();
          return sendJson(reply, r.status, r.body);
        } catch (e) {
          if (e instanceof ServiceError) return sendError(reply, e);
          throw e;
        }
      },
    });
  const name = (req: FastifyRequest) => (req.params as { name: string }).name;

  route('POST', '/snapshots', async (req, s) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b !== 'object' || Array.isArray(b)) throw invalidRequest([{ field: '(body)', message: 'must be a JSON object' }]);
    const extra = Object.keys(b).filter((k) => k !== 'name');
    if (extra.length > 0) throw invalidRequest(extra.map((k) => ({ field: k, message: 'is not accepted here (name)' })));
    if (typeof b.name !== 'string') throw invalidRequest([{ field: 'name', message: 'is required (a string)' }]);
    const { info, replaced } = await s.save(b.name);
    return { status: replaced ? 200 : 201, body: { ...info, replaced } };
  });
  route('GET', '/snapshots', async (_req, s) => {
    const data = s.list();
    return { status: 200, body: { data, total: data.length } };
  });
  route('POST', '/snapshots/:name/restore', async (req, s) => {
    const { info, ms } = await s.restore(name(req));
    clearCaches(deps.domain);
    markStateChange(deps.domain, 'restore', info.name);
    return { status: 200, body: { ...info, restored: true, duration_ms: Math.round(ms * 10) / 10 } };
  });
  route('DELETE', '/snapshots/:name', async (req, s) => {
    s.delete(name(req));
    return { status: 204 };
  });
}
