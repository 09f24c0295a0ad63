/** Custom events, POST /v1/events. */
import type { FastifyPluginAsync } from 'fastify';
import { validateEventInput } from '../../contract/events.js';
import type { EventAccepted } from '../../contract/types.js';
import type { RouteOptions } from '../deps.js';
import { sendEvent } from '../domain/events.js';
import { serviceRoute } from '../service-route.js';
import { requireBody, validated } from './validated.js';

export const eventRoutes: FastifyPluginAsync<RouteOptions> = async (app, { deps }) => {
  serviceRoute<{ Body: unknown; Reply: EventAccepted }>(app, deps, 'sendEvent', ({ principal, req }) => {
    const event = validated(validateEventInput(requireBody(req.body)));
    const r = sendEvent(deps.domain, principal.businessId, event);
    return { status: 200, body: { status: 'accepted', id: r.id } };
  });
};
