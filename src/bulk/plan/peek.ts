/**
 * The first rows of a CSV source, read ahead so that a guard can decide on them before anything is
 * sent, then handed on with the rest: stdin and pipes cannot be read twice (docs/importer.md,
 * "Guards").
 */
import type { CsvItem, CsvSource } from '../sources/csv-source.js';

/** How many rows of a stream a guard decides on. */
export const GUARD_STREAM_ROWS = 10_000;

function withBatches(source: CsvSource, batches: AsyncIterable<CsvItem[]>): CsvSource {
  return {
    ...source,
    batches,
    items: (async function* () {
      for await (const b of batches) yield* b;
    })(),
    bytesRead: () => source.bytesRead(),
  };
}

/**
 * Reads batches until `rows` items are at hand (or the input ends). `head` yields those alone;
 * `whole` yields them and then the rest of the input (iterate only one of the two, once).
 */
export async function peekCsv(source: CsvSource, rows: number): Promise<{ head: CsvSource; whole: CsvSource; complete: boolean }> {
  const it = source.batches[Symbol.asyncIterator]();
  const taken: CsvItem[][] = [];
  let count = 0;
  let complete = false;
  while (count < rows) {
    const next = await it.next();
    if (next.done) {
      complete = true;
      break;
    }
    taken.push(next.value);
    count += next.value.length;
  }
  const head = (async function* () {
    yield* taken;
  })();
  const whole = (async function* () {
    yield* taken;
    if (complete) return;
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  return { head: withBatches(source, head), whole: withBatches(source, whole), complete };
}
