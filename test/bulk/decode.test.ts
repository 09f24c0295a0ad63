import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findInvalidUtf8, InputDecoder, invalidUtf8Offsets, parseEncoding } from '../../src/bulk/sources/decode.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-decode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('input decoding', () => {
  it('locates invalid UTF-8 by line and byte offset, across chunk boundaries', () => {
    const bytes = Buffer.concat([Buffer.from('id,name\n1,M'), Buffer.from([0xfc]), Buffer.from('ller\n2,Möller\n')]);
    // Feed one byte at a time: every boundary falls somewhere.
    const d = new InputDecoder();
    let text = '';
    for (const b of bytes) text += d.write(Buffer.from([b]));
    text += d.end();
    expect(d.invalid).toEqual([{ line: 2, offset: 11, byte: 0xfc }]);
    expect(text).toBe('id,name\n1,M\uFFFDller\n2,Möller\n');
  });

  it('a multi-byte character split between chunks is valid; one cut off by the end is not', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    const d = new InputDecoder();
    expect(d.write(euro.subarray(0, 1)) + d.write(euro.subarray(1)) + d.end()).toBe('€');
    expect(d.invalid).toEqual([]);
    const cut = new InputDecoder();
    cut.write(Buffer.concat([Buffer.from('a\n'), euro.subarray(0, 2)]));
    cut.end();
    expect(cut.invalid).toEqual([{ line: 2, offset: 2, byte: 0xe2 }]);
  });

  it('knows the forbidden sequences: overlongs, surrogates, beyond U+10FFFF', () => {
    expect(invalidUtf8Offsets(Buffer.from([0xc0, 0x80]))).toEqual([0, 1]);
    expect(invalidUtf8Offsets(Buffer.from([0xed, 0xa0, 0x80]))).toEqual([0, 1, 2]);
    expect(invalidUtf8Offsets(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toEqual([0, 1, 2, 3]);
    expect(invalidUtf8Offsets(Buffer.from('héllo €𝄞'))).toEqual([]);
  });

  it('reads other encodings as asked (latin1 is windows-1252)', () => {
    expect(parseEncoding('latin1')).toBe('windows-1252');
    expect(parseEncoding('UTF-16LE')).toBe('utf-16le');
    expect(() => parseEncoding('klingon')).toThrow(/--encoding "klingon" is not an encoding/);
    const d = new InputDecoder('windows-1252');
    expect(d.write(Buffer.from([0x4d, 0xfc, 0x6c, 0x80])) + d.end()).toBe('Mül€');
    expect(d.invalid).toEqual([]);
  });

  it('scans a whole file before anything is sent', async () => {
    const good = join(dir, 'good.csv');
    writeFileSync(good, 'a\nMüller\n');
    expect(await findInvalidUtf8(good)).toBeUndefined();
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, Buffer.concat([Buffer.from('a\nx\n'.repeat(300_000)), Buffer.from([0x4d, 0xe9, 0x0a])]));
    expect(await findInvalidUtf8(bad)).toEqual({ line: 600_001, offset: 1_200_001, byte: 0xe9 });
  });
});
