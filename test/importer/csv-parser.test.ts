/**
 * The CSV parser (csv-parser.ts): the same records as csv-parse's own, without a Buffer per field,
 * and lines without a quote split without csv-parse, with the same records, lines and errors.
 */
import { Parser } from 'csv-parse';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineCountingParser, type ParsedRecord } from '../../src/importer/csv-parser.js';
import { detectLineEnd } from '../../src/importer/sniff.js';

const OPTIONS = { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, skip_records_with_error: true };

function parse<T>(parser: Parser, input: string | Buffer, chunk: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    parser.on('data', (r: T) => out.push(r));
    parser.on('error', reject);
    parser.on('end', () => resolve(out));
    const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input, 'utf8');
    for (let i = 0; i < bytes.length; i += chunk) parser.write(bytes.subarray(i, i + chunk));
    parser.end();
  });
}

const SAMPLE = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    'Name,Email,Note,,Total\r\n#1001,a@example.com,"quoted, with comma",,1.00\r\n#1002,,"multi\nline ""q""",x,\r\n,,,,\r\n#1003,é€😀@example.com,naïve,"",12\r\n',
    'utf8',
  ),
]);

describe('LineCountingParser field decoding', () => {
  for (const chunk of [1, 3, 7, 4096]) {
    it(`gives csv-parse's records, empty fields, quotes, multi-byte characters and a BOM included (chunks of ${chunk} bytes)`, async () => {
      const expected = await parse<string[]>(new Parser(OPTIONS), SAMPLE, chunk);
      const got = await parse<ParsedRecord>(new LineCountingParser(OPTIONS), SAMPLE, chunk);
      expect(got.map((r) => r.record)).toEqual(expected);
      expect(expected[1]).toEqual(['#1001', 'a@example.com', 'quoted, with comma', '', '1.00']);
      expect(expected.at(-1)).toEqual(['#1003', 'é€😀@example.com', 'naïve', '', '12']);
    });
  }

  it('decodes a field without a Buffer view of it (its own toString on the parser’s field buffer)', () => {
    const parser = new LineCountingParser(OPTIONS);
    const field = (parser as unknown as { state: { field: { toString: unknown } } }).state.field;
    expect(Object.hasOwn(field, 'toString')).toBe(true);
  });
});

/** Runs a parser over pieces (strings or bytes): its records, its 'skip' errors and a stream error. */
type Run = { records: ParsedRecord[]; skips: Array<[string | undefined, number | undefined, string | undefined]>; error?: string };

function run(parser: LineCountingParser, pieces: Array<string | Buffer>) {
  return new Promise<Run>((resolve) => {
    const records: ParsedRecord[] = [];
    const skips: Array<[string | undefined, number | undefined, string | undefined]> = [];
    parser.on('skip', (err: { code?: string; lines?: number; message?: string }) => skips.push([err.code, err.lines, err.message]));
    parser.on('data', (r: ParsedRecord) => records.push(r));
    parser.on('error', (err) => resolve({ records, skips, error: String(err) }));
    parser.on('end', () => resolve({ records, skips }));
    for (const p of pieces) parser.write(p);
    parser.end();
  });
}

/**
 * What the reader uses of a run: csv-parse cannot go on after a record over its size limit (and
 * reports it once per write it was given), so csv-source stops at the first such error.
 */
function untilOversized(run: Run): Run {
  const at = run.skips.findIndex(([code]) => code === 'CSV_MAX_RECORD_SIZE');
  if (at === -1) return run;
  const line = run.skips[at]?.[1] ?? 0;
  return { records: run.records.filter((r) => r.lines < line), skips: run.skips.slice(0, at + 1) };
}

const LIMITED = { ...OPTIONS, delimiter: ',', max_record_size: 60 };

