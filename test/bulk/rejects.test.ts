/**
 * The rejects file (bulk/rejects.ts) and the engine writing it (bulk/run.ts): the input's own
 * format (header, delimiter, encoding, byte-order mark, line ends, cells untouched), the trailing
 * columns and their `svc_` prefix, input order whatever the finishing order, failed rows only when
 * asked, NDJSON's `_error` member, and a rejects file's own columns recognised on the way back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RejectsWriter, rejectsColumns, rejectsTrailer, withError } from '../../src/bulk/rejects.js';
import { createBulkRun, type WorkItem } from '../../src/bulk/run.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-rejects-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const row = (seq: number, line: number, outcome: string, message = 'bad', errorField?: string) => ({
  seq,
  line,
  id: '',
  outcome,
  message,
  ...(errorField ? { errorField } : {}),
});

describe('RejectsWriter, CSV', () => {
  it('writes the header, delimiter, encoding, BOM and line ends of the input, cells untouched, in input order', () => {
    const path = join(dir, 'rejects.csv');
    const w = new RejectsWriter(path, {
      kind: 'csv',
      header: ['E-Mail', 'Name', 'line'],
      delimiter: ';',
      encoding: 'windows-1252',
      bom: false,
      lineEnd: '\r\n',
    });
    // Finishing out of order: seq 3 before 1 and 2; seq 2 is not rejected.
    w.add(row(3, 4, 'rejected', 'phone: not a number', 'phone'), { cells: [['möller@example.com', 'Möller; B', '7']] });
    w.add(row(1, 2, 'rejected', 'email: invalid', 'email'), { cells: [['x', ' Jürgen ', '']] });
    w.add(row(2, 3, 'created'), undefined);
    w.close();
    expect(w.count).toBe(2);
    const bytes = readFileSync(path);
    expect(bytes.includes(Buffer.from('ö', 'utf8'))).toBe(false);
    const text = new TextDecoder('windows-1252').decode(bytes);
    expect(text).toBe(
      'E-Mail;Name;line;error_field;error;svc_line\r\n' +
        'x; Jürgen ;;email;email: invalid;2\r\n' +
        'möller@example.com;"Möller; B";7;phone;phone: not a number;4\r\n',
    );
  });

  it('keeps a UTF-8 byte-order mark, writes every line of a multi-line row, escapes formulas only in its own columns', () => {
    const path = join(dir, 'r.csv');
    const w = new RejectsWriter(path, {
      kind: 'csv',
      header: ['order_id', 'total'],
      delimiter: ',',
      encoding: 'utf-8',
      bom: true,
      lineEnd: '\n',
    });
    w.add(row(1, 2, 'rejected', '=cmd()'), {
      cells: [
        ['=1+1', '5'],
        ['=1+1', '6'],
      ],
    });
    w.close();
    expect(readFileSync(path, 'utf8')).toBe("\uFEFForder_id,total,error_field,error,line\n=1+1,5,,'=cmd(),2\n=1+1,6,,'=cmd(),2\n");
  });

  it('writes failed rows only with includeFailed', () => {
    const a = new RejectsWriter(join(dir, 'a.csv'), {
      kind: 'csv',
      header: ['id'],
      delimiter: ',',
      encoding: 'utf-8',
      bom: false,
      lineEnd: '\n',
    });
    const b = new RejectsWriter(
      join(dir, 'b.csv'),
      { kind: 'csv', header: ['id'], delimiter: ',', encoding: 'utf-8', bom: false, lineEnd: '\n' },
      { includeFailed: true },
    );
    for (const w of [a, b]) {
      w.add(row(1, 2, 'failed', 'gave up after retries'), { cells: [['k1']] });
      w.close();
    }
    expect(a.count).toBe(0);
    expect(readFileSync(join(dir, 'b.csv'), 'utf8')).toBe('id,error_field,error,line\nk1,,gave up after retries,2\n');
  });

  it('recognises its own trailing columns (plain or svc_), and prefixes names the input already has', () => {
    expect(rejectsTrailer(['email', 'error_field', 'error', 'line'])).toBe(3);
    expect(rejectsTrailer(['line', 'svc_error_field', 'svc_error', 'svc_line'])).toBe(3);
    expect(rejectsTrailer(['email', 'error', 'line'])).toBe(0);
    expect(rejectsColumns(['Error', 'x'])).toEqual(['error_field', 'svc_error', 'line']);
  });

  it('refuses an encoding it cannot write back', () => {
    expect(
      () =>
        new RejectsWriter(join(dir, 'x.csv'), {
          kind: 'csv',
          header: ['a'],
          delimiter: ',',
          encoding: 'shift_jis',
          bom: false,
          lineEnd: '\n',
        }),
    ).toThrow(/cannot write --rejects in shift_jis/);
  });
});

describe('RejectsWriter, NDJSON and id lists', () => {
  it('adds an _error member to the original line, bytes kept; a line that is not an object is kept as _line', () => {
    expect(withError('{"event_type": "x", "email":"a"}', { field: 'email', message: 'bad', line: 3 })).toBe(
      '{"event_type": "x", "email":"a","_error":{"field":"email","message":"bad","line":3}}',
    );
    expect(withError('{}', { field: null, message: 'm', line: 1 })).toBe('{"_error":{"field":null,"message":"m","line":1}}');
    expect(withError('{"a":1,"_error":{"line":9}}', { field: null, message: 'm', line: 2 })).toBe(
      '{"a":1,"_error":{"field":null,"message":"m","line":2}}',
    );
    expect(withError('not json', { field: null, message: 'm', line: 1 })).toBe(
      '{"_line":"not json","_error":{"field":null,"message":"m","line":1}}',
    );
  });

  it('writes an id list with an id header and the trailing columns', () => {
    const path = join(dir, 'ids.csv');
    const w = new RejectsWriter(path, { kind: 'ids', encoding: 'utf-8', lineEnd: '\n' });
    w.add(row(1, 4, 'rejected', 'invalid id', 'id'), { text: 'a b' });
    w.close();
    expect(readFileSync(path, 'utf8')).toBe('id,error_field,error,line\na b,id,invalid id,4\n');
  });
});

describe('the engine and --rejects', () => {
  it('writes rows rejected before sending and by the service, in input order, and only those', async () => {
    const path = join(dir, 'rejects.ndjson');
    const rejects = new RejectsWriter(path, { kind: 'ndjson', encoding: 'utf-8', lineEnd: '\n' });
    const items: WorkItem[] = [1, 2, 3, 4].map((n) => ({ seq: n, line: n + 1, lines: 1, id: `k${n}`, original: { text: `{"n":${n}}` } }));
    (items[1] as WorkItem).problem = { code: 'invalid_row', message: 'n: too small', field: 'n' };
    const job = createBulkRun({
      rows: (async function* () {
        yield items;
      })(),
      concurrency: 4,
      signal: new AbortController().signal,
      rejects,
      async send(w) {
        // Row 3 is refused by "the service" and finishes last.
        if (w.seq === 3) await new Promise((r) => setTimeout(r, 20));
        return { seq: w.seq, line: w.line, id: w.id, outcome: w.seq === 3 ? 'rejected' : 'created', message: 'refused', errorField: 'x' };
      },
    });
    const result = await job.run();
    rejects.close();
    expect(result.summary.rejected).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(
      '{"n":2,"_error":{"field":"n","message":"n: too small","line":3}}\n{"n":3,"_error":{"field":"x","message":"refused","line":4}}\n',
    );
  });
});
