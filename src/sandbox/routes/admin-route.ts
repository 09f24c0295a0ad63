/** How an admin route is registered (a write runs in one batch; errors in the service's body), and its query checks. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isEmailConsent, isSmsConsent } from '../../contract/consent.js';
import type { FieldError } from '../../contract/errors.js';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import type { ServerDeps } from '../deps.js';
import { invalidRequest, ServiceError } from '../domain/errors.js';
import { sendError, sendJson } from '../http.js';
import { decodeCursor, encodeCursor } from '../list-query.js';

export type AdminHandler = (req: FastifyRequest) => { status: number; body?: unknown };
export type AdminRoute = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, handler: AdminHandler) => void;

export function adminRouter(app: FastifyInstance, deps: ServerDeps): AdminRoute {
  return (method, url, handler) => {
    app.route({
      method,
      url,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        try {
          if (method !== 'GET') deps.domain.db.beginBatch();
          const r = handler(req);
          await deps.domain.db.flushed();
          if (r.status === 204) return reply.code(204).send();
          return sendJson(reply, r.status, r.body);
        } catch (e) {
          if (e instanceof ServiceError) return sendError(reply, e);
          throw e;
        }
      },
    });
  };
}

/** A page size from 1 to 100; records an error otherwise. */
export function pageLimit(value: unknown, errors: FieldError[]): number {
  if (typeof value === 'string' && /^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 100) return Number(value);
  errors.push({ field: 'limit', message: 'must be a whole number from 1 to 100' });
  return 1;
}

/** The query's values, each a parameter of `known` given once; the others are recorded as errors naming `of`. */
export function knownValues(query: unknown, known: readonly string[], of: string, errors: FieldError[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!known.includes(k)) errors.push({ field: k, message: `is not a parameter of ${of} (${known.join(', ')})` });
    else if (typeof v !== 'string') errors.push({ field: k, message: 'must be given once' });
    else values[k] = v;
  }
  return values;
}

/** Consent values given (a contact list's filters, a forced consent) name consent states; a 400 otherwise. */
export function checkConsentValues(email_consent: unknown, sms_consent: unknown): void {
  const errors: FieldError[] = [];
  if (email_consent !== undefined && !isEmailConsent(email_consent))
    errors.push({ field: 'email_consent', message: 'is not an email consent value' });
  if (sms_consent !== undefined && !isSmsConsent(sms_consent))
    errors.push({ field: 'sms_consent', message: 'is not an SMS consent value' });
  if (errors.length > 0) throw invalidRequest(errors);
}

/** The position a cursor continues before (undefined: the first page). */
function beforeOf(cursor: string | undefined, errors: FieldError[]): number | undefined {
  if (cursor === undefined) return undefined;
  const before = decodeCursor(cursor);
  if (before === undefined) errors.push({ field: 'cursor', message: 'is not a cursor this list issued; pass next_cursor unchanged' });
  return before;
}

/** The query of an admin list: only the named parameters, each at most once; limit, cursor and business_id checked. */
export function adminListQuery(query: unknown, allowed: readonly string[]) {
  const errors: FieldError[] = [];
  const values = knownValues(query, [...allowed, 'business_id', 'limit', 'cursor', 'after'], 'this list', errors);
  const limit = values.limit === undefined ? 25 : pageLimit(values.limit, errors);
  const before = beforeOf(values.cursor, errors);
  if (values.after !== undefined && !/^\d{1,15}$/.test(values.after))
    errors.push({ field: 'after', message: 'must be a position (latest_seq of an earlier answer)' });
  if (errors.length > 0) throw invalidRequest(errors);
  const after = values.after === undefined ? undefined : Number(values.after);
  return { values, limit, before, after, business_id: values.business_id ?? DEFAULT_BUSINESS_ID };
}

/** `{data, next_cursor}` of a page, with `total` and `latest_seq` when the list counts them. */
export function pageBody(p: { data: unknown[]; next: number | null; total?: number; latest?: number }) {
  const body: Record<string, unknown> = { data: p.data, next_cursor: p.next === null ? null : encodeCursor(p.next) };
  if (p.total !== undefined) body.total = p.total;
  if (p.latest !== undefined) body.latest_seq = p.latest;
  return body;
}
