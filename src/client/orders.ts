/** The orders endpoint: the idempotent upsert (POST /v1/orders/placed), an import's hot path. */
import type { Order, OrderInput } from '../contract/types.js';
import { orderAnswerMismatch } from './answer-identity.js';
import type { RequestPipeline } from './pipeline.js';
import type { ApiResult, CallOptions } from './types.js';

export function upsertOrder(
  pipeline: RequestPipeline,
  order: OrderInput,
  opts?: CallOptions & { integrationToken?: string },
): Promise<ApiResult<Order>> {
  return pipeline.sendJson<Order>(
    'POST',
    '/v1/orders/placed',
    'POST /v1/orders/placed',
    order,
    'idempotent',
    opts,
    opts?.integrationToken,
    // The answer must be this order's (answer-identity.ts).
    (answer) => orderAnswerMismatch(order.order_id, answer.bytes, answer.body),
  );
}
