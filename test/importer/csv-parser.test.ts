/**
 * The CSV parser (csv-parser.ts, Papa Parse through `Papa.parse(readable, { chunk })`): the same
 * records and physical lines as csv-parse reads from the same text, however the text is cut;
 * an unclosed quote and a record over the limit named at the line where they start.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvRecordReader, type ParsedItem } from '../../src/bulk/sources/csv-reader.js';
import { detectLineEnd } from '../../src/bulk/sources/sniff.js';

async function readAll(pieces: string[], opts: { delimiter?: string; newline?: '\n' | '\r\n'; max?: number } = {}) {
  const reader = new CsvRecordReader({ delimiter: opts.delimiter ?? ',', newline: opts.newline, maxRecordChars: opts.max ?? 1 << 20 });
  const items: ParsedItem[] = [];
  for (const p of pieces) {
    reader.write(p);
    await reader.parsed();
    items.push(...reader.take());
  }
  await reader.end();
  items.push(...reader.take());
  return items;
}

/** Cuts text at the given points (whole UTF-16 code points: the reader is given decoded text). */
function cut(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let at = 0;
  for (let p of [...points, text.length]) {
    if (/[\uD800-\uDBFF]/.test(text.charAt(p - 1))) p++;
    if (p <= at) continue;
    pieces.push(text.slice(at, p));
    at = p;
  }
  return pieces;
}

const cell = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9 .@-]{0,8}$/),
  fc.constantFrom('a,b', 'say "hi"', 'two\nlines', 'é😀', '', ' x ', 'a;b', 'a"b'),
);
const quote = (c: string) => (/[",\r\n]/.test(c) && !/^[^",\r\n]*"[^",\r\n]*$/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);

describe('CsvRecordReader', () => {
  it('gives the records csv-parse gives, at their physical lines, for any cutting of the text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 25 }),
        fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (rows, eol, quoteAll, cuts) => {
          // A line break inside a cell is the file's own line end (a file keeps one kind: line-ends.ts).
          const lines = rows.map((r) =>
            r
              .map((c) => c.replace(/\n/g, eol))
              .map((c) => (quoteAll ? `"${c.replace(/"/g, '""')}"` : quote(c)))
              .join(','),
          );
          const text = lines.join(eol) + eol;
          const expected = parse(text, { relax_column_count: true, relax_quotes: true, record_delimiter: eol }) as string[][];
          // The physical line each record ends on (csv-parse's own count takes a CRLF inside quotes for two).
          let line = 0;
          const lastLines = rows.map((r) => {
            line += 1 + r.reduce((n, c) => n + (c.match(/\n/g)?.length ?? 0), 0);
            return line;
          });
          const items = await readAll(cut(text, cuts), { newline: eol });
          const records = items.filter((i) => i.kind === 'record');
          expect(items.filter((i) => i.kind === 'problem')).toEqual([]);
          expect(records.map((r) => r.record)).toEqual(expected);
          expect(records.map((r) => r.lastLine)).toEqual(lastLines);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('names the line where a quote that is never closed opens, and the last line it swallowed', async () => {
    const items = await readAll(['id,note\n1,ok\n2,"open\n3,x\n', '4,y\n']);
    expect(items).toEqual([
      { kind: 'record', record: ['id', 'note'], line: 1, lastLine: 1 },
      { kind: 'record', record: ['1', 'ok'], line: 2, lastLine: 2 },
      expect.objectContaining({ kind: 'problem', code: 'unclosed_quote', line: 3, lastLine: 5 }),
    ]);
  });

  it('refuses a quoted field that goes on after its closing quote, naming the lines it spans, and reads on', async () => {
    const items = await readAll(['id,note\n1,"a"b"\n2,c\n3,"x"y,\nz"\n4,d\n']);
    expect(items.slice(1)).toEqual([
      expect.objectContaining({ kind: 'problem', code: 'csv_error', line: 2, lastLine: 2 }),
      { kind: 'record', record: ['2', 'c'], line: 3, lastLine: 3 },
      expect.objectContaining({ kind: 'problem', code: 'csv_error', line: 4, lastLine: 5 }),
      { kind: 'record', record: ['4', 'd'], line: 6, lastLine: 6 },
    ]);
  });

  it('stops at a record over the limit, at the line it starts on, whatever follows', async () => {
    const items = await readAll(['id,note\n1,ok\n\n', `2,${'x'.repeat(50)}`, 'y'.repeat(50), '\n3,z\n'], { max: 80 });
    expect(items).toEqual([
      { kind: 'record', record: ['id', 'note'], line: 1, lastLine: 1 },
      { kind: 'record', record: ['1', 'ok'], line: 2, lastLine: 2 },
      { kind: 'record', record: [''], line: 3, lastLine: 3 },
      expect.objectContaining({ kind: 'problem', code: 'record_too_large', line: 4 }),
    ]);
  });

  it('counts the lines of a file whose lines end with a bare CR, quoted line breaks included', async () => {
    const items = await readAll(['id,note\r1,"two\rlines"\r2,x\r']);
    expect(items.filter((i) => i.kind === 'record' && i.record[0] !== '')).toEqual([
      { kind: 'record', record: ['id', 'note'], line: 1, lastLine: 1 },
      { kind: 'record', record: ['1', 'two\rlines'], line: 2, lastLine: 3 },
      { kind: 'record', record: ['2', 'x'], line: 4, lastLine: 4 },
    ]);
  });

  it('reads tab- and semicolon-separated text', async () => {
    expect(await readAll(['a\tb\n1\t"x\ty"\n'], { delimiter: '\t' })).toMatchObject([{ record: ['a', 'b'] }, { record: ['1', 'x\ty'] }]);
    expect(await readAll(['a;b\r\n1;2,5\r\n'], { delimiter: ';', newline: '\r\n' })).toMatchObject([
      { record: ['a', 'b'] },
      { record: ['1', '2,5'] },
    ]);
  });
});

describe('detectLineEnd (the line end the parser is given; Papa Parse finds it when this cannot tell)', () => {
  it("takes the header line's own line end, and leaves the parser alone when it cannot tell", () => {
    expect(detectLineEnd('Name,Email\r\n#1,a@example.com\r\n')).toBe('\r\n');
    expect(detectLineEnd('Name,Email\n#1,a@example.com\r\n')).toBe('\n');
    // A bare CR ends lines (old Mac files): the parser finds it.
    expect(detectLineEnd('Name,Email\r#1,a@example.com\r')).toBeUndefined();
    // The CR is the last character read so far: its LF may be in the next read.
    expect(detectLineEnd('Name,Email\r')).toBeUndefined();
    // No line end yet, or a quote before it (a quoted header could hold a line break).
    expect(detectLineEnd('Name,Email')).toBeUndefined();
    expect(detectLineEnd('"Name",Email\r\n#1,x\r\n')).toBeUndefined();
  });
});
