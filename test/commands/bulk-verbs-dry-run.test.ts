/**
 * --dry-run and --rejects on the verbs that gained them with the engine: events send --file and
 * the --ids-file verbs check every row, send nothing (no credentials needed, nothing asked),
 * write the rows that would be rejected to --rejects, and exit 4 when there is one. And --rejects
 * refused when it names the input, on every verb (the existing path checks).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
/** No token: a dry run must not need one. */
const noCredentials = () => ({ SVC_CONFIG_DIR: suite.tmp.dir, SVC_BASE_URL: suite.sb.baseUrl });

describe('--dry-run and --rejects on every bulk verb', () => {
  it('events send --file --dry-run: lines checked, nothing sent, the rejected line in --rejects', async () => {
    const file = join(suite.tmp.dir, 'events.ndjson');
    const rejects = join(suite.tmp.dir, 'rejects.ndjson');
    writeFileSync(
      file,
      '{"event_type":"a","email":"a@example.com"}\r\n{"event_type":"a"}\r\n{"event_type":"b","phone":"+14155550100"}\r\n',
    );
    const r = await runCli(['events', 'send', '--file', file, '--dry-run', '--rejects', rejects, '--json'], { env: noCredentials() });
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout)).toEqual({ dry_run: true, rows: 3, valid: 2, rejected: 1, rejected_lines: [2], rejects, rejects_rows: 1 });
    expect(readFileSync(rejects, 'utf8')).toBe(
      '{"event_type":"a","_error":{"field":"email","message":"one of email, phone or contact_id is required","line":2}}\r\n',
    );
    const events = (await (await fetch(`${suite.sb.baseUrl}/_sandbox/events`)).json()) as { data: unknown[] };
    expect(events.data).toEqual([]);
  });

  it('contacts delete --ids-file --dry-run: no confirmation, nothing deleted, exit 4 for an id that cannot be one', async () => {
    const ids = join(suite.tmp.dir, 'ids.txt');
    const rejects = join(suite.tmp.dir, 'rejects.csv');
    writeFileSync(ids, 'id\nct_1\nnot/an id\n');
    const r = await runCli(['contacts', 'delete', '--ids-file', ids, '--dry-run', '--rejects', rejects], { env: noCredentials() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('dry run: 2 id(s), 1 valid, 1 rejected; nothing was deleted');
    expect(r.stderr).toContain(`1 row(s) written to ${rejects} with the reason in their last columns (a dry run: nothing was sent`);
    expect(readFileSync(rejects, 'utf8')).toBe('id,error_field,error,line\nnot/an id,id,"invalid id ""not/an id""",3\n');
  });

  it('--rejects naming the input is refused before anything is written or sent', async () => {
    const csv = join(suite.tmp.dir, 'orders.csv');
    writeFileSync(csv, 'order_id,total,currency,order_date,email\n1,5,EUR,2024-01-01,a@example.com\n');
    const ndjson = join(suite.tmp.dir, 'e.ndjson');
    writeFileSync(ndjson, '{"event_type":"a","email":"a@example.com"}\n');
    const runs = [
      ['orders', 'import', csv, '--rejects', csv],
      ['contacts', 'import', csv, '--rejects', csv],
      ['events', 'send', '--file', ndjson, '--rejects', ndjson],
      ['contacts', 'unsubscribe', '--ids-file', ndjson, '--rejects', ndjson],
    ];
    for (const argv of runs) {
      const r = await runCli(argv, { env: suite.env() });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--rejects .* is (the input|--file|--ids-file)/);
    }
    expect(readFileSync(csv, 'utf8')).toContain('order_id,total');
    expect(readFileSync(ndjson, 'utf8')).toContain('event_type');
    const lone = await runCli(['orders', 'import', csv, '--rejects-include-failed'], { env: suite.env() });
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('--rejects-include-failed goes with --rejects FILE');
    expect(existsSync(join(suite.tmp.dir, 'rejects.csv'))).toBe(false);
  });
});
