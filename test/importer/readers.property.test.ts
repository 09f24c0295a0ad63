/**
 * Property-based tests of the bulk readers (fast-check): for any generated CSV or NDJSON input —
 * random quoting, line ends, BOM, encodings, chunking, ragged rows, bad bytes, deep nesting —
 * every data row comes out exactly once, in order, at its physical line, the outcomes add up to the
 * rows, the report has one line per row, and nothing throws.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEventLine } from '../../src/bulk/adapters/event-lines.js';
import { dryRunOrders } from '../../src/bulk/adapters/orders.js';
import { openReport } from '../../src/bulk/report.js';
import { type CsvItem, openCsv } from '../../src/bulk/sources/csv-source.js';
import { readLineBatches } from '../../src/bulk/sources/ndjson-source.js';
import { parseMaps, resolveColumns } from '../../src/importer/mapping.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = ['order_id', 'total', 'currency', 'order_date', 'email'];

/** A cell: plain, or with the characters that force quoting, non-ASCII letters and emoji. */
const cell = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9 .@-]{0,12}$/),
  fc.constantFrom('a,b', 'say "hi"', 'two\nlines', 'Müller', '東京', '😀', '', '  x  ', 'a;b'),
);

interface Row {
  cells: string[];
  /** The row has a different number of fields than the header. */
  ragged: boolean;
}

const row: fc.Arbitrary<Row> = fc.oneof(
  { weight: 5, arbitrary: fc.array(cell, { minLength: 5, maxLength: 5 }).map((cells) => ({ cells, ragged: false })) },
  { weight: 1, arbitrary: fc.array(cell, { minLength: 2, maxLength: 3 }).map((cells) => ({ cells, ragged: true })) },
);

const quote = (c: string, always: boolean) => (always || /[",\n\r;]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);

/** Splits bytes into random chunks, as a pipe would deliver them. */
function chunked(bytes: Buffer, cuts: number[]): Readable {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    parts.push(bytes.subarray(at, p));
    at = p;
  }
  parts.push(bytes.subarray(at));
  return Readable.from(parts.filter((p) => p.length > 0));
}

describe('CSV reader properties', () => {
  it('every data row exactly once, in order, at its physical line; ragged rows are error items', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('utf-8', 'utf-16le'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (rows, eol, bom, quoteAll, encoding, cuts) => {
          // Rows that are all blank cells read as blank lines (skipped): keep one non-empty cell.
          const data = rows.map((r) => ({ ...r, cells: r.cells.map((c, i) => (i === 0 && c.trim() === '' ? 'id' : c)) }));
          const lines = [HEADER.join(','), ...data.map((r) => r.cells.map((c) => quote(c, quoteAll)).join(','))];
          const text = lines.join(eol) + eol;
          const body = encoding === 'utf-16le' ? Buffer.from(text, 'utf16le') : Buffer.from(text, 'utf8');
          const mark = encoding === 'utf-16le' ? Buffer.from([0xff, 0xfe]) : Buffer.from([0xef, 0xbb, 0xbf]);
          const bytes = bom || encoding === 'utf-16le' ? Buffer.concat([mark, body]) : body;
          const src = await openCsv(chunked(bytes, cuts), { name: 'p.csv', delimiter: ',' });
          const items: CsvItem[] = [];
          for await (const item of src.items) items.push(item);
          expect(items).toHaveLength(data.length);
          let line = 2;
          data.forEach((r, i) => {
            const item = items[i];
            expect(item?.line).toBe(line);
            if (r.ragged) expect(item).toMatchObject({ kind: 'error', code: 'ragged_row' });
            else expect(item).toEqual({ kind: 'row', line, cells: r.cells.map((c) => c) });
            line += 1 + r.cells.reduce((n, c) => n + (c.match(/\n/g)?.length ?? 0), 0);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('bad bytes in a stream reject exactly the rows that hold them; counts add up and the report has every row once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 25 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (spec, cuts) => {
          // spec: [valid order?, holds a Latin-1 byte?]
          const parts: Buffer[] = [Buffer.from(`${HEADER.join(',')}\n`)];
          spec.forEach(([valid, bad], i) => {
            const id = Buffer.concat([Buffer.from(`O-${i}`), bad ? Buffer.from([0xe9]) : Buffer.alloc(0)]);
            parts.push(id, Buffer.from(valid ? ',1.00,EUR,2026-01-01,a@example.com\n' : ',x,EUR,2026-01-01,a@example.com\n'));
          });
          const src = await openCsv(chunked(Buffer.concat(parts), cuts), { name: 'p.csv' });
          const layout = resolveColumns(src.header, parseMaps([]), src.delimiter);
          const path = join(dir, `r-${Math.random().toString(36).slice(2)}.csv`);
          const report = openReport<string>(path, { idColumn: 'order_id' });
          const result = await dryRunOrders(src, layout, { delimiter: ',', initialSync: false }, report);
          report.close();
          expect(result.summary.rows).toBe(spec.length);
          expect(result.summary.valid + result.summary.rejected).toBe(spec.length);
          expect(result.summary.valid).toBe(spec.filter(([valid, bad]) => valid && !bad).length);
          const reportLines = readFileSync(path, 'utf8').trimEnd().split('\n').slice(1);
          expect(reportLines.map((l) => Number(l.split(',')[0]))).toEqual(spec.map((_, i) => i + 2));
          spec.forEach(([, bad], i) => {
            if (bad) expect(reportLines[i]).toContain('invalid_encoding');
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('NDJSON reader properties', () => {
  const line = fc.oneof(
    fc.constantFrom('{"event_type":"a","email":"a@example.com"}', '', '   ', '{not json', '[]', '{"event_type":"a"}'),
    fc.nat({ max: 200 }).map((d) => `{"event_type":"d","email":"d@example.com","properties":{"x":${'['.repeat(d)}${']'.repeat(d)}}}`),
    fc.string({ maxLength: 20 }).map((s) => JSON.stringify({ event_type: s || 'x', email: 'e@example.com' })),
  );

  it('every non-blank line is counted once at its line number, each parses to an event or a rejection, nothing throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(line, fc.boolean()), { maxLength: 40 }),
        fc.constantFrom('\n', '\r\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (spec, eol, cuts) => {
          const parts = spec.map(([text, bad]) =>
            Buffer.concat([Buffer.from(text), bad ? Buffer.from([0xff]) : Buffer.alloc(0), Buffer.from(eol)]),
          );
          const seen: number[] = [];
          for await (const batch of readLineBatches(chunked(Buffer.concat(parts), cuts))) {
            for (const raw of batch) {
              const parsed = parseEventLine(raw, {});
              const [text, bad] = spec[raw.line - 1] as [string, boolean];
              if (bad) expect(parsed).toMatchObject({ kind: 'invalid', code: 'invalid_encoding' });
              else if (text.trim() === '') expect(parsed.kind).toBe('blank');
              else expect(['event', 'invalid']).toContain(parsed.kind);
              if (/\[{64,}/.test(text) && !bad) {
                const depth = text.match(/\[+/)?.[0].length ?? 0;
                // The properties object is level 1, its x level 2: brackets start at level 2.
                if (depth + 1 > 64) expect(parsed).toMatchObject({ kind: 'invalid', message: expect.stringContaining('64 levels') });
              }
              seen.push(raw.line);
            }
          }
          expect(seen).toEqual(spec.map((_, i) => i + 1));
        },
      ),
      { numRuns: 150 },
    );
  });
});
