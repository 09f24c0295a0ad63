/**
 * `svc events send` in-process against a real sandbox over HTTP: single events, NDJSON files with
 * bad lines, and injected faults, checked through the sandbox's flow_run outbox.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { recordingProxy } from '../helpers/recording-proxy.js';
import { runCli } from '../helpers/run-cli.js';

const fx = cliSuite();
let env: Record<string, string>;
beforeEach(() => {
  env = fx.env();
});

const fixture = (name: string) => join(import.meta.dirname, '..', '..', 'fixtures', name);

/** flow_run side effects, grouped by the contact they ran for. */
async function flowRunsByContact(): Promise<Map<string, string[]>> {
  const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
  const by = new Map<string, string[]>();
  for (const r of runs) by.set(r.contact_id as string, [...(by.get(r.contact_id as string) ?? []), r.event_id as string]);
  return by;
}

/** An NDJSON file of `n` events, each for its own contact (so duplicates would show per contact). */
function eventsFile(n: number, type: string): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ event_type: type, email: `user${i + 1}@events.test`, properties: { i } }),
  );
  const path = join(fx.tmp.dir, `${type}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('svc events send (one event)', () => {
  it('prints the id, says what 200 means, and the flow runs exactly once for it', async () => {
    await fx.sb.admin.createFlow('trial_started', 'Welcome to your trial');
    const res = await runCli(
      [
        'events',
        'send',
        '--type',
        'trial_started',
        '--email',
        'Ada@Example.com',
        '--prop',
        'plan=pro',
        '--prop',
        'seats=5',
        '--prop',
        'address.city=Paris',
      ],
      { env },
    );
    expect(res.code).toBe(0);
    const id = res.stdout.trim();
    expect(id).toMatch(/^ev_/);
    expect(res.stdout).toBe(`${id}\n`);
    expect(res.stderr).toContain('does not mean a Flow');
    const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(runs).toHaveLength(1);
    expect(runs[0]?.event_id).toBe(id);
  });

  it('with --json prints {"status":"accepted","id"} on stdout and nothing on stderr', async () => {
    await fx.sb.admin.createFlow('ci_check');
    const res = await runCli(['events', 'send', '--type', 'ci_check', '--phone', '(415) 555-0100', '--default-country', 'US', '--json'], {
      env,
    });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const body = JSON.parse(res.stdout);
    expect(body).toEqual({ status: 'accepted', id: expect.stringMatching(/^ev_/) });
    const runs = await fx.sb.admin.outbox({ type: 'flow_run' });
    expect(runs.map((r) => r.event_id)).toEqual([body.id]);
    // The phone was normalised before sending: the contact the event created has it in E.164.
    const contacts = await fetch(`${fx.sb.baseUrl}/v1/contacts?phone=${encodeURIComponent('+14155550100')}`, {
      headers: { authorization: `Bearer ${env.SVC_TOKEN}` },
    }).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>);
    expect(contacts.data.map((c: { id: string }) => c.id)).toEqual([runs[0]?.contact_id]);
  });

  it('sends typed --prop merged over --properties exactly as built (body seen on the wire)', async () => {
    const props = join(fx.tmp.dir, 'props.json');
    writeFileSync(props, JSON.stringify({ plan: 'free', address: { zip: '75001', city: 'Lyon' }, tags: ['a'] }));
    await fx.sb.admin.createFlow('typed');
    const proxy = await recordingProxy(fx.sb.baseUrl);
    try {
      const args = ['--properties', `@${props}`, '--prop', 'plan=pro', '--prop', 'address.city=Paris', '--prop', 'code:="007"'];
      args.push('--prop', 'n=12', '--prop', 'ratio=-1.5e2', '--prop', 'ok=true', '--prop', 'gone=null', '--prop', 'zip=007');
      args.push('--prop', 'big=12345678901234567890', '--prop', 'a.b.c=deep', '--prop', 'list[]=x', '--prop', 'list[]=2');
      args.push('--prop', 'raw:={"k":[1,true,null]}', '--prop', 'url=https://x.test/?a=b', '--prop', 'file\\.name=x');
      const res = await runCli(
        [
          'events',
          'send',
          '--type',
          'typed',
          '--email',
          'P@Events.test',
          '--occurred-at',
          '2026-01-02T03:04:05Z',
          '--event-id',
          'my-1',
          ...args,
          '--json',
        ],
        { env: { ...env, SVC_BASE_URL: proxy.baseUrl } },
      );
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).status).toBe('accepted');
      expect(proxy.bodies.map((b) => JSON.parse(b))).toEqual([
        {
          event_type: 'typed',
          email: 'p@events.test',
          occurred_at: '2026-01-02T03:04:05Z',
          event_id: 'my-1',
          properties: {
            plan: 'pro',
            address: { zip: '75001', city: 'Paris' },
            tags: ['a'],
            code: '007',
            n: 12,
            ratio: -150,
            ok: true,
            gone: null,
            zip: '007',
            big: '12345678901234567890',
            a: { b: { c: 'deep' } },
            list: ['x', 2],
            raw: { k: [1, true, null] },
            url: 'https://x.test/?a=b',
            'file.name': 'x',
          },
        },
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('on a full TTY (spinner allowed): the id on stdout, the note on stderr', async () => {
    const res = await runCli(['events', 'send', '--type', 'tty', '--email', 't@events.test', '--prop', 'n=1'], { env, tty: true });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^ev_\w+\n$/);
    expect(res.stderr).toContain('accepted for processing');
  });

  it('a 404 for an unknown --contact-id exits 1 naming the problem', async () => {
    const res = await runCli(['events', 'send', '--type', 'x', '--contact-id', 'ct_nope'], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/rejected the event \(HTTP 404, request id req_\w+\)/);
    expect(await fx.sb.admin.outbox()).toEqual([]);
  });

  it('with --json a refused or unconfirmed event gives the status and request id in the error object', async () => {
    const missing = await runCli(['events', 'send', '--type', 'x', '--contact-id', 'ct_nope', '--json'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr).error).toMatchObject({ code: 'not_found', status: 404, request_id: expect.stringMatching(/^req_/) });
    await fx.sb.admin.setFaults({ error_rate: 1 });
    const lost = await runCli(['events', 'send', '--type', 'x', '--email', 'e@events.test', '--json'], { env });
    await fx.sb.admin.setFaults({});
    expect(lost.code).toBe(1);
    expect(JSON.parse(lost.stderr).error).toMatchObject({ code: 'unconfirmed', status: 500, request_id: expect.stringMatching(/^req_/) });
  });

  it('an answer lost after sending (500) is unconfirmed: exit 1, not resent, with a hint to check first', async () => {
    await fx.sb.admin.createFlow('lost');
    await fx.sb.admin.setFaults({ error_rate: 1 });
    const res = await runCli(['events', 'send', '--type', 'lost', '--email', 'l@events.test', '--json'], { env });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(JSON.parse(res.stderr).error).toMatchObject({ code: 'unconfirmed' });
    await fx.sb.admin.setFaults({});
    // Half of the injected 500s apply the write first: at most one stored event, never two.
    expect((await fx.sb.admin.outbox({ type: 'flow_run' })).length).toBeLessThanOrEqual(1);
  });
});

describe('svc events send --file', () => {
  it('a file with bad lines: exact counts, line numbers, report, exit 4', async () => {
    await fx.sb.admin.createFlow('ci_check');
    const report = join(fx.tmp.dir, 'report.csv');
    const res = await runCli(['events', 'send', '--file', fixture('events-bad.ndjson'), '--report', report, '--json'], { env });
    expect(res.code).toBe(4);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({
      rows: 8,
      accepted: 3,
      rejected: 5,
      failed: 0,
      unconfirmed: 0,
      rejected_lines: [2, 3, 5, 7, 9],
      unconfirmed_lines: [],
    });
    expect(JSON.parse(res.stderr).error.code).toBe('partial_failure');
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('line,id,outcome,status,error_code,message');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      expect.stringMatching(/^1,ev_\w+,accepted$/),
      '2,,rejected',
      '3,,rejected',
      '5,,rejected',
      expect.stringMatching(/^6,ev_\w+,accepted$/),
      '7,,rejected',
      expect.stringMatching(/^8,ev_\w+,accepted$/),
      '9,,rejected',
    ]);
    expect(lines[2]).toContain('invalid_json');
    expect(lines[3]).toContain('event_type is required');
    expect(lines[4]).toContain('one of email, phone or contact_id is required');
    const runs = await flowRunsByContact();
    expect([...runs.values()].map((ids) => ids.length)).toEqual([1, 1, 1]);
  });

  it('report cells that a spreadsheet would run as formulas are escaped', async () => {
    const report = join(fx.tmp.dir, 'formula.csv');
    const lines = [
      JSON.stringify({ event_type: 'x', email: 'f@events.test', '=HYPERLINK("http://evil")': 1 }),
      JSON.stringify({ event_type: 'x', contact_id: '+1-2' }),
    ];
    const res = await runCli(['events', 'send', '--file', '-', '--report', report, '--json'], { env, stdin: `${lines.join('\n')}\n` });
    expect(res.code).toBe(4);
    const rows = readFileSync(report, 'utf8').trim().split('\n');
    expect(rows[1]).toBe(`1,,rejected,,invalid_request,"'=HYPERLINK(""http://evil"") is not a known event field"`);
    expect(rows[2]).toMatch(/^2,,rejected,404,not_found,contact \+1-2 not found$/);
  });

  it('human output: the problems with their line numbers on stderr, the summary on stdout', async () => {
    const res = await runCli(['events', 'send', '--file', fixture('events-bad.ndjson')], { env });
    expect(res.code).toBe(4);
    expect(res.stdout).toBe('rows\t8\naccepted\t3\nrejected\t5\nfailed\t0\nunconfirmed\t0\n');
    expect(res.stderr).toContain('line 2: rejected: not valid JSON');
    expect(res.stderr).toContain('line 5: rejected: one of email, phone or contact_id is required');
    expect(res.stderr).toContain('5 line(s) rejected and 0 failed out of 8');
    expect(res.stderr).not.toMatch(/\u001b\[/);
  });

  it('local phone numbers in a file are normalised with --default-country (the phone helpers load on first need)', async () => {
    const lines = [
      JSON.stringify({ event_type: 'p', email: 'first@events.test' }),
      JSON.stringify({ event_type: 'p', phone: '(415) 555-0101' }),
      JSON.stringify({ event_type: 'p', phone: '+14155550102' }),
    ];
    const res = await runCli(['events', 'send', '--file', '-', '--default-country', 'US', '--json'], {
      env,
      stdin: `${lines.join('\n')}\n`,
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ rows: 3, accepted: 3 });
    const found = await fetch(`${fx.sb.baseUrl}/v1/contacts?phone=${encodeURIComponent('+14155550101')}`, {
      headers: { authorization: `Bearer ${env.SVC_TOKEN}` },
    }).then((r) => r.json() as Promise<{ data: unknown[] }>);
    expect(found.data).toHaveLength(1);
    const noCountry = await runCli(['events', 'send', '--file', '-', '--json'], { env, stdin: `${lines[1]}\n` });
    expect(noCountry.code).toBe(4);
    expect(JSON.parse(noCountry.stdout)).toMatchObject({ rows: 1, rejected: 1, rejected_lines: [1] });
  });

  it('reads stdin with --file - and exits 0 when every line is accepted', async () => {
    await fx.sb.admin.createFlow('ci_check');
    const res = await runCli(['events', 'send', '--file', '-', '--json'], { env, stdin: readFileSync(fixture('events.ndjson'), 'utf8') });
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toMatchObject({ rows: 3, accepted: 3, rejected: 0, failed: 0, unconfirmed: 0 });
    expect(await fx.sb.admin.outbox({ type: 'flow_run' })).toHaveLength(3);
  });

  it('destroyed connections and 500s: those lines are unconfirmed, listed, never sent twice', async () => {
    await fx.sb.admin.createFlow('faulty');
    const file = eventsFile(80, 'faulty');
    const out = join(fx.tmp.dir, 'unconfirmed.ndjson');
    const report = join(fx.tmp.dir, 'report.csv');
    await fx.sb.admin.setFaults({ error_rate: 0.2, reset_rate: 0.2 });
    const res = await runCli(['events', 'send', '--file', file, '--unconfirmed-out', out, '--report', report, '--json'], { env });
    await fx.sb.admin.setFaults({});
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const s = JSON.parse(res.stdout);
    expect(s.rows).toBe(80);
    expect(s.accepted + s.unconfirmed).toBe(80);
    expect(s.unconfirmed).toBeGreaterThan(5);
    expect(s.unconfirmed_lines).toHaveLength(s.unconfirmed);
    expect(s.resend_hint).toContain(out);
    // The command alone, beside the sentence: a script runs it without parsing prose.
    expect(s.resend_command).toBe(`svc events send --file ${out}`);
    // The unconfirmed lines, and only those, were written out for a checked resend.
    const written = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).properties.i + 1);
    expect(written.sort((a: number, b: number) => a - b)).toEqual(s.unconfirmed_lines);
    const reportLines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
    expect(reportLines.filter((l) => l.split(',')[2] === 'unconfirmed').map((l) => Number(l.split(',')[0]))).toEqual(s.unconfirmed_lines);
    // No event stored twice: one flow run at most per contact, exactly one per accepted line.
    const runs = await flowRunsByContact();
    expect([...runs.values()].every((ids) => ids.length === 1)).toBe(true);
    expect(runs.size).toBeGreaterThanOrEqual(s.accepted);
    expect(runs.size).toBeLessThanOrEqual(80);
    const acceptedIds = reportLines.filter((l) => l.split(',')[2] === 'accepted').map((l) => l.split(',')[1] ?? '');
    const stored = new Set([...runs.values()].flat());
    expect(acceptedIds.every((id) => stored.has(id))).toBe(true);
  });

  it('429s and 503s are retried: every event stored exactly once', async () => {
    await fx.sb.admin.createFlow('busy');
    const file = eventsFile(60, 'busy');
    await fx.sb.admin.setFaults({ unavailable_rate: 0.2, rate_limit_rps: 40 });
    const res = await runCli(['events', 'send', '--file', file, '--json', '--debug'], { env });
    await fx.sb.admin.setFaults({});
    expect(res.code).toBe(0);
    // The --debug trace shows that both kinds of refusal really happened and were retried.
    expect(res.stderr).toMatch(/→ 429/);
    expect(res.stderr).toMatch(/→ 503/);
    expect(JSON.parse(res.stdout)).toMatchObject({ rows: 60, accepted: 60, rejected: 0, failed: 0, unconfirmed: 0 });
    const runs = await flowRunsByContact();
    expect(runs.size).toBe(60);
    expect([...runs.values()].every((ids) => ids.length === 1)).toBe(true);
  });

  it('a token without events_write: exit 3 at once, for a single event and for a file, nothing stored', async () => {
    const weak = { ...env, SVC_TOKEN: (await fx.sb.admin.createApiToken(['contacts_read'])).token };
    const single = await runCli(['events', 'send', '--type', 'x', '--email', 'w@events.test'], { env: weak });
    expect(single.code).toBe(3);
    expect(single.stderr).toContain('events_write');
    const file = eventsFile(50, 'weak');
    const bulk = await runCli(['events', 'send', '--file', file, '--json'], { env: weak });
    expect(bulk.code).toBe(3);
    expect(bulk.stdout).toBe('');
    expect(JSON.parse(bulk.stderr).error.code).toBe('insufficient_scope');
    expect(await fx.sb.admin.outbox()).toEqual([]);
  });

  it('on a full TTY: a bulk send with the spinner still prints the summary table', async () => {
    const file = eventsFile(250, 'spin');
    const res = await runCli(['events', 'send', '--file', file], { env, tty: true });
    expect(res.code).toBe(0);
    const plain = res.stdout.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^rows\s+250\naccepted\s+250\n/);
  });

  it('on a TTY: a summary table and a resend command for unconfirmed lines', async () => {
    const file = eventsFile(10, 'tty');
    await fx.sb.admin.setFaults({ reset_rate: 1 });
    const res = await runCli(['events', 'send', '--file', file, '--no-color'], { env, tty: { stdout: true, stderr: false } });
    await fx.sb.admin.setFaults({});
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^rows\s+10\naccepted\s+0\nrejected\s+0\nfailed\s+0\nunconfirmed\s+10\n$/);
    expect(res.stderr).toContain('10 event(s) unconfirmed (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)');
    expect(res.stderr).toContain(`sed -n '1p;2p;3p;4p;5p;6p;7p;8p;9p;10p' ${file} | svc events send --file -`);
  });

  it('--json: the unconfirmed line numbers as data and the resend command on its own', async () => {
    const file = eventsFile(4, 'data');
    await fx.sb.admin.setFaults({ reset_rate: 1 });
    const res = await runCli(['events', 'send', '--file', file, '--json'], { env });
    // From stdin there is no file to pick lines from: no command, the sentence says what to do.
    const piped = await runCli(['events', 'send', '--file', '-', '--json'], { env, stdin: readFileSync(file, 'utf8') });
    await fx.sb.admin.setFaults({});
    expect(res.code).toBe(0);
    const s = JSON.parse(res.stdout);
    expect(s.unconfirmed_lines).toEqual([1, 2, 3, 4]);
    expect(s.resend_command).toBe(`sed -n '1p;2p;3p;4p' ${file} | svc events send --file -`);
    expect(s.resend_hint).toContain(s.resend_command);
    const p = JSON.parse(piped.stdout);
    expect(p.unconfirmed_lines).toEqual([1, 2, 3, 4]);
    expect(p.resend_command).toBeUndefined();
    expect(p.resend_hint).toMatch(/--unconfirmed-out FILE/);
  });
});
