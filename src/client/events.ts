/** The events endpoint: POST /v1/events, not idempotent (retried only when certainly not processed). */
import type { EventAccepted, EventInput } from '../contract/types.js';
import type { RequestPipeline } from './pipeline.js';
import type { ApiResult, CallOptions } from './types.js';

export function sendEvent(pipeline: RequestPipeline, event: EventInput, opts?: CallOptions): Promise<ApiResult<EventAccepted>> {
  return pipeline.sendJson<EventAccepted>('POST', '/v1/events', 'POST /v1/events', event, 'non_idempotent', opts);
}
