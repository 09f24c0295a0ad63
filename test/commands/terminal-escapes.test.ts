/**
 * Terminal escape injection: a contact's name holding OSC sequences (window title, clipboard
 * through OSC 52), a one-byte CSI (U+009B) or a bidi override is shown with visible escapes in
 * everything printed for a person — the table, TSV, `get`'s record, an error message carrying the
 * service's words, warnings — while --json, --format ndjson and csv stay byte-exact.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeColors } from '../../src/io/color.js';
import { escapeControls } from '../../src/io/escape.js';
import { type Column, Output } from '../../src/io/output.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { fakeIO, runCli } from '../helpers/run-cli.js';

const HOSTILE = '\u001b]0;PWNED\u0007\u001b]52;c;SGVsbG8=\u0007Ada\u009b2J\u202eevil';
const SHOWN = '^[]0;PWNED^G^[]52;c;SGVsbG8=^GAda\\u009b2J\\u202eevil';
/** Any byte a terminal would act on (tab and newline are layout). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const t = cliSuite();

async function createHostile(): Promise<string> {
  const res = await fetch(`${t.sb.baseUrl}/v1/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'pwn@example.com', first_name: HOSTILE }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('escapeControls', () => {
  it('shows C0 in caret notation, DEL as ^?, C1 and bidi controls as \\u escapes; keeps tab, newline and text', () => {
    expect(escapeControls(HOSTILE)).toBe(SHOWN);
    expect(escapeControls('a\tb\nc\rd\u007fe\u0000')).toBe('a\tb\nc^Md^?e^@');
    expect(escapeControls('Zoë 🎉 Müller — שלום')).toBe('Zoë 🎉 Müller — שלום');
  });
});

describe('values printed for a person', () => {
  it('contacts get on a terminal: the record shows the escapes, nothing a terminal would obey', async () => {
    const id = await createHostile();
    const r = await runCli(['contacts', 'get', id], { env: t.env(), tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(SHOWN);
    expect(r.stdout.replace(/\u001b\[\d+m/g, '')).not.toMatch(CONTROL);
  });

  it('tables and TSV (any list command): cells show the escapes, widths count what is shown', async () => {
    const rows = [{ name: HOSTILE, n: 1 }];
    const columns: Column<{ name: string; n: number }>[] = [
      { header: 'name', get: (r) => r.name, maxWidth: 200 },
      { header: 'n', get: (r) => r.n },
    ];
    const { io, stdout } = fakeIO({ tty: true });
    const out = new Output(io, { canPrompt: false, canAnimate: false, humanStdout: true, color: false }, makeColors(false), false);
    const table = await out.list('table', columns);
    table.writePage(rows);
    table.end();
    const tsv = await out.list('tsv', columns);
    tsv.writePage(rows);
    expect(stdout()).toBe(`NAME${' '.repeat(SHOWN.length - 4)}  N\n${SHOWN}  1\n${SHOWN}\t1\n`);
  });

  it('machine formats stay byte-exact: --json, ndjson and csv carry the value as stored', async () => {
    const id = await createHostile();
    const json = await runCli(['contacts', 'get', id, '--json'], { env: t.env(), tty: true });
    expect(JSON.parse(json.stdout).first_name).toBe(HOSTILE);
    const ndjson = await runCli(['contacts', 'list', '--format', 'ndjson'], { env: t.env() });
    expect(JSON.parse(ndjson.stdout).first_name).toBe(HOSTILE);
    const csv = await runCli(['contacts', 'list', '--format', 'csv'], { env: t.env() });
    expect(csv.stdout).toContain(HOSTILE);
  });

  it("orders import --dry-run: the listing of a file's rejected and duplicate rows is escaped", async () => {
    const file = join(t.tmp.dir, 'hostile.csv');
    const id = 'A\u001b]0;PWNED\u0007';
    writeFileSync(
      file,
      `order_id,total,currency,order_date,email\n${id},1.00,EUR,2026-01-01,a@example.com\n${id},2.00,EUR,2026-01-01,a@example.com\n${id},x,EUR,2026-01-01,a@example.com\n`,
    );
    const r = await runCli(['orders', 'import', file, '--dry-run'], { env: t.env(), tty: true });
    expect(r.stdout).toContain('A^[]0;PWNED^G');
    expect(r.stdout).not.toMatch(CONTROL);
  });

  it('warnings and progress lines through Output are escaped', () => {
    const { io, stderr } = fakeIO();
    const out = new Output(io, { canPrompt: false, canAnimate: false, humanStdout: false, color: false }, makeColors(false), false);
    out.warn(`skipping ${HOSTILE}`);
    out.info(`progress: ${HOSTILE}`);
    out.success(HOSTILE);
    expect(stderr()).toBe(`warning: skipping ${SHOWN}\nprogress: ${SHOWN}\n✓ ${SHOWN}\n`);
  });
});

describe('an error message carrying the service words', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'invalid_request', message: `bad name ${HOSTILE}` } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('is printed with visible escapes; with --json it stays exact', async () => {
    const env = t.env({ SVC_BASE_URL: baseUrl });
    const human = await runCli(['contacts', 'list'], { env, tty: true });
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`error: bad name ${SHOWN}`);
    expect(human.stderr.replace(/\u001b\[\d+m/g, '')).not.toMatch(CONTROL);
    const json = await runCli(['contacts', 'list', '--json'], { env });
    expect(JSON.parse(json.stderr).error.message).toMatch(/^bad name \u001b\]0;PWNED\u0007/);
  });
});
