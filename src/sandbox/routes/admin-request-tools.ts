/**
 * What the admin API does with a logged request besides showing it: copy as curl, replay, and
 * export of the log (HAR 1.2, NDJSON). Registered inside the admin plugin, like the log itself.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../deps.js';
import { invalidRequest, ServiceError } from '../domain/errors.js';
import { sendError, sendJson } from '../http.js';
import { curlOf, sentAgain } from '../request-log/curl.js';
import { harOf } from '../request-log/har.js';
import { REPLAY_HEADER } from '../request-log/replay-mark.js';
import type { LoggedRequest, RequestLog } from '../request-log/ring.js';
import { viewOf } from '../request-log/view.js';
import { disabled, peopleOf, requestFilter } from './admin-requests.js';

const FORMATS = ['har', 'ndjson'];

function logOf(deps: ServerDeps): RequestLog {
  if (!deps.requestLog) throw disabled();
  return deps.requestLog;
}

function entryOf(deps: ServerDeps, req: FastifyRequest): LoggedRequest {
  const log = logOf(deps);
  const id = (req.params as { request_id: string }).request_id;
  const e = log.byRequestId(id);
  if (!e)
    throw new ServiceError(404, 'not_found', `request ${id} is not in the request log (it keeps the last ${log.maxEntries} requests)`);
  return e;
}

/** Sends the logged request again to this sandbox, over HTTP, marked as its replay. */
async function replay(deps: ServerDeps, e: LoggedRequest): Promise<{ requestId: string; status: number }> {
  if (e.kind === 'admin') throw new ServiceError(409, 'not_replayable', 'admin calls are not replayed; replay service and token requests');
  if (e.requestBody !== undefined && e.requestBytes > e.requestBody.length)
    throw new ServiceError(
      409,
      'not_replayable',
      'the request body was larger than the 16 KiB the log keeps; it cannot be sent again whole',
    );
  const log = logOf(deps);
  const mark = randomBytes(16).toString('base64url');
  log.markReplay(mark, e.requestId);
  const headers: Record<string, string> = { [REPLAY_HEADER]: mark };
  const h = e.headers ?? {};
  if (typeof h.authorization === 'string') headers.authorization = h.authorization;
  for (const [name, value] of sentAgain(h)) headers[name] = value;
  const url = `${deps.baseUrl()}${e.path}${e.query === '' ? '' : `?${e.query}`}`;
  try {
    return await sendOnce(url, e.method, headers, e.requestBody);
  } catch (cause) {
    // An injected connection reset: the replay has no answer (it is logged all the same when answered).
    throw new ServiceError(502, 'replay_failed', `the replay got no answer (${(cause as Error).message}); see the request log`);
  } finally {
    log.takeReplay(mark);
  }
}

/**
 * One HTTP request to this sandbox (node:http, as a client from outside would send it: the replay
 * goes through the same hooks, the recorder included); resolves once the answer was read whole.
 */
function sendOnce(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
): Promise<{ requestId: string; status: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => {
          const id = res.headers['x-request-id'];
          resolve({ requestId: typeof id === 'string' ? id : '', status: res.statusCode ?? 0 });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function guarded(reply: FastifyReply, fn: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ServiceError) return sendError(reply, e);
    throw e;
  }
}

export function registerRequestTools(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/requests/:request_id/curl', (req, reply) =>
    guarded(reply, () => sendJson(reply, 200, curlOf(entryOf(deps, req), deps.baseUrl()))),
  );
  app.post('/requests/:request_id/replay', (req, reply) =>
    guarded(reply, async () => {
      const body = req.body;
      if (body !== undefined && (typeof body !== 'object' || body === null || Object.keys(body).length > 0))
        throw invalidRequest([{ field: '(body)', message: 'send no body, or {}' }]);
      const original = entryOf(deps, req);
      const r = await replay(deps, original);
      const log = logOf(deps);
      const copy = log.byRequestId(r.requestId);
      return sendJson(reply, 201, {
        request_id: r.requestId,
        replay_of: original.requestId,
        status: r.status,
        request: copy ? viewOf(copy, peopleOf(deps)) : null,
      });
    }),
  );
  app.get('/requests/export', (req, reply) =>
    guarded(reply, () => {
      const log = logOf(deps);
      const { filter, values } = requestFilter(req.query, ['format']);
      const format = values.format ?? 'har';
      if (!FORMATS.includes(format)) throw invalidRequest([{ field: 'format', message: `must be one of ${FORMATS.join(', ')}` }]);
      const people = peopleOf(deps);
      const entries = log.after(0, filter).map((entry) => ({ entry, view: viewOf(entry, people) }));
      if (format === 'ndjson') {
        const text = entries.map(({ view }) => `${JSON.stringify(view)}\n`).join('');
        return reply
          .code(200)
          .header('content-type', 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', 'attachment; filename="sandbox-requests.ndjson"')
          .send(text);
      }
      return reply
        .code(200)
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', 'attachment; filename="sandbox-requests.har"')
        .send(JSON.stringify(harOf(entries, deps.baseUrl(), '1'), null, 1));
    }),
  );
}
