/**
 * GET /_sandbox/contact-labels?ids=ct_a,ct_b&business_id=: what people read beside a contact
 * reference (its e-mail, phone and name), for the dashboard's lists of orders, events and side
 * effects, in one call per page.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import type { ServerDeps } from '../deps.js';
import { invalidRequest } from '../domain/errors.js';
import { adminRouter } from './admin-route.js';

const MAX_IDS = 200;

export function registerContactLabels(app: FastifyInstance, deps: ServerDeps): void {
  adminRouter(app, deps)('GET', '/contact-labels', (req) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(q).filter((k) => k !== 'ids' && k !== 'business_id');
    if (unknown.length > 0) throw invalidRequest(unknown.map((k) => ({ field: k, message: 'is not a parameter (ids, business_id)' })));
    if (typeof q.ids !== 'string') throw invalidRequest([{ field: 'ids', message: 'is required once: contact ids separated by commas' }]);
    const ids = [...new Set(q.ids.split(',').filter(Boolean))];
    if (ids.length > MAX_IDS) throw invalidRequest([{ field: 'ids', message: `at most ${MAX_IDS} ids` }]);
    const biz = typeof q.business_id === 'string' ? q.business_id : DEFAULT_BUSINESS_ID;
    const rows = deps.domain.db.all<{
      id: string;
      email: string | null;
      phone: string | null;
      first_name: string | null;
      last_name: string | null;
    }>(
      'SELECT id, email, phone, first_name, last_name FROM contacts WHERE business_id = ? AND id IN (SELECT value FROM json_each(?))',
      biz,
      JSON.stringify(ids),
    );
    const data: Record<string, { email: string | null; phone: string | null; name: string | null }> = {};
    for (const r of rows)
      data[r.id] = { email: r.email, phone: r.phone, name: [r.first_name, r.last_name].filter(Boolean).join(' ') || null };
    return { status: 200, body: { data } };
  });
}