describe('LineCountingParser lines without a quote (split, not read by csv-parse)', () => {
  /** Text whose lines mix plain cells with quotes, stray CRs and LFs, long cells and blank lines. */
  const text = fc
    .array(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom('a', 'bc', ',', ',', '', 'é', '😀', ' ') },
        { weight: 2, arbitrary: fc.constantFrom('"', '""', '"x,y"', ',"q"') },
        // Whole quoted cells (split here too) and quotes that are not (left to csv-parse).
        { weight: 3, arbitrary: fc.constantFrom(',"ab",', '"é😀"', ',"",', '"a"b', 'a"b"', ' "c"', '"d" ', '"e""f"', ',"g,h",') },
        { weight: 3, arbitrary: fc.constantFrom('\r\n', '\n') },
        { weight: 1, arbitrary: fc.constantFrom('\r', 'x'.repeat(70)) },
      ),
      { maxLength: 80 },
    )
    .map((parts) => parts.join(''));

  it('gives what csv-parse alone gives: records, physical lines and errors, for any input and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('h1,h2\r\n', 'h1,h2\n', 'h,"q"\r\n'),
        text,
        fc.array(fc.nat(200), { maxLength: 6 }),
        fc.boolean(),
        async (header, body, cuts, bytes) => {
          const input = header + body;
          const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
          const pieces: Array<string | Buffer> = [];
          let at = 0;
          for (let p of [...points, input.length]) {
            // Text is written in whole characters (csv-source cuts after a line end); bytes anywhere.
            if (!bytes && /[\uD800-\uDBFF]/.test(input.charAt(p - 1))) p++;
            if (p <= at) continue;
            const piece = input.slice(at, p);
            at = p;
            if (piece !== '') pieces.push(bytes ? Buffer.from(piece) : piece);
          }
          const expected = await run(new LineCountingParser(LIMITED), pieces);
          const got = await run(new LineCountingParser({ ...LIMITED, lineEnd: detectLineEnd(input) }), pieces);
          expect(untilOversized(got)).toEqual(untilOversized(expected));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('splits quote-free lines itself: csv-parse reads only the header and the lines with a quote', async () => {
    const parser = new LineCountingParser({ ...OPTIONS, delimiter: ',', lineEnd: '\r\n' });
    const { records } = await run(parser, ['Name,Note\r\n#1,plain\r\n', '\r\n#2,"quoted ""one""",\r\n#3,', 'after\r\n#4,last']);
    expect(records).toEqual([
      { record: ['Name', 'Note'], lines: 1 },
      { record: ['#1', 'plain'], lines: 2 },
      { record: ['#2', 'quoted "one"', ''], lines: 4 },
      { record: ['#3', 'after'], lines: 5 },
      { record: ['#4', 'last'], lines: 6 },
    ]);
    // csv-parse's own record count (its documented info): the header and the quoted line only.
    expect(parser.info.records).toBe(2);
  });
  it('splits lines whose quotes only wrap whole cells too (a quoted delimiter included); a doubled quote or a space goes to csv-parse', async () => {
    const parser = new LineCountingParser({ ...OPTIONS, delimiter: ',', lineEnd: '\n' });
    const { records } = await run(parser, [
      'ID,Name,Total\n"1","Ann","9.50"\n2,"",3\n"3","Lee, Bo","1"\n"4","say ""hi""",2\n5, "x",1\n"6","Zoë",7\n',
    ]);
    expect(records).toEqual([
      { record: ['ID', 'Name', 'Total'], lines: 1 },
      { record: ['1', 'Ann', '9.50'], lines: 2 },
      { record: ['2', '', '3'], lines: 3 },
      { record: ['3', 'Lee, Bo', '1'], lines: 4 },
      { record: ['4', 'say "hi"', '2'], lines: 5 },
      { record: ['5', ' "x"', '1'], lines: 6 },
      { record: ['6', 'Zoë', '7'], lines: 7 },
    ]);
    // csv-parse read the header and the two lines whose quotes do not just wrap a cell.
    expect(parser.info.records).toBe(3);
  });
});

describe('detectLineEnd (the line end the quote-free path splits at, as csv-parse finds it)', () => {
  it("takes the header line's own line end, and leaves csv-parse alone when it cannot tell", () => {
    expect(detectLineEnd('Name,Email\r\n#1,a@example.com\r\n')).toBe('\r\n');
    expect(detectLineEnd('Name,Email\n#1,a@example.com\r\n')).toBe('\n');
    // A bare CR ends lines (old Mac files): csv-parse reads the file alone.
    expect(detectLineEnd('Name,Email\r#1,a@example.com\r')).toBeUndefined();
    // The CR is the last character read so far: its LF may be in the next read.
    expect(detectLineEnd('Name,Email\r')).toBeUndefined();
    // No line end yet, or a quote before it (a quoted header could hold a line break).
    expect(detectLineEnd('Name,Email')).toBeUndefined();
    expect(detectLineEnd('"Name",Email\r\n#1,x\r\n')).toBeUndefined();
  });
});

/**
 * The quote-free splitter and the in-place field decoding read csv-parse's undocumented state
 * (`state.quoting`, `state.stop`, `state.field` with its `buf`, `length` and `toString`). csv-parse
 * is pinned to an exact version in package.json; these checks fail the day an upgrade changes what
 * the reader relies on, before it silently misreads a file.
 */
describe('csv-parse internals the reader relies on', () => {
  it('csv-parse is pinned to the exact version installed', async () => {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const installed = JSON.parse(readFileSync(new URL('../../node_modules/csv-parse/package.json', import.meta.url), 'utf8'));
    expect(pkg.dependencies['csv-parse']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed.version).toBe(pkg.dependencies['csv-parse']);
  });

  it('a parser has state.quoting and state.stop (booleans) and state.field, a buffer with buf, length and toString(encoding)', async () => {
    const parser = new Parser(OPTIONS) as unknown as {
      state: { quoting: unknown; stop: unknown; field: { buf: unknown; length: unknown; toString: (e?: string) => unknown } };
      write(s: string): void;
    };
    expect(parser.state.quoting).toBe(false);
    expect(parser.state.stop).toBe(false);
    expect(Buffer.isBuffer(parser.state.field.buf)).toBe(true);
    expect(parser.state.field.length).toBe(0);
    parser.write('h1,h2\nab,"cdefgh');
    await new Promise((r) => setImmediate(r));
    // Inside a quoted field: quoting; the field a Buffer view and its length.
    expect(parser.state.quoting).toBe(true);
    expect(typeof parser.state.field.length).toBe('number');
    expect(Buffer.isBuffer(parser.state.field.buf)).toBe(true);
    parser.write('"\nx,y\nz,w\n');
    await new Promise((r) => setImmediate(r));
    expect(parser.state.quoting).toBe(false);
    // The method replaced in place (decodeFieldsInPlace) turns the bytes up to length into a string.
    expect(String(Object.getPrototypeOf(parser.state.field).toString)).toContain('this.buf.slice(0, this.length).toString(encoding)');
  });

  it('a parser that stops (here at its `to` record) sets state.stop', async () => {
    const parser = new Parser({ ...OPTIONS, to: 1 }) as unknown as Parser & { state: { stop: boolean } };
    parser.on('error', () => undefined);
    parser.on('data', () => undefined);
    expect(parser.state.stop).toBe(false);
    parser.write('a,b\nc,d\ne,f\n');
    await new Promise((r) => setImmediate(r));
    expect(parser.state.stop).toBe(true);
  });
});
