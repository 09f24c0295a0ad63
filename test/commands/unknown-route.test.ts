/**
 * A base URL under which the service knows no route (…/v1, so every path is /v1/v1/…) and a token
 * too large for a header (431) concern every request: a bulk run stops at the first answer, as for
 * a 401, and every command names the cause. A 404 that is a row's own answer (a missing contact)
 * stays a row outcome: the client tells them apart by asking a route that always exists, once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const s = cliSuite();

/** How many requests the sandbox logged for a method and path prefix. */
async function logged(method: string, path: string): Promise<number> {
  const res = await fetch(`${s.sb.baseUrl}/_sandbox/requests?limit=1&method=${method}&path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { total: number }).total;
}

function ordersCsv(n: number): string {
  const csv = join(s.tmp.dir, 'o.csv');
  const rows = Array.from({ length: n }, (_, i) => `R-${i},1.00,EUR,2026-01-01,r${i}@example.com`).join('\n');
  writeFileSync(csv, `order_id,total,currency,order_date,email\n${rows}\n`);
  return csv;
}

const V1_HINT = 'does the base URL end in /v1? It must not';

describe('a base URL under which the service knows no route', () => {
  it('orders import with a base URL ending in /v1 stops at the first answer (exit 1) instead of rejecting every row', async () => {
    const csv = ordersCsv(40);
    const report = join(s.tmp.dir, 'r.csv');
    const before = await logged('POST', '/v1/v1/orders');
    const r = await runCli(['orders', 'import', '--live', csv, '--concurrency', '2', '--report', report], {
      env: s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/v1` }),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('stopped after 0 row(s)');
    expect(r.stderr).toContain('the service does not know POST /v1/v1/orders/placed');
    expect(r.stderr).toContain(V1_HINT);
    expect(r.stderr).toContain(`now ${s.sb.baseUrl}/v1, from SVC_BASE_URL`);
    expect(r.stderr).not.toContain('rejected 404');
    // At most the requests in flight when the first answer came (2), never one per row.
    expect((await logged('POST', '/v1/v1/orders')) - before).toBeLessThanOrEqual(2);
  });

  it('--json gives the error the code unknown_route, status 404', async () => {
    const csv = ordersCsv(3);
    const r = await runCli(['--json', 'orders', 'import', '--live', csv], { env: s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/v1/` }) });
    expect(r.code).toBe(1);
    const last = JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '{}') as { error: Record<string, unknown> };
    expect(last.error).toMatchObject({ code: 'unknown_route', status: 404 });
    expect(String(last.error.hint)).toContain(V1_HINT);
  });

  it('events send --file and contacts delete --ids-file stop the same way', async () => {
    const events = join(s.tmp.dir, 'e.ndjson');
    writeFileSync(
      events,
      `${Array.from({ length: 10 }, (_, i) => JSON.stringify({ event_type: 'x', email: `e${i}@example.com` })).join('\n')}\n`,
    );
    const e = await runCli(['events', 'send', '--file', events], { env: s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/v1` }) });
    expect(e.code, e.stderr).toBe(1);
    expect(e.stderr).toContain('the service does not know POST /v1/v1/events');
    expect(e.stderr).toContain(V1_HINT);

    const ids = join(s.tmp.dir, 'ids.txt');
    writeFileSync(ids, 'ct_a\nct_b\nct_c\n');
    const d = await runCli(['contacts', 'delete', '--ids-file', ids, '--yes'], { env: s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/v1` }) });
    expect(d.code, d.stderr).toBe(1);
    expect(d.stderr).toContain('the service does not know DELETE /v1/v1/contacts/ct_');
    expect(d.stderr).not.toContain('not_found 3');
  });

  it('auth login --with-token saves nothing and names the /v1', async () => {
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', `${s.sb.baseUrl}/v1`], {
      env: { SVC_CONFIG_DIR: s.tmp.dir },
      stdin: s.token,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing was saved');
    expect(r.stderr).toContain(V1_HINT);
  });

  it('contacts list and contacts get give the same hint; another wrong prefix asks whether the base URL is right', async () => {
    const env = s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/v1` });
    const list = await runCli(['contacts', 'list'], { env });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('the service does not know GET /v1/v1/contacts');
    expect(list.stderr).toContain(V1_HINT);
    const get = await runCli(['contacts', 'get', 'ct_nope'], { env });
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('the service does not know GET /v1/v1/contacts/ct_nope');
    expect(get.stderr).not.toContain('no contact with id');
    const other = await runCli(['contacts', 'get', 'ct_nope'], { env: s.env({ SVC_BASE_URL: `${s.sb.baseUrl}/api` }) });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('the service does not know GET /api/v1/contacts/ct_nope');
    expect(other.stderr).toContain('is the base URL right?');
    expect(other.stderr).not.toContain(V1_HINT);
  });
});

describe("a 404 that is the request's own answer", () => {
  it('contacts delete --ids-file of missing contacts: each id is not_found (exit 0), the routes asked about once', async () => {
    const ids = join(s.tmp.dir, 'ids.txt');
    writeFileSync(ids, `${Array.from({ length: 12 }, (_, i) => `ct_missing${i}`).join('\n')}\n`);
    const before = await logged('GET', '/v1/contacts');
    const r = await runCli(['--json', 'contacts', 'delete', '--ids-file', ids, '--yes'], { env: s.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 12, not_found: 12, rejected: 0, failed: 0 });
    expect((await logged('GET', '/v1/contacts')) - before).toBe(1);
  });

  it('contacts get of a missing contact still says so', async () => {
    const r = await runCli(['contacts', 'get', 'ct_nope'], { env: s.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no contact with id ct_nope');
    expect(r.stderr).not.toContain('does not know');
  });

  it('events send --file with an unknown contact_id rejects that line only', async () => {
    const events = join(s.tmp.dir, 'e.ndjson');
    writeFileSync(
      events,
      `${JSON.stringify({ event_type: 'x', contact_id: 'ct_nobody' })}\n${JSON.stringify({ event_type: 'x', email: 'ok@example.com' })}\n`,
    );
    const r = await runCli(['--json', 'events', 'send', '--file', events], { env: s.env() });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('does not know');
  });
});

describe('a token too large for a request header (431)', () => {
  it('stops a bulk run at the first answer and asks whether the token is right, without printing it', async () => {
    const csv = ordersCsv(20);
    const r = await runCli(['orders', 'import', '--live', csv, '--concurrency', '1'], { env: s.env({ SVC_TOKEN: 'x'.repeat(100_000) }) });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('stopped after 0 row(s)');
    expect(r.stderr).toContain('HTTP 431');
    expect(r.stderr).toContain('request headers too large: is the token right?');
    expect(r.stderr).toContain('check SVC_TOKEN');
    expect(r.stderr).not.toContain('x'.repeat(100));
  });

  it('contacts list gives the same hint', async () => {
    const r = await runCli(['contacts', 'list'], { env: s.env({ SVC_TOKEN: 'y'.repeat(100_000) }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('request headers too large: is the token right?');
    expect(r.stderr).not.toContain('y'.repeat(100));
  });
});
