/**
 * GET /_sandbox/outbox/details?seqs=1,2&business_id=: what each side effect carried, for the
 * dashboard's Timeline and a contact's side effects, in one call per page: a welcome SMS's phone
 * and text, a flow run's flow name and event type, an attribution's amount and integration.
 * Read at the time of the call (the contact's phone and the flow's name as they are now).
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import type { ServerDeps } from '../deps.js';
import { invalidRequest } from '../domain/errors.js';
import { adminRouter } from './admin-route.js';

const MAX_SEQS = 200;

/** The text the sandbox records as a welcome SMS (the real service's wording is not in the contract). */
export const welcomeSmsText = (business: string) => `${business}: you are now subscribed to SMS messages. Reply STOP to opt out.`;

interface Row {
  seq: number;
  type: string;
  trigger: string | null;
  phone: string | null;
  business_name: string | null;
  flow_name: string | null;
  total: string | null;
  currency: string | null;
  integration_id: string | null;
  integration_name: string | null;
}

/** The `seqs` asked for (each once), from a query that has nothing else but `business_id`. */
function seqsOf(q: Record<string, unknown>): number[] {
  const unknown = Object.keys(q).filter((k) => k !== 'seqs' && k !== 'business_id');
  if (unknown.length > 0) throw invalidRequest(unknown.map((k) => ({ field: k, message: 'is not a parameter (seqs, business_id)' })));
  if (typeof q.seqs !== 'string' || !/^\d{1,15}(,\d{1,15})*$/.test(q.seqs))
    throw invalidRequest([{ field: 'seqs', message: 'is required once: side-effect sequence numbers separated by commas' }]);
  const seqs = [...new Set(q.seqs.split(',').map(Number))];
  if (seqs.length > MAX_SEQS) throw invalidRequest([{ field: 'seqs', message: `at most ${MAX_SEQS} sequence numbers` }]);
  return seqs;
}

/** What each type of side effect carried. */
const DETAILS = new Map<string, (r: Row, biz: string) => Record<string, string | null>>([
  ['welcome_sms', (r, biz) => ({ phone: r.phone, text: welcomeSmsText(r.business_name ?? biz) })],
  ['flow_run', (r) => ({ flow_name: r.flow_name, event_type: r.trigger })],
  [
    'revenue_attribution',
    (r) => ({ amount: r.total, currency: r.currency, integration_id: r.integration_id, integration_name: r.integration_name }),
  ],
]);
const OTHER_DETAILS = (r: Row) => ({ trigger: r.trigger, amount: r.total, currency: r.currency });

export function registerEffectDetails(app: FastifyInstance, deps: ServerDeps): void {
  adminRouter(app, deps)('GET', '/outbox/details', (req) => {
    const q = (req.query ?? {}) as Record<string, unknown>;
    const seqs = seqsOf(q);
    const biz = typeof q.business_id === 'string' ? q.business_id : DEFAULT_BUSINESS_ID;
    const rows = deps.domain.db.all<Row>(
      `SELECT o.seq, o.type, o.trigger, c.phone, b.name AS business_name, f.name AS flow_name,
              r.total, r.currency, r.integration_id, i.name AS integration_name
         FROM outbox o
         LEFT JOIN contacts c ON c.id = o.contact_id
         LEFT JOIN businesses b ON b.id = o.business_id
         LEFT JOIN flows f ON f.id = o.flow_id
         LEFT JOIN orders r ON r.business_id = o.business_id AND r.order_id = o.order_id
         LEFT JOIN integrations i ON i.id = r.integration_id
        WHERE o.business_id = ? AND o.seq IN (SELECT value FROM json_each(?))`,
      biz,
      JSON.stringify(seqs),
    );
    const data: Record<string, Record<string, string | null>> = {};
    for (const r of rows) data[r.seq] = (DETAILS.get(r.type) ?? OTHER_DETAILS)(r, biz);
    return { status: 200, body: { data } };
  });
}
