/**
 * A line over the record limit is rejected as soon as it passes the limit (issue 36, finding 9):
 * a 256 MB line, generated as a stream and never held whole, ends the reading within seconds
 * at its real line number, after reading little more than the limit.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CsvItem, openCsv } from '../../src/bulk/sources/csv-source.js';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** The header, two rows, a blank line, then one line of `size` bytes without a quote or a line end, then more rows. */
function longLineInput(size: number, counter: { bytes: number }): Readable {
  const piece = Buffer.alloc(CHUNK, 'x'.charCodeAt(0));
  return Readable.from(
    (function* () {
      const head = Buffer.from('order_id,note\nA-1,ok\nA-2,fine\n\nA-3,');
      counter.bytes += head.length;
      yield head;
      for (let sent = 0; sent < size; sent += CHUNK) {
        counter.bytes += CHUNK;
        yield piece;
      }
      yield Buffer.from('\nA-4,after\n');
    })(),
    { objectMode: false },
  );
}

describe('long lines', () => {
  it('a 256 MB line is rejected at 1 MiB, within seconds, naming its line, in bounded memory', async () => {
    const counter = { bytes: 0 };
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    const src = await openCsv(longLineInput(256 * MiB, counter), { name: 'long.csv' });
    const items: CsvItem[] = [];
    let heapPeak = 0;
    for await (const item of src.items) {
      items.push(item);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
    const seconds = (Date.now() - started) / 1000;
    expect(items).toEqual([
      { kind: 'row', line: 2, cells: ['A-1', 'ok'] },
      { kind: 'row', line: 3, cells: ['A-2', 'fine'] },
      {
        kind: 'error',
        line: 5,
        code: 'record_too_large',
        message: expect.stringMatching(/^the row starting on line 5 runs past 1 MiB .*could not be read from line 5 on/),
      },
    ]);
    // Read about the limit, not the line: a few chunks past 1 MiB of the 256 MB.
    expect(counter.bytes).toBeLessThan(MiB + 8 * CHUNK);
    expect(seconds).toBeLessThan(10);
    // The heap held about the limit (the text and its cut pieces), not the line.
    expect(Math.max(heapPeak, process.memoryUsage().heapUsed) - heapBefore).toBeLessThan(64 * MiB);
  });

  it('a line just under the limit is read as a row', async () => {
    const cell = 'y'.repeat(MiB - 100);
    const text = `order_id,note\nA-1,${cell}\nA-2,ok\n`;
    const chunks = text.match(/[\s\S]{1,65536}/g) ?? [];
    const src = await openCsv(Readable.from(chunks), { name: 'near.csv' });
    const items: CsvItem[] = [];
    for await (const item of src.items) items.push(item);
    expect(items.map((i) => [i.kind, i.line])).toEqual([
      ['row', 2],
      ['row', 3],
    ]);
    expect((items[0] as { cells: string[] }).cells[1]).toHaveLength(MiB - 100);
  });
});
