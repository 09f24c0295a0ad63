/** Request ids (`X-Request-Id`, `error.request_id`): unique within a run, ordered, short. */
import { randomUUID } from 'node:crypto';

let counter = 0;
const bootId = randomUUID().slice(0, 8);

export function nextRequestId(): string {
  return `req_${bootId}${(++counter).toString(36).padStart(8, '0')}`;
}
