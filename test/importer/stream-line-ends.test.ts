/**
 * Line ends of a streamed input (stdin, a FIFO): every line end outside a quoted cell becomes LF,
 * those inside stay the cell's own, whatever the chunks' boundaries; the first line whose end
 * differs from the header's is named.
 */
import { describe, expect, it } from 'vitest';
import type { MixedLineEnd } from '../../src/bulk/sources/line-ends.js';
import { StreamLineEnds } from '../../src/bulk/sources/stream-line-ends.js';

function run(chunks: string[]): { text: string; mixed: MixedLineEnd | undefined; told: MixedLineEnd[] } {
  const told: MixedLineEnd[] = [];
  const s = new StreamLineEnds((m) => told.push(m));
  const text = chunks.map((c) => s.write(c)).join('');
  s.end();
  return { text, mixed: s.mixed, told };
}

/** Every way of cutting `text` in two and in three pieces gives the same result as one piece. */
function everyCut(text: string): void {
  const whole = run([text]);
  for (let i = 0; i <= text.length; i++) {
    expect(run([text.slice(0, i), text.slice(i)]), `cut at ${i}`).toEqual(whole);
    for (let j = i; j <= text.length; j += 3) expect(run([text.slice(0, i), text.slice(i, j), text.slice(j)])).toEqual(whole);
  }
}

const CASES: Array<[string, string, MixedLineEnd | undefined]> = [
  // The file: a CRLF header, then LF, CR and CRLF lines.
  ['h\r\na\nb\rc\r\nd\r\n', 'h\na\nb\nc\nd\n', { line: 2, found: 'LF', expected: 'CRLF' }],
  ['h\na\r\nb\rc\n', 'h\na\nb\nc\n', { line: 2, found: 'CRLF', expected: 'LF' }],
  ['h\ra\rb\r\nc\r', 'h\na\nb\nc\n', { line: 3, found: 'CRLF', expected: 'CR' }],
  ['h\r\na\r\nb\r\n', 'h\na\nb\n', undefined],
  ['h\na\nb', 'h\na\nb', undefined],
  // Line ends inside quoted cells are the cell's own (Excel writes LF inside quotes in a CRLF file).
  ['h,n\r\n1,"two\nlines"\r\n2,"cr\rand\r\ncrlf"\r\n', 'h,n\n1,"two\nlines"\n2,"cr\rand\r\ncrlf"\n', undefined],
  // A doubled quote stays inside the cell; a quote in the middle of a cell opens nothing.
  [
    'h,n\r\n1,"say ""hi""\r\nthere"\r\n2,ab"c\n3,x\r\n',
    'h,n\n1,"say ""hi""\r\nthere"\n2,ab"c\n3,x\n',
    { line: 4, found: 'LF', expected: 'CRLF' },
  ],
  ['"h";"n"\r"a";"b"\n', '"h";"n"\n"a";"b"\n', { line: 2, found: 'LF', expected: 'CR' }],
];

describe('StreamLineEnds', () => {
  it.each(CASES)('%j', (input, output, mixed) => {
    const r = run([input]);
    expect(r.text).toBe(output);
    expect(r.mixed).toEqual(mixed);
    expect(r.told).toEqual(mixed ? [mixed] : []);
    everyCut(input);
  });

  it('counts the lines inside quoted cells in the line it names', () => {
    expect(run(['h\r\n"a\r\nb\nc",1\r\nx\n']).mixed).toEqual({ line: 5, found: 'LF', expected: 'CRLF' });
  });

  it('turns a CR at the end of a chunk at once (a live line does not wait for the next)', () => {
    const s = new StreamLineEnds();
    expect(s.write('h\ra\r')).toBe('h\na\n');
    expect(s.write('\nb\r')).toBe('b\n');
    expect(s.mixed).toEqual({ line: 2, found: 'CRLF', expected: 'CR' });
  });

  it('a quote after a delimiter given with --delimiter opens a quoted cell too', () => {
    const s = new StreamLineEnds(undefined, ':');
    expect(s.write('h:n\n1:"a\rb"\n')).toBe('h:n\n1:"a\rb"\n');
    expect(s.mixed).toBeUndefined();
  });
});
