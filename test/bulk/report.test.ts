import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countOutcome, emptySummary } from '../../src/bulk/outcome.js';
import { openReport } from '../../src/bulk/report.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-report-'));
  dirs.push(d);
  return d;
}

describe('report writer', () => {
  it('writes results in input order whatever order they finish in, escaping formulas', () => {
    const path = join(tmp(), 'r.csv');
    const w = openReport(path, { idColumn: 'order_id' });
    w.add({
      seq: 3,
      line: 4,
      id: '=HYPERLINK("x")',
      outcome: 'rejected',
      errorCode: 'invalid_row',
      message: 'total: must be a decimal, got "-1"',
    });
    w.add({ seq: 2, line: 3, id: 'A-2', outcome: 'updated', status: 200 });
    expect(w.written).toBe(0);
    w.add({ seq: 1, line: 2, id: 'A-1', outcome: 'created', status: 201 });
    expect(w.written).toBe(3);
    w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      [
        'line,order_id,outcome,status,error_code,message',
        '2,A-1,created,201,,',
        '3,A-2,updated,200,,',
        `4,"'=HYPERLINK(""x"")",rejected,,invalid_row,"total: must be a decimal, got ""-1"""`,
        '',
      ].join('\n'),
    );
  });

  it('writes several id columns (contacts: email, phone, contact_id), each cell escaped', () => {
    const path = join(tmp(), 'r.csv');
    const w = openReport(path, { idColumn: ['email', 'phone', 'contact_id'] });
    w.add({ seq: 2, line: 3, id: '+1', outcome: 'rejected', ids: ['', '=1+1', ''], errorCode: 'invalid_row', message: 'phone: bad' });
    w.add({ seq: 1, line: 2, id: 'a@x.io', outcome: 'created', status: 201, ids: ['a@x.io', '+14155550100', 'ct_1'] });
    w.close();
    expect(readFileSync(path, 'utf8')).toBe(
      [
        'line,email,phone,contact_id,outcome,status,error_code,message',
        '2,a@x.io,+14155550100,ct_1,created,201,,',
        "3,,'=1+1,,rejected,,invalid_row,phone: bad",
        '',
      ].join('\n'),
    );
  });

  it('refuses to close complete with a missing row, and takes the id column name as a parameter', () => {
    const path = join(tmp(), 'r.csv');
    const w = openReport(path, { idColumn: 'event_id' });
    w.add({ seq: 2, line: 3, id: 'e2', outcome: 'created', status: 200 });
    expect(() => w.close()).toThrow(/missing row 1/);
    expect(readFileSync(path, 'utf8')).toBe('line,event_id,outcome,status,error_code,message\n');
  });

  it('counts outcomes so that they add up to rows', () => {
    const s = emptySummary();
    for (const o of ['created', 'created', 'updated', 'skipped', 'unconfirmed', 'unmatched', 'rejected', 'failed'] as const)
      countOutcome(s, o);
    expect(s).toEqual({ rows: 8, created: 2, updated: 1, skipped: 1, unconfirmed: 1, unmatched: 1, rejected: 1, failed: 1, resumed: 0 });
  });
});
