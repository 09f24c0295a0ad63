/**
 * --ids-file never overwritten by its own --report, never read through bad bytes.
 */
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();

describe('contacts unsubscribe/delete --ids-file: data safety', () => {
  it('refuses a --report that is the ids file (or a link to it), before anything is sent', async () => {
    const ids = join(suite.tmp.dir, 'ids.txt');
    writeFileSync(ids, 'ct_1\nct_2\n');
    const link = join(suite.tmp.dir, 'link.txt');
    symlinkSync(ids, link);
    for (const report of [ids, link]) {
      const r = await runCli(['contacts', 'unsubscribe', '--ids-file', ids, '--report', report], { env: suite.env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--report ${report} is --ids-file ${ids}`);
    }
    const del = await runCli(['contacts', 'delete', '--ids-file', ids, '--report', ids, '--yes'], { env: suite.env() });
    expect(del.code).toBe(2);
    expect(readFileSync(ids, 'utf8')).toBe('ct_1\nct_2\n');
  });

  it('an ids file that is not UTF-8 stops before sending, naming the line and the offset; --encoding reads it', async () => {
    const ids = join(suite.tmp.dir, 'ids.txt');
    writeFileSync(ids, Buffer.from('ct_1\nct_\xe9\n', 'latin1'));
    const r = await runCli(['contacts', 'unsubscribe', '--ids-file', ids, '--json'], { env: suite.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 2 is not valid UTF-8 (byte 0xE9 at byte offset 8)');
    const latin = await runCli(['contacts', 'unsubscribe', '--ids-file', ids, '--encoding', 'latin1', '--json'], { env: suite.env() });
    // Read as Latin-1, both ids go out (and are not found: no such contacts).
    expect(JSON.parse(latin.stdout)).toMatchObject({ rows: 2, not_found: 2 });
  });

  it('a report that cannot be written fails before anything is unsubscribed (exit 2)', async () => {
    const ids = join(suite.tmp.dir, 'ids.txt');
    writeFileSync(ids, 'ct_1\n');
    const r = await runCli(['contacts', 'unsubscribe', '--ids-file', ids, '--report', '/dev/full'], { env: suite.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot write --report /dev/full');
  });
});
