/** Request ids (`X-Request-Id`, `error.request_id`): unique within a run, ordered, short. */
import { randomUUID } from 'node:crypto';

let counter = 0;
const bootId = randomUUID().slice(0, 8);

export function nextRequestId(): string {
  return `req_${bootId}${(++counter).toString(36).padStart(8, '0')}`;
}

const arrivals = new WeakMap<object, number>();

/** Notes when a request arrived (performance.now()), as the server first sees it. */
export function noteArrival(raw: object): void {
  arrivals.set(raw, performance.now());
}

/** When a request arrived (performance.now()), or undefined for one the server did not note (an injected request). */
export function arrivalOf(raw: object): number | undefined {
  return arrivals.get(raw);
}
