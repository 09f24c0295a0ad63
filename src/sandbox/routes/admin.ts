/**
 * The admin surface (`/_sandbox/...`): the sandbox's stand-in for the dashboard, plus outbox,
 * fault injection and reset. Not part of the service; needs no token unless started with one; loopback only unless then (plugins/admin-guard.ts).
 */
import { resolve } from 'node:path';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { isEmailConsent, isSmsConsent } from '../../contract/consent.js';
import type { FieldError } from '../../contract/errors.js';
import { buildAdminOpenApi } from '../admin-openapi.js';
import { DEFAULT_BUSINESS_ID } from '../db.js';
import type { RouteOptions, ServerDeps } from '../deps.js';
import { adminOrderView, adminShowEvent } from '../domain/admin-reads.js';
import { createApiToken, createApp, createBusiness, regenerateSecret, revokeApiToken, revokeAppTokens } from '../domain/auth.js';
import { contactView, forceConsent } from '../domain/contacts.js';
import type { Domain } from '../domain/context.js';
import { invalidRequest, ServiceError } from '../domain/errors.js';
import { createFlow, deleteFlow, listFlows, showFlow, updateFlow } from '../domain/flows.js';
import { createIntegration, revealIntegrationToken, setIntegrationActive } from '../domain/integrations.js';
import { findOrder } from '../domain/orders.js';
import { countSideEffects, listSideEffects, SIDE_EFFECT_TYPES } from '../domain/outbox.js';
import { validateFaults } from '../faults.js';
import { sendJson } from '../http.js';
import { adminGuard } from '../plugins/admin-guard.js';
import { Snapshots } from '../snapshots.js';
import { markStateChange, stateOf } from '../state-changes.js';
import { registerEffectDetails } from './admin-effect-details.js';
import { registerContactLabels } from './admin-labels.js';
import { registerAdminReads } from './admin-reads.js';
import { registerRequestTools } from './admin-request-tools.js';
import { registerRequestLog } from './admin-requests.js';
import { type AdminRoute, adminRouter, checkConsentValues, pageLimit } from './admin-route.js';
import { registerSnapshots } from './admin-snapshots.js';

type Body = Record<string, unknown>;

const OUTBOX_FILTERS = ['type', 'business_id', 'after', 'contact_id', 'flow_id', 'limit'];

/** Checks an admin body: an object with only the allowed fields. */
function bodyOf(req: FastifyRequest, allowed: readonly string[]): Body {
  const b = req.body ?? {};
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    throw invalidRequest([{ field: '(body)', message: 'must be a JSON object' }]);
  const unknown = Object.keys(b).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw invalidRequest(unknown.map((k) => ({ field: k, message: `is not accepted here (${allowed.join(', ')})` })));
  return b as Body;
}

function str(b: Body, field: string, opts: { required?: boolean; fallback?: string } = {}): string {
  const v = b[field];
  if (v === undefined && !opts.required && opts.fallback !== undefined) return opts.fallback;
  if (typeof v !== 'string' || v.length === 0 || v.length > 255) {
    throw invalidRequest([{ field, message: v === undefined ? 'is required' : 'must be a string of 1 to 255 characters' }]);
  }
  return v;
}

/** `{data, total}` of a short list (no paging). */
const withTotal = (data: unknown[]) => ({ data, total: data.length });

/** The business_id of a query (the only parameter of a short admin list), biz_default by default. */
function businessOf(query: unknown): string {
  const q = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(q).filter((k) => k !== 'business_id');
  if (unknown.length > 0) throw invalidRequest(unknown.map((k) => ({ field: k, message: 'is not a parameter (business_id)' })));
  if (q.business_id !== undefined && typeof q.business_id !== 'string')
    throw invalidRequest([{ field: 'business_id', message: 'must be given once' }]);
  return (q.business_id as string | undefined) ?? DEFAULT_BUSINESS_ID;
}

function business(b: Body): string {
  return str(b, 'business_id', { fallback: DEFAULT_BUSINESS_ID });
}

const param = (req: FastifyRequest, name: string) => (req.params as Record<string, string>)[name] as string;

