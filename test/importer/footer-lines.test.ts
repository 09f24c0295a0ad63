import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openCsv } from '../../src/bulk/sources/csv-source.js';

const EBAY_FOOTER = /^\d+\s*(,\s*)?record\(s\) downloaded|^seller id\s*:/i;

async function rows(text: string, pattern = EBAY_FOOTER) {
  const source = (await openCsv(Readable.from([text]), { name: 't.csv' })).dropFooter(pattern);
  const out: Array<[string, number, string]> = [];
  for await (const item of source.items) out.push([item.kind, item.line, item.kind === 'row' ? item.cells.join('|') : item.code]);
  return out;
}

describe('footer lines of an export', () => {
  it("eBay's `N record(s) downloaded` and `Seller ID : …` at the end are no rows", async () => {
    const text = 'a,b,c\n1,2,3\n4,5,6\n\n2,record(s) downloaded,from Jun-01-24 to Jun-30-24\nSeller ID : shop_1\n';
    expect(await rows(text)).toEqual([
      ['row', 2, '1|2|3'],
      ['row', 3, '4|5|6'],
    ]);
  });

  it('a line like a footer with a record after it is read as any line is (here: a ragged row)', async () => {
    const text = 'a,b,c\n1,2,3\nSeller ID : shop_1\n4,5,6\n';
    const got = await rows(text);
    expect(got.map((r) => r[0])).toEqual(['row', 'error', 'row']);
    expect(got[1]).toEqual(['error', 3, 'ragged_row']);
  });

  it('without a pattern the same lines are read as any line is', async () => {
    const text = 'a,b,c\n1,2,3\nSeller ID : shop_1\n';
    const source = await openCsv(Readable.from([text]), { name: 't.csv' });
    expect(source.dropFooter(undefined)).toBe(source);
    const got: Array<[string, number]> = [];
    for await (const item of source.items) got.push([item.kind, item.line]);
    expect(got).toEqual([
      ['row', 2],
      ['error', 3],
    ]);
  });

  it('a pattern given at open time and one given after the header are one mechanism: trailing delimiters do not hide a footer', async () => {
    const text = 'a,b,c\n1,2,3\nSeller ID : shop_1,,\n';
    const pattern = /^seller id\s*:[^,]*$/i;
    const opened = await openCsv(Readable.from([text]), { name: 't.csv', footerPattern: pattern });
    const kinds: string[] = [];
    for await (const item of opened.items) kinds.push(item.kind);
    expect(kinds).toEqual(['row']);
    expect(await rows(text, pattern)).toEqual([['row', 2, '1|2|3']]);
  });

  it('the footer is declared before the rows are read', async () => {
    const source = await openCsv(Readable.from(['a\n1\n']), { name: 't.csv' });
    for await (const _ of source.items);
    expect(() => source.dropFooter(EBAY_FOOTER)).toThrow(/before its rows are read/);
  });
});
