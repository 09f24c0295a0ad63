import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { makeColors } from '../../src/io/color.js';
import { type Column, Output } from '../../src/io/output.js';
import { terminalPolicy } from '../../src/io/streams.js';
import { escapeFormula, toCsvCell } from '../../src/util/csv-cell.js';
import { fakeIO } from '../helpers/run-cli.js';

interface Row {
  id: string;
  name: string | null;
  n: number;
  extra?: Record<string, string>;
}
const columns: Column<Row>[] = [
  { header: 'id', get: (r) => r.id },
  { header: 'name', get: (r) => r.name },
  { header: 'n', get: (r) => r.n },
];
const csvColumns: Column<Row>[] = [...columns, { header: 'extra', get: (r) => r.extra }];

function output(tty = false) {
  const f = fakeIO({ tty });
  const policy = terminalPolicy(f.io, {}, { json: false, quiet: false, color: false });
  return { out: new Output(f.io, policy, makeColors(false), false), f };
}

const page1: Row[] = [
  { id: 'a', name: 'Ann', n: 1 },
  { id: 'b', name: null, n: 2, extra: { EUR: '1.00' } },
];
const page2: Row[] = [{ id: 'c', name: '=HYPERLINK("x")', n: 3 }];

describe('list writers', () => {
  it('json writes one array across pages', async () => {
    const { out, f } = output();
    const w = await out.list('json', columns);
    w.writePage(page1);
    w.writePage(page2);
    w.end();
    expect(JSON.parse(f.stdout())).toEqual([...page1, ...page2]);
    expect(w.count).toBe(3);
  });

  it('json of nothing is an empty array', async () => {
    const { out, f } = output();
    const w = await out.list('json', columns);
    w.end();
    expect(JSON.parse(f.stdout())).toEqual([]);
  });

  it('ndjson writes one object per line as pages arrive', async () => {
    const { out, f } = output();
    const w = await out.list('ndjson', columns);
    w.writePage(page1);
    expect(f.stdout().trim().split('\n')).toHaveLength(2);
    w.writePage(page2);
    w.end();
    expect(
      f
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([...page1, ...page2]);
  });

  it('csv writes the header once, every column, objects as JSON and formulas escaped', async () => {
    const { out, f } = output();
    const w = await out.list('csv', columns, csvColumns);
    w.writePage(page1);
    w.writePage(page2);
    w.end();
    const rows = parse(f.stdout()) as string[][];
    expect(rows[0]).toEqual(['id', 'name', 'n', 'extra']);
    expect(rows).toHaveLength(4);
    expect(rows[2]).toEqual(['b', '', '2', '{"EUR":"1.00"}']);
    expect(rows[3]?.[1]).toBe(`'=HYPERLINK("x")`);
  });

  it('csv of nothing is the header line alone', async () => {
    const { out, f } = output();
    const w = await out.list('csv', columns);
    w.end();
    expect(f.stdout()).toBe('id,name,n\n');
  });

  it('table prints the header once and keeps widths across pages', async () => {
    const { out, f } = output(true);
    const w = await out.list('table', columns);
    w.writePage(page1);
    w.writePage(page2);
    w.end();
    const lines = f.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+N$/);
    expect(lines.filter((l) => l.startsWith('ID'))).toHaveLength(1);
    expect(lines).toHaveLength(4);
    expect(lines[1]?.indexOf('Ann')).toBe(lines[0]?.indexOf('NAME'));
  });

  it('tsv has no header and one tab-separated line per row', async () => {
    const { out, f } = output();
    const w = await out.list('tsv', columns);
    w.writePage(page1);
    w.end();
    expect(f.stdout()).toBe('a\tAnn\t1\nb\t\t2\n');
  });

  it('chooses table on a TTY, tsv when piped and json with --json', () => {
    expect(output(true).out.defaultFormat(false)).toBe('table');
    expect(output(false).out.defaultFormat(false)).toBe('tsv');
    expect(output(true).out.defaultFormat(true)).toBe('json');
  });
});

describe('formula escaping', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['+cmd', "'+cmd"],
    ['-2+3', "'-2+3"],
    ['+14155550100', '+14155550100'],
    ['-12.5', '-12.5'],
    ['Ann', 'Ann'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(escapeFormula(input)).toBe(expected);
  });

  it('turns null into an empty cell and objects into JSON', () => {
    expect(toCsvCell(null)).toBe('');
    expect(toCsvCell({ a: 1 })).toBe('{"a":1}');
  });
});

describe('terminal policy', () => {
  it('never prompts or animates in CI, with --json, or without a TTY', () => {
    const tty = fakeIO({ tty: true }).io;
    expect(terminalPolicy(tty, {}, { json: false, quiet: false, color: true })).toMatchObject({
      canPrompt: true,
      canAnimate: true,
      color: true,
    });
    expect(terminalPolicy(tty, { CI: 'true' }, { json: false, quiet: false, color: true })).toMatchObject({
      canPrompt: false,
      canAnimate: false,
    });
    expect(terminalPolicy(tty, {}, { json: true, quiet: false, color: true })).toMatchObject({
      canPrompt: false,
      canAnimate: false,
      color: false,
    });
    expect(terminalPolicy(fakeIO().io, {}, { json: false, quiet: false, color: true })).toMatchObject({
      canPrompt: false,
      canAnimate: false,
      color: false,
    });
  });

  it('honours NO_COLOR and --no-color', () => {
    const tty = fakeIO({ tty: true }).io;
    expect(terminalPolicy(tty, { NO_COLOR: '1' }, { json: false, quiet: false, color: true }).color).toBe(false);
    expect(terminalPolicy(tty, {}, { json: false, quiet: false, color: false }).color).toBe(false);
  });
});
