/** A file that mixes line ends is refused before anything is sent, naming the first line that differs (issue 26). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeMixedLineEnd, findMixedLineEnd } from '../../src/bulk/sources/line-ends.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-line-ends-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (content: string | Buffer) => {
  const path = join(dir, `f${n++}.csv`);
  writeFileSync(path, content);
  return path;
};

describe('findMixedLineEnd', () => {
  it('finds nothing in files whose line ends are all alike', async () => {
    expect(await findMixedLineEnd(file('a,b\n1,2\n3,4\n'))).toBeUndefined();
    expect(await findMixedLineEnd(file('a,b\r\n1,2\r\n3,4\r\n'))).toBeUndefined();
    expect(await findMixedLineEnd(file('a,b\r1,2\r3,4\r'))).toBeUndefined();
    expect(await findMixedLineEnd(file('a,b'))).toBeUndefined();
    expect(await findMixedLineEnd(file(''))).toBeUndefined();
  });

  it('the issue: a CRLF header, then LF, CR and CRLF lines: line 2 named', async () => {
    const m = await findMixedLineEnd(file('order_id,total\r\nA-1,1.00\nA-2,2.00\rA-3,3.00\r\nA-4,4.00\r\n'));
    expect(m).toEqual({ line: 2, found: 'LF', expected: 'CRLF' });
    expect(describeMixedLineEnd('in.csv', m as NonNullable<typeof m>)).toBe(
      'in.csv: line 2 ends with LF (\\n) where the header line ends with CRLF (\\r\\n): a file that mixes line ends would have its records merged',
    );
    expect(await findMixedLineEnd(file('a,b\n1,2\n3,4\r5,6\n'))).toEqual({ line: 3, found: 'CR', expected: 'LF' });
    expect(await findMixedLineEnd(file('a,b\n1,2\r\n'))).toEqual({ line: 2, found: 'CRLF', expected: 'LF' });
  });

  it("line ends inside quoted cells are the cell's own (Excel: LF inside quotes in a CRLF file)", async () => {
    expect(await findMixedLineEnd(file('a,b\r\n1,"two\nlines"\r\n2,"x ""q""\ny"\r\n'))).toBeUndefined();
    // The line count goes on through a quoted cell's lines.
    expect(await findMixedLineEnd(file('a,b\r\n1,"two\nlines"\r\n2,3\n'))).toEqual({ line: 4, found: 'LF', expected: 'CRLF' });
    // A quote inside an unquoted cell (5" screen) opens nothing.
    expect(await findMixedLineEnd(file('a,b\r\n1,5" screen\n2,3\r\n'))).toEqual({ line: 2, found: 'LF', expected: 'CRLF' });
  });

  it('across the 1 MiB chunks, and not for UTF-16', async () => {
    const body = '1,2\r\n'.repeat(300_000);
    expect(await findMixedLineEnd(file(`a,b\r\n${body}`))).toBeUndefined();
    expect(await findMixedLineEnd(file(`a,b\r\n${body}x,y\n`))).toEqual({ line: 300_002, found: 'LF', expected: 'CRLF' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\r\n1,2\r\n', 'utf16le')]);
    expect(await findMixedLineEnd(file(utf16))).toBeUndefined();
  });
});
