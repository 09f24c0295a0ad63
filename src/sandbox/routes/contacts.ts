/** The contact operations: list, get, create, update, delete and the deprecated unsubscribe. */
import type { FastifyPluginAsync } from 'fastify';
import { validateContactWrite } from '../../contract/contacts.js';
import type { Contact, ContactPage } from '../../contract/types.js';
import type { RouteOptions } from '../deps.js';
import {
  contactView,
  createContact,
  deleteContact,
  getContact,
  listContacts,
  patchContact,
  unsubscribeContact,
} from '../domain/contacts.js';
import { invalidRequest } from '../domain/errors.js';
import { encodeCursor, parseListQuery } from '../list-query.js';
import { serviceRoute } from '../service-route.js';
import { requireBody, validated } from './validated.js';

type ById = { Params: { id: string } };

export const contactRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  const d = deps.domain;

  serviceRoute<{ Querystring: Record<string, unknown>; Reply: ContactPage }>(app, deps, 'listContacts', ({ principal, req }) => {
    const q = parseListQuery(req.query);
    const page = listContacts(d, principal.businessId, q);
    const next = page.next === null ? null : encodeCursor(page.next);
    const headers: Record<string, string> = {};
    if (next !== null) {
      const params = new URLSearchParams({ ...q.raw, cursor: next });
      headers.link = `<${deps.baseUrl()}/v1/contacts?${params.toString()}>; rel="next"`;
    }
    return { status: 200, body: { data: page.rows.map(contactView), next_cursor: next }, headers };
  });

  serviceRoute<ById & { Reply: Contact }>(app, deps, 'getContact', ({ principal, req }) => ({
    status: 200,
    body: contactView(getContact(d, principal.businessId, req.params.id)),
  }));

  serviceRoute<{ Body: unknown; Reply: Contact }>(app, deps, 'createContact', ({ principal, req }) => {
    const write = validated(validateContactWrite(requireBody(req.body), 'create'));
    const r = createContact(d, principal.businessId, write);
    return { status: r.status, body: contactView(r.contact) };
  });

  serviceRoute<ById & { Body: unknown; Reply: Contact }>(app, deps, 'patchContact', ({ principal, req }) => {
    const write = validated(validateContactWrite(requireBody(req.body), 'patch'));
    return { status: 200, body: contactView(patchContact(d, principal.businessId, req.params.id, write)) };
  });

  serviceRoute<ById>(app, deps, 'deleteContact', ({ principal, req }) => {
    deleteContact(d, principal.businessId, req.params.id);
    return { status: 204 };
  });

  serviceRoute<ById & { Body: unknown; Reply: Contact }>(app, deps, 'unsubscribeContact', ({ principal, req }) => {
    const body = req.body;
    if (body !== undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw invalidRequest([{ field: '(body)', message: 'must be empty or {}' }]);
      const keys = Object.keys(body);
      if (keys.length > 0)
        throw invalidRequest(keys.map((k) => ({ field: k, message: 'is not accepted here; the body must be empty or {}' })));
    }
    const id = req.params.id;
    const row = unsubscribeContact(d, principal.businessId, id);
    return {
      status: 200,
      body: contactView(row),
      headers: { deprecation: 'true', link: `<${deps.baseUrl()}/v1/contacts/${encodeURIComponent(id)}>; rel="successor-version"` },
    };
  });
};
