/**
 * events send --file never destroys its input, never turns bad bytes into events, and keeps its
 * accounting through lines no parser should recurse into (issue "Nothing lost, whatever the input").
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

const NDJSON = '{"event_type":"a","email":"a@example.com"}\n{"event_type":"b","email":"b@example.com"}\n';

const input = (text: string | Buffer = NDJSON) => suite.file('events.ndjson', text);

/** Flow runs of the event type `deep` (a flow on it is made first): what the sandbox received. */
async function deepEventsStored(): Promise<number> {
  return (await suite.sb.admin.outbox({ type: 'flow_run' })).length;
}

describe('events send --file: outputs never overwrite the input', () => {
  it('refuses --report or --unconfirmed-out naming the input (or a link to it) before sending', async () => {
    const file = input();
    const link = join(suite.tmp.dir, 'link.ndjson');
    symlinkSync(file, link);
    for (const args of [
      ['--report', file],
      ['--unconfirmed-out', file],
      ['--report', link],
    ]) {
      const r = await runCli(['events', 'send', '--file', file, ...args], { env: env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`is --file ${file}`);
    }
    const out = join(suite.tmp.dir, 'out');
    const both = await runCli(['events', 'send', '--file', file, '--report', out, '--unconfirmed-out', out], { env: env() });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('is the same file as --report');
    expect(readFileSync(file, 'utf8')).toBe(NDJSON);
    const report = await runCli(['events', 'send', '--file', file, '--report', '/dev/full'], { env: env() });
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('cannot write --report /dev/full');
  });
});

describe('events send --file: bytes that are not UTF-8', () => {
  const latin1 = Buffer.from('{"event_type":"a","email":"a@example.com"}\n{"event_type":"t\xff","email":"b@example.com"}\n', 'latin1');

  it('a file stops before sending, naming the line and the byte offset', async () => {
    const r = await runCli(['events', 'send', '--file', input(latin1)], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 2 is not valid UTF-8 (byte 0xFF at byte offset 59)');
  });

  it('stdin: that line is rejected with the same message, the others are sent (exit 4); --encoding latin1 reads it', async () => {
    const report = join(suite.tmp.dir, 'r.csv');
    const r = await runCli(['events', 'send', '--file', '-', '--json', '--report', report], { env: env(), stdin: latin1 });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, accepted: 1, rejected: 1, rejected_lines: [2] });
    expect(readFileSync(report, 'utf8')).toContain('invalid_encoding');
    const ok = await runCli(['events', 'send', '--file', input(latin1), '--encoding', 'latin1', '--json'], { env: env() });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 2, accepted: 2 });
  });
});

describe('events send: nesting', () => {
  it('a line nested 10,000 deep is rejected and the run goes on, with its summary and a full report', async () => {
    const deep = `{"event_type":"deep","email":"d@example.com","properties":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
    const lines = [];
    for (let i = 0; i < 100; i++) lines.push(i === 50 ? deep : `{"event_type":"e${i}","email":"e${i}@example.com"}`);
    const report = join(suite.tmp.dir, 'r.csv');
    const r = await runCli(['events', 'send', '--file', input(`${lines.join('\n')}\n`), '--json', '--report', report], { env: env() });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 100, accepted: 99, rejected: 1, rejected_lines: [51] });
    const reportLines = readFileSync(report, 'utf8').trimEnd().split('\n');
    expect(reportLines).toHaveLength(101);
    expect(reportLines[51]).toContain('nested more than 64 levels deep');
  });

  it('a single event whose --properties nest too deep is a usage error (exit 2), nothing sent', async () => {
    await suite.sb.admin.createFlow('deep');
    const r = await runCli(
      ['events', 'send', '--type', 'deep', '--email', 'd@example.com', '--properties', `{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
      { env: env() },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nested more than 63 levels deep');
    expect(await deepEventsStored()).toBe(0);
  });
});
