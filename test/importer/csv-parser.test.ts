/** The CSV parser's field decoding (csv-parser.ts): the same records as csv-parse's own, without a Buffer per field. */
import { Parser } from 'csv-parse';
import { describe, expect, it } from 'vitest';
import { LineCountingParser, type ParsedRecord } from '../../src/importer/csv-parser.js';

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
