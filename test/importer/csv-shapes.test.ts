/**
 * The shapes real shop exports have (csv-source.ts CsvShape): a header below a blank line or a
 * title, footer lines that are not records, `;` and tab delimiters found from the header line,
 * and a header whose cells are quoted and unquoted at random.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CsvItem, type OpenCsvOptions, openCsv } from '../../src/bulk/sources/csv-source.js';

const fx = (name: string) => join(import.meta.dirname, '../../fixtures/csv', name);

async function readAll(input: Readable, opts: Partial<OpenCsvOptions> = {}) {
  const src = await openCsv(input, { name: 'shape.csv', ...opts });
  const items: CsvItem[] = [];
  for await (const item of src.items) items.push(item);
  return { src, items };
}

const EBAY_FOOTER = /^\d+ record\(s\) downloaded|^Seller ID\s*:/;

describe('CSV shapes of shop exports', () => {
  it('a blank first line, a header quoted cell by cell, and footer lines declared as such', async () => {
    const { src, items } = await readAll(createReadStream(fx('ebay-shaped-orders.csv')), { footerPattern: EBAY_FOOTER });
    expect(src.header).toEqual(['Sales Record Number', 'Order Number', 'Buyer Username', 'Buyer Email', 'Total Price', 'Sale Date']);
    expect(src.delimiter).toBe(',');
    expect(src.lineEnd).toBe('\r\n');
    expect(items).toEqual([
      { kind: 'row', line: 3, cells: ['1001', '12-11111-22222', 'ann_b', 'ann@example.com', '$1,299.00', 'Jun-10-24'] },
      { kind: 'row', line: 4, cells: ['1002', '12-33333-44444', 'bo, jr', 'bo@example.com', '$9.50', 'Jun-11-24'] },
    ]);
  });

  it('without a footer pattern the same lines are read as any line is (nothing dropped silently)', async () => {
    const { items } = await readAll(createReadStream(fx('ebay-shaped-orders.csv')));
    expect(items.map((i) => [i.kind, i.line])).toEqual([
      ['row', 3],
      ['row', 4],
      ['row', 7],
      ['error', 8],
    ]);
    expect(items[3]).toMatchObject({ code: 'ragged_row', message: expect.stringContaining('line 8 has 1 field') });
  });

  it('a line matching the footer pattern with a record after it is read as a row, in its place', async () => {
    const text = 'id,note\n1,a\n3 record(s) downloaded,x\n2,b\n4 record(s) downloaded\n';
    const { items } = await readAll(Readable.from([text]), { footerPattern: EBAY_FOOTER });
    expect(items).toEqual([
      { kind: 'row', line: 2, cells: ['1', 'a'] },
      { kind: 'row', line: 3, cells: ['3 record(s) downloaded', 'x'] },
      { kind: 'row', line: 4, cells: ['2', 'b'] },
    ]);
  });

  it('sniffs `;` from the header line below a blank first line (German eBay), and tab (Amazon)', async () => {
    const semi = await readAll(createReadStream(fx('semicolon-first-blank.csv')));
    expect(semi.src.delimiter).toBe(';');
    expect(semi.src.header).toEqual(['Verkaufsprotokollnummer', 'Bestellnummer', 'Käufer-E-Mail', 'Gesamtpreis']);
    expect(semi.items).toEqual([
      { kind: 'row', line: 3, cells: ['1', '12-1', 'a@example.de', '116,99 €'] },
      { kind: 'row', line: 4, cells: ['2', '12-2', 'b@example.de', '5,00 €'] },
    ]);
    const tab = await readAll(createReadStream(fx('tab-orders.tsv')));
    expect(tab.src.delimiter).toBe('\t');
    expect(tab.items[1]).toEqual({ kind: 'row', line: 3, cells: ['111-2', '2024-06-11T10:00:00+00:00', '3.50'] });
  });

  it('skips the lines before the header a preset declares, and sniffs the delimiter from the header', async () => {
    const text = 'Orders report, all sites\nfrom 2024-06-01; to 2024-06-30\nid;total\n1;2,50\n';
    // Arriving a few characters at a time, as a pipe may deliver it.
    const pieces = text.match(/[\s\S]{1,7}/g) ?? [];
    const { src, items } = await readAll(Readable.from(pieces), { skipLinesBeforeHeader: 2 });
    expect(src.delimiter).toBe(';');
    expect(src.header).toEqual(['id', 'total']);
    expect(items).toEqual([{ kind: 'row', line: 4, cells: ['1', '2,50'] }]);
  });

  it('finds the header by matching, or refuses the file naming what it looked for', async () => {
    const text = 'Seller Hub report\n\nSales Record Number,Order Number\n7,12-7\n';
    const headerMatch = (cells: string[]) => cells.includes('Order Number');
    const { src, items } = await readAll(Readable.from([text]), { headerMatch });
    expect(src.header).toEqual(['Sales Record Number', 'Order Number']);
    expect(items).toEqual([{ kind: 'row', line: 4, cells: ['7', '12-7'] }]);
    await expect(
      openCsv(Readable.from(['a,b\n1,2\n']), { name: 'x.csv', headerMatch, headerDescription: 'a line with Order Number' }),
    ).rejects.toThrow('x.csv: no line is the header (a line with Order Number)');
  });
});