/** Businesses, OAuth applications, API tokens and Custom Integrations. */
function registerCredentialWrites(route: AdminRoute, d: Domain): void {
  route('POST', '/businesses', (req) => {
    const b = bodyOf(req, ['name', 'available_scopes']);
    return { status: 201, body: createBusiness(d, str(b, 'name', { required: true }), b.available_scopes) };
  });
  route('POST', '/apps', (req) => {
    const b = bodyOf(req, ['business_id', 'name', 'scopes']);
    return { status: 201, body: createApp(d, business(b), str(b, 'name', { fallback: 'Sandbox app' }), b.scopes ?? []) };
  });
  route('POST', '/apps/:client_id/secret', (req) => {
    bodyOf(req, []);
    return { status: 200, body: regenerateSecret(d, param(req, 'client_id')) };
  });
  route('DELETE', '/apps/:client_id/tokens', (req) => ({ status: 200, body: revokeAppTokens(d, param(req, 'client_id')) }));
  route('POST', '/api-tokens', (req) => {
    const b = bodyOf(req, ['business_id', 'name', 'scopes']);
    return { status: 201, body: createApiToken(d, business(b), str(b, 'name', { fallback: 'Sandbox token' }), b.scopes) };
  });
  route('DELETE', '/api-tokens/:id', (req) => ({ status: 200, body: revokeApiToken(d, param(req, 'id')) }));
  route('POST', '/integrations', (req) => {
    const b = bodyOf(req, ['business_id', 'name']);
    return { status: 201, body: createIntegration(d, business(b), str(b, 'name', { fallback: 'Custom Integration' })) };
  });
  route('GET', '/integrations/:id/token', (req) => ({ status: 200, body: revealIntegrationToken(d, param(req, 'id')) }));
  route('PATCH', '/integrations/:id', (req) => {
    const b = bodyOf(req, ['active']);
    if (typeof b.active !== 'boolean') throw invalidRequest([{ field: 'active', message: 'must be a boolean' }]);
    return { status: 200, body: setIntegrationActive(d, param(req, 'id'), b.active) };
  });
}

/** Flows (create, list, show, enable or rename, delete), and an event as the dashboard shows it. */
function registerFlows(route: AdminRoute, d: Domain): void {
  route('POST', '/flows', (req) => {
    const b = bodyOf(req, ['business_id', 'event_type', 'order_trigger', 'name']);
    const key = {
      event_type: b.event_type === undefined ? undefined : str(b, 'event_type'),
      order_trigger: b.order_trigger === undefined ? undefined : str(b, 'order_trigger'),
    };
    return { status: 201, body: createFlow(d, business(b), key, b.name === undefined ? undefined : str(b, 'name')) };
  });
  route('GET', '/flows/:id', (req) => ({ status: 200, body: showFlow(d, param(req, 'id')) }));
  route('GET', '/events/:id', (req) => ({ status: 200, body: adminShowEvent(d, businessOf(req.query), param(req, 'id')) }));
  route('GET', '/flows', (req) => ({ status: 200, body: withTotal(listFlows(d, businessOf(req.query))) }));
  route('PATCH', '/flows/:id', (req) => {
    const b = bodyOf(req, ['enabled', 'name']);
    if (b.enabled !== undefined && typeof b.enabled !== 'boolean')
      throw invalidRequest([{ field: 'enabled', message: 'must be a boolean' }]);
    if (b.enabled === undefined && b.name === undefined) throw invalidRequest([{ field: '(body)', message: 'give enabled or name' }]);
    const change = { enabled: b.enabled as boolean | undefined, name: b.name === undefined ? undefined : str(b, 'name') };
    return { status: 200, body: updateFlow(d, param(req, 'id'), change) };
  });
  route('DELETE', '/flows/:id', (req) => {
    deleteFlow(d, param(req, 'id'));
    return { status: 204 };
  });
}

/** The problems of GET /outbox's filters and `after`, each naming its parameter. */
function outboxErrors(q: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const k of Object.keys(q))
    if (!OUTBOX_FILTERS.includes(k)) errors.push({ field: k, message: `is not a filter (${OUTBOX_FILTERS.join(', ')})` });
  const type = q.type;
  if (type !== undefined && !(typeof type === 'string' && (SIDE_EFFECT_TYPES as readonly string[]).includes(type)))
    errors.push({ field: 'type', message: `must be one of: ${SIDE_EFFECT_TYPES.join(', ')}` });
  const after = q.after;
  if (after !== undefined && !(typeof after === 'string' && /^\d{1,15}$/.test(after)))
    errors.push({ field: 'after', message: 'must be a sequence number' });
  for (const k of ['business_id', 'contact_id', 'flow_id'])
    if (q[k] !== undefined && typeof q[k] !== 'string') errors.push({ field: k, message: 'must be given once' });
  return errors;
}

