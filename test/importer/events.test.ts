/** The events adapter (bulk/adapters/events.ts) with a stand-in client: which parts of the answers it reads. */
import { describe, expect, it } from 'vitest';
import type { EventOutcome } from '../../src/bulk/adapters/event-outcome.js';
import { createEventSend, type EventSender } from '../../src/bulk/adapters/events.js';
import type { RowResult } from '../../src/bulk/outcome.js';

/** A client whose answers count the reads of their body (the id is parsed from it). */
function countingClient() {
  const reads = { body: 0 };
  let n = 0;
  const client: EventSender = {
    async sendEvent() {
      const id = `ev_${++n}`;
      return {
        status: 202,
        uncertain: false,
        get body() {
          reads.body++;
          return { id } as never;
        },
      };
    },
  };
  return { client, reads };
}

async function* lines(n: number) {
  yield Array.from({ length: n }, (_, i) => ({
    line: i + 1,
    text: JSON.stringify({ event_type: 'page_viewed', email: `p${i}@example.com` }),
  }));
}

const signal = new AbortController().signal;

describe('the events adapter and the answers’ ids', () => {
  it('reads each id by default (the report has an id column)', async () => {
    const { client, reads } = countingClient();
    const results: RowResult<EventOutcome>[] = [];
    const summary = await createEventSend({ client, lines: lines(5), concurrency: 2, signal, onResult: (r) => results.push(r) }).run();
    expect(summary.accepted).toBe(5);
    expect(reads.body).toBe(5);
    expect(results.map((r) => r.id).sort()).toEqual(['ev_1', 'ev_2', 'ev_3', 'ev_4', 'ev_5']);
  });

  it('with ids: false (no report) never reads an answer’s body, and counts the same', async () => {
    const { client, reads } = countingClient();
    const results: RowResult<EventOutcome>[] = [];
    const summary = await createEventSend({
      client,
      lines: lines(5),
      concurrency: 2,
      signal,
      ids: false,
      onResult: (r) => results.push(r),
    }).run();
    expect(summary.accepted).toBe(5);
    expect(reads.body).toBe(0);
    expect(results.every((r) => r.outcome === 'accepted' && r.id === '')).toBe(true);
  });
});
