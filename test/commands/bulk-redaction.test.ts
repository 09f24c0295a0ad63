/**
 * A token a server echoes never reaches a bulk run's outputs (issue 36): a service answering 400
 * with the request's Authorization value in its message (with the scheme, and bare) is masked as
 * single commands mask it, in the per-row lines on stderr, the `events send` warnings, stdout, the
 * report, the rejects file and the journal.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cleanup, rawServer } from '../helpers/raw-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/tmp.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const tmp = useTempDir();

// No digit, no "token=": only the run's own knowledge of the secret can mask it.
const TOKEN = 'svcSecretEchoedBackXyzAbcQwerty';

/** A service that refuses every request, quoting the Authorization header it was sent. */
async function echoingServer() {
  return rawServer(({ head }) => {
    const auth = /^authorization: *(.*)$/im.exec(head)?.[1] ?? '';
    const bare = auth.replace(/^Bearer\s+/i, '');
    const body = JSON.stringify({
      error: {
        code: 'invalid_request',
        message: `header Authorization: ${auth} is not allowed here; the key ${bare} belongs to another business`,
        details: [{ field: `key ${bare}`, message: `unknown key ${bare}` }],
      },
    });
    return [`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`];
  }, cleanups);
}

/** Every file the run left in the folder (report, rejects, journals), as text. */
function filesText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out.join('\n');
}

describe('a token echoed by the service', () => {
  it('orders import: masked in the row lines, the summary, the report and the rejects file', async () => {
    const s = await echoingServer();
    const dir = tmp.dir;
    const file = join(dir, 'orders.csv');
    writeFileSync(
      file,
      'order_id,total,currency,order_date,email\nE-1,1.00,EUR,2024-01-01,a@example.com\nE-2,2.00,EUR,2024-01-01,b@example.com\n',
    );
    const report = join(dir, 'report.csv');
    const rejects = join(dir, 'rejects.csv');
    const env = { SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, SVC_BASE_URL: s.origin, SVC_TOKEN: TOKEN };
    const r = await runCli(['orders', 'import', '--live', file, '--report', report, '--rejects', rejects], { env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/line 2 \(E-1\): rejected 400 invalid_request: header Authorization: Bearer \[REDACTED\]/);
    expect(readFileSync(report, 'utf8')).toContain('[REDACTED]');
    expect(readFileSync(rejects, 'utf8')).toContain('[REDACTED]');
    const json = await runCli(['orders', 'import', '--live', file, '--json', '--report', report, '--rejects', rejects], { env });
    expect(json.code).toBe(4);
    for (const text of [r.stdout, r.stderr, json.stdout, json.stderr, filesText(dir)]) expect(text).not.toContain(TOKEN);
  });

  it('events send --file: masked in the warnings, the report and the rejects file', async () => {
    const s = await echoingServer();
    const dir = tmp.dir;
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, '{"event_type":"e","email":"a@example.com"}\n{"event_type":"e","email":"b@example.com"}\n');
    const report = join(dir, 'report.csv');
    const rejects = join(dir, 'rejects.ndjson');
    const env = { SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, SVC_BASE_URL: s.origin, SVC_TOKEN: TOKEN };
    const r = await runCli(['events', 'send', '--file', file, '--report', report, '--rejects', rejects], { env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/line 1: rejected \(HTTP 400\): header Authorization: Bearer \[REDACTED\]/);
    expect(existsSync(rejects)).toBe(true);
    expect(readFileSync(rejects, 'utf8')).toContain('[REDACTED]');
    const json = await runCli(['events', 'send', '--file', file, '--json'], { env });
    expect(json.code).toBe(4);
    for (const text of [r.stdout, r.stderr, json.stdout, json.stderr, filesText(dir)]) expect(text).not.toContain(TOKEN);
  });
});