/** The query of GET /outbox, checked: its filters, `after` and `limit`. */
function outboxQuery(q: Record<string, unknown>) {
  const errors = outboxErrors(q);
  const limit = q.limit === undefined ? undefined : pageLimit(q.limit, errors);
  if (errors.length > 0) throw invalidRequest(errors);
  const after = q.after;
  const filter = {
    type: q.type as string | undefined,
    business_id: q.business_id as string | undefined,
    contact_id: q.contact_id as string | undefined,
    flow_id: q.flow_id as string | undefined,
  };
  return { filter, after: after === undefined ? undefined : Number(after), limit };
}

/** A contact's consent forced, the side effects, an order as the dashboard shows it. */
function registerRecords(route: AdminRoute, d: Domain): void {
  route('PUT', '/contacts/:id/consent', (req) => {
    const b = bodyOf(req, ['email_consent', 'sms_consent']);
    checkConsentValues(b.email_consent, b.sms_consent);
    const row = forceConsent(d, param(req, 'id'), {
      email_consent: isEmailConsent(b.email_consent) ? b.email_consent : undefined,
      sms_consent: isSmsConsent(b.sms_consent) ? b.sms_consent : undefined,
    });
    return { status: 200, body: contactView(row) };
  });
  route('GET', '/outbox', (req) => {
    const { filter, after, limit } = outboxQuery(req.query as Record<string, unknown>);
    const data = listSideEffects(d, { ...filter, after, limit });
    // `total`: every side effect matching the filters (the Timeline's count), whatever `after` and `limit`.
    return { status: 200, body: { data, total: countSideEffects(d, filter) } };
  });
  route('GET', '/orders/:order_id', (req) => {
    const q = req.query as Record<string, unknown>;
    const biz = typeof q.business_id === 'string' ? q.business_id : DEFAULT_BUSINESS_ID;
    const row = findOrder(d, biz, param(req, 'order_id'));
    if (!row) throw new ServiceError(404, 'not_found', `order ${param(req, 'order_id')} not found in ${biz}`);
    return { status: 200, body: adminOrderView(row) };
  });
}

/** Fault injection, and the reset of the whole sandbox. */
function registerFaultsAndReset(route: AdminRoute, deps: ServerDeps): void {
  route('GET', '/faults', () => ({ status: 200, body: deps.faults.current }));
  route('PUT', '/faults', (req) => {
    const r = validateFaults(req.body ?? {});
    if (!r.ok) throw invalidRequest(r.errors);
    deps.faults.set(r.value);
    return { status: 200, body: deps.faults.current };
  });
  route('POST', '/reset', () => {
    deps.reset();
    deps.faults.set({});
    markStateChange(deps.domain, 'reset');
    return { status: 200, body: { status: 'reset' } };
  });
}

function registerAdmin(app: FastifyInstance, deps: ServerDeps): void {
  const route = adminRouter(app, deps);
  registerCredentialWrites(route, deps.domain);
  registerRecords(route, deps.domain);
  registerFlows(route, deps.domain);
  registerFaultsAndReset(route, deps);
}

/** The admin surface, registered under /_sandbox: guarded against other sites and machines (plugins/admin-guard.ts). */
export const adminRoutes: FastifyPluginAsync<RouteOptions> = async (admin, { deps }) => {
  admin.addHook('onRequest', adminGuard(deps.security, 'admin'));
  registerAdmin(admin, deps);
  registerAdminReads(admin, deps);
  registerRequestLog(admin, deps);
  registerRequestTools(admin, deps);
  registerContactLabels(admin, deps);
  registerEffectDetails(admin, deps);
  registerSnapshots(admin, deps, new Snapshots(deps.domain.db, deps.domain.now));
  admin.get('/info', (_req, reply) => {
    const file = deps.domain.db.file;
    const inMemory = file === ':memory:' || file.startsWith('file:');
    const log = deps.requestLog;
    return sendJson(reply, 200, {
      database: inMemory ? null : resolve(file),
      in_memory: inMemory,
      request_log: log ? { entries: log.size, max_entries: log.maxEntries, max_bytes: log.maxBytes } : null,
      state: stateOf(deps.domain),
    });
  });
  let openapi: string | undefined;
  admin.get('/openapi.json', (_req, reply) => {
    openapi ??= JSON.stringify(buildAdminOpenApi(), null, 2);
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(openapi);
  });
};
