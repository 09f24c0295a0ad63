import { createReadStream, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CsvItem, openCsv } from '../../src/bulk/sources/csv-source.js';
import { detectDelimiter } from '../../src/bulk/sources/sniff.js';
import { parseDelimiter } from '../../src/importer/delimiter.js';

const fx = (name: string) => join(import.meta.dirname, '../../fixtures/csv', name);

async function readAll(input: Readable, delimiter?: string) {
  const src = await openCsv(input, { name: 'test.csv', delimiter });
  const items: CsvItem[] = [];
  for await (const item of src.items) items.push(item);
  return { src, items };
}

describe('csv source', () => {
  it('strips the BOM, reads CRLF and counts bytes', async () => {
    const { src, items } = await readAll(createReadStream(fx('bom-crlf.csv')));
    expect(src.header).toEqual(['order_id', 'total', 'currency', 'order_date', 'email']);
    expect(items).toEqual([
      { kind: 'row', line: 2, cells: ['B-1', '10.00', 'EUR', '2024-01-05', 'anna@example.com'] },
      { kind: 'row', line: 3, cells: ['B-2', '1234.50', 'USD', '2024-01-06T10:00:00Z', 'ben@example.com'] },
    ]);
    expect(src.bytesRead()).toBe(readFileSync(fx('bom-crlf.csv')).length);
  });

  it('detects semicolon and tab delimiters, or takes --delimiter', async () => {
    expect((await readAll(createReadStream(fx('semicolon.csv')))).src.delimiter).toBe(';');
    const tab = await readAll(createReadStream(fx('tab.tsv')));
    expect(tab.src.delimiter).toBe('\t');
    expect(tab.items[0]).toMatchObject({ cells: ['T-1', '12.00', 'GBP', '2024-03-01', 'dan@example.co.uk'] });
    expect(detectDelimiter('"a;b",c,d')).toBe(',');
    expect(parseDelimiter('tab')).toBe('\t');
    expect(() => parseDelimiter(';;')).toThrow(/one character/);
    const forced = await readAll(Readable.from(['a|b\n1|2\n']), '|');
    expect(forced.items).toEqual([{ kind: 'row', line: 2, cells: ['1', '2'] }]);
  });

  it('keeps physical line numbers across quoted newlines and blank lines', async () => {
    const { items } = await readAll(createReadStream(fx('quoted-newlines.csv')));
    expect(items.map((i) => i.line)).toEqual([2, 4, 5]);
    expect(items[0]).toMatchObject({ cells: ['Q-1', '10.00', 'EUR', '2024-01-05', 'a@example.com', 'two\nlines'] });
    expect(items[1]).toMatchObject({ cells: ['Q-2', '11.00', 'EUR', '2024-01-05', 'b@example.com', 'say "hi"'] });
  });

  it('turns ragged rows into errors naming the line, tolerating trailing empty cells', async () => {
    const { items } = await readAll(createReadStream(fx('ragged.csv')));
    expect(items.map((i) => [i.kind, i.line])).toEqual([
      ['row', 2],
      ['error', 3],
      ['error', 4],
      ['row', 5],
      ['row', 7],
    ]);
    expect(items[1]).toMatchObject({
      code: 'ragged_row',
      message: 'line 3 has 4 fields but the header has 5 (a missing or extra delimiter?)',
    });
  });

  it('reports an unclosed quote at the line where it opens, without crashing', async () => {
    const { items } = await readAll(createReadStream(fx('unclosed-quote.csv')));
    expect(items[0]).toMatchObject({ kind: 'row', line: 2 });
    expect(items[1]).toMatchObject({ kind: 'error', line: 3, code: 'unclosed_quote' });
    expect((items[1] as { message: string }).message).toMatch(/opened on line 3 is never closed, so lines 3–4/);
    expect(items).toHaveLength(2);
  });

  it('reads UTF-16LE with a BOM and refuses UTF-16 it cannot identify', async () => {
    const { items } = await readAll(createReadStream(fx('utf16le.csv')));
    expect(items).toEqual([
      { kind: 'row', line: 2, cells: ['W-1', '10.00', 'EUR', '2024-01-05', 'wanda@example.com'] },
      { kind: 'row', line: 3, cells: ['W-2', '7.50', 'EUR', '2024-01-06', 'zoë@example.com'] },
    ]);
    const noBom = Buffer.from('order_id,total\n1,2\n', 'utf16le');
    await expect(openCsv(Readable.from([noBom]), { name: 'x.csv' })).rejects.toThrow(/not UTF-8 text/);
    const be = Buffer.from([0xfe, 0xff, 0, 0x61]);
    await expect(openCsv(Readable.from([be]), { name: 'x.csv' })).rejects.toThrow(/big-endian/);
    await expect(openCsv(Readable.from([Buffer.alloc(0)]), { name: 'x.csv' })).rejects.toThrow(/is empty/);
  });

  it('parses every csv-spectrum case as its expected JSON', async () => {
    const require = createRequire(import.meta.url);
    const dir = join(require.resolve('csv-spectrum/package.json'), '..');
    for (const name of [
      'empty',
      'empty_crlf',
      'comma_in_quotes',
      'escaped_quotes',
      'json',
      'newlines',
      'newlines_crlf',
      'quotes_and_newlines',
      'simple',
      'simple_crlf',
      'utf8',
    ]) {
      const expected = JSON.parse(readFileSync(join(dir, 'json', `${name}.json`), 'utf8')) as Array<Record<string, string>>;
      const { src, items } = await readAll(createReadStream(join(dir, 'csvs', `${name}.csv`)), ',');
      const rows = items.map((i) => {
        expect(i.kind).toBe('row');
        return Object.fromEntries(src.header.map((h, k) => [h, (i as { cells: string[] }).cells[k]]));
      });
      expect(rows, name).toEqual(expected);
    }
  });

  it('stops reading when the consumer stops early, without waiting for the rest of the input', async () => {
    let produced = 0;
    const endless = Readable.from(
      (function* () {
        yield 'order_id,total\n';
        for (;;) {
          produced++;
          yield `${'x'.repeat(20)},1\n`.repeat(1000);
        }
      })(),
    );
    const src = await openCsv(endless, { name: 'endless.csv' });
    let n = 0;
    for await (const _ of src.items) if (++n === 5000) break;
    expect(n).toBe(5000);
    expect(produced).toBeLessThan(100);
  });

  it('one huge chunk (handed to the parser in slices): quoted newlines and astral characters across slice edges stay whole', async () => {
    const rows: string[][] = [];
    const lines = ['order_id,note'];
    for (let i = 1; i <= 3000; i++) {
      const note = i % 7 === 0 ? `first 😀\nsecond ü ${i}` : `plain 😀 ü ${'x'.repeat(i % 50)}`;
      rows.push([`R-${i}`, note]);
      lines.push(`R-${i},"${note}"`);
    }
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(100_000);
    const { items } = await readAll(Readable.from([text]));
    expect(items.map((it) => (it.kind === 'row' ? it.cells : it))).toEqual(rows);
    // Physical lines: each quoted newline pushes the next rows one line down.
    expect(items[7]).toMatchObject({ line: 2 + 7 + 1 });
    expect(items[2999]).toMatchObject({ line: 2 + 2999 + Math.floor(2999 / 7) });
  });

  it('a row longer than 1 MiB (an unclosed quote in a big file) ends the rows with one record_too_large item, not a row per slice', async () => {
    const lines = ['order_id,note', 'A-1,ok', `A-2,"${'x'.repeat(1024 * 1024 + 10)}`];
    for (let i = 3; i <= 300_000; i++) lines.push(`A-${i},fine`);
    const text = `${lines.join('\n')}\n`;
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += 65536) chunks.push(text.slice(at, at + 65536));
    let pulled = 0;
    const input = Readable.from(
      (function* () {
        for (const c of chunks) {
          pulled++;
          yield c;
        }
      })(),
    );
    const { items } = await readAll(input);
    expect(items).toEqual([
      { kind: 'row', line: 2, cells: ['A-1', 'ok'] },
      {
        kind: 'error',
        line: 3,
        code: 'record_too_large',
        message: expect.stringMatching(/^the row starting on line 3 runs past 1 MiB .*could not be read from line 3 on/),
      },
    ]);
    // Reading stopped at the oversized row (1 MiB in) instead of running through the other 3 MB.
    expect(chunks.length).toBeGreaterThan(60);
    expect(pulled).toBeLessThan(40);
  });

  it('an input that fails mid-file fails the rows (never a clean, shorter end)', async () => {
    const input = new Readable({ read() {} });
    input.push('order_id,total\nA-1,1\nA-2,2\n');
    setTimeout(() => input.destroy(new Error('disk went away')), 20);
    const src = await openCsv(input, { name: 'failing.csv' });
    const seen: CsvItem[] = [];
    await expect(
      (async () => {
        for await (const item of src.items) seen.push(item);
      })(),
    ).rejects.toThrow('disk went away');
    // What was read before the failure came through (the parser may still hold the last line).
    expect(seen[0]).toMatchObject({ kind: 'row', line: 2 });
  });

  it('batches: every row once, in order, at most 64 per batch, errors in their place; readable only once', async () => {
    const lines = ['order_id,total'];
    for (let i = 1; i <= 1000; i++) lines.push(i % 250 === 0 ? `R-${i},1,extra` : `R-${i},${i}`);
    // Chunks that cut lines in the middle.
    const text = `${lines.join('\n')}\n`;
    const chunks: string[] = [];
    for (let at = 0; at < text.length; at += 777) chunks.push(text.slice(at, at + 777));
    const src = await openCsv(Readable.from(chunks), { name: 'batches.csv' });
    const seen: CsvItem[] = [];
    let batches = 0;
    for await (const batch of src.batches) {
      batches++;
      expect(batch.length).toBeGreaterThan(0);
      expect(batch.length).toBeLessThanOrEqual(64);
      seen.push(...batch);
    }
    expect(batches).toBeGreaterThanOrEqual(16);
    expect(seen.map((s) => s.line)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 2));
    expect(seen.filter((s) => s.kind === 'error').map((s) => s.line)).toEqual([251, 501, 751, 1001]);
    expect(() => src.items[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});
