/** The order upsert, POST /v1/orders/placed. */
import type { FastifyPluginAsync } from 'fastify';
import { validateOrderInput } from '../../contract/orders.js';
import type { Order } from '../../contract/types.js';
import type { RouteOptions } from '../deps.js';
import { orderView, upsertOrder } from '../domain/orders.js';
import { serviceRoute } from '../service-route.js';
import { requireBody, validated } from './validated.js';

export const orderRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  serviceRoute<{ Body: unknown; Reply: Order }>(app, deps, 'upsertOrder', ({ principal, req }) => {
    const order = validated(validateOrderInput(requireBody(req.body)));
    const header = req.headers['x-service-integration-token'];
    const r = upsertOrder(deps.domain, principal.businessId, order, typeof header === 'string' ? header : header?.join(', '));
    return { status: r.created ? 201 : 200, body: orderView(r.order) };
  });
};
