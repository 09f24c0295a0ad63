/** The events endpoint: POST /v1/events, not idempotent (retried only when certainly not processed). */
import type { EventAccepted, EventInput } from '../contract/types.js';
import { type AnswerLedger, eventAnswerId, eventAnswerShapeMismatch } from './answer-identity.js';
import type { RequestPipeline } from './pipeline.js';
import type { ApiResult, CallOptions } from './types.js';

/** `ledger`: the event ids answered so far in this run; an id answered twice is an answer that belongs to another request. */
export function sendEvent(
  pipeline: RequestPipeline,
  event: EventInput,
  opts: CallOptions | undefined,
  ledger: AnswerLedger,
): Promise<ApiResult<EventAccepted>> {
  const eventId = (event as { event_id?: unknown }).event_id;
  return pipeline.sendJson<EventAccepted>('POST', '/v1/events', 'POST /v1/events', event, 'non_idempotent', opts, undefined, (answer) => {
    const id = eventAnswerId(answer.bytes, answer.body);
    if (id === undefined) return eventAnswerShapeMismatch(answer.body());
    return ledger.note(id, typeof eventId === 'string' ? eventId : undefined);
  });
}
