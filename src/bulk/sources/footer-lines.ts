/**
 * Lines at the end of an export that are not records (eBay's `12 record(s) downloaded, from … to
 * …` and `Seller ID : …`): a row whose text matches the preset's `footer_pattern` is held back; a
 * row after it makes it a row again (read as any line is), the end of the input drops it. Works
 * on any CsvSource, after the mapping is known (a recognised preset says which lines these are).
 */
import type { CsvItem, CsvSource } from './csv-item.js';

/** The line as the pattern sees it: its cells joined by the delimiter, trimmed. */
function textOf(item: CsvItem, delimiter: string): string | undefined {
  const cells = item.cells;
  return cells === undefined
    ? undefined
    : cells
        .join(delimiter)
        .replace(new RegExp(`(${escapeRegExp(delimiter)})+$`), '')
        .trim();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The source with its footer lines left out (the same source when there is no pattern). */
export function withoutFooter(source: CsvSource, pattern: RegExp | undefined): CsvSource {
  if (!pattern) return source;
  const isFooter = (item: CsvItem) => {
    const text = textOf(item, source.delimiter);
    return text !== undefined && text !== '' && pattern.test(text);
  };
  async function* batches(): AsyncGenerator<CsvItem[]> {
    let held: CsvItem[] = [];
    for await (const batch of source.batches) {
      const out: CsvItem[] = [];
      for (const item of batch) {
        if (isFooter(item)) {
          held.push(item);
          continue;
        }
        // A record after a footer-like line: that line was data after all.
        if (held.length > 0) {
          out.push(...held);
          held = [];
        }
        out.push(item);
      }
      if (out.length > 0) yield out;
    }
  }
  const shared = batches();
  return {
    ...source,
    batches: { [Symbol.asyncIterator]: () => shared },
    items: {
      async *[Symbol.asyncIterator]() {
        for await (const batch of shared) yield* batch;
      },
    },
  };
}
