/**
 * Rows whose answer cannot be tied to their request (issue 36, "nothing left in between"): a
 * front between svc and the real sandbox answers some requests wrongly — a stale answer replayed
 * (another order's), a 201 with no body sent before the request was read, a captive portal's 200
 * HTML page, another order's answer naming this one in a nested field — without passing them on. Those rows end `unmatched`: exit 4 with a plain count, the
 * journal kept; `--resume` through an honest front sends exactly them again and the sandbox then
 * holds every order once. Rows answered 200 after a retry stay `unconfirmed` with exit 0
 * (orders-import-faults.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { type Cleanup, type RawRequest, rawServer } from '../helpers/raw-server.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Mode = 'honest' | 'replay' | 'early' | 'portal' | 'nested';

const raw = (status: string, type: string, body: string) =>
  `HTTP/1.1 ${status}\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/**
 * A front to the sandbox: honest requests are passed on and their answers relayed; in a hostile
 * mode, every `every`-th request (every one for the portal) gets the wrong answer and is dropped.
 */
async function front(mode: { now: Mode; every: number }) {
  let last: string | undefined;
  let n = 0;
  const passOn = async (req: RawRequest) => {
    const [requestLine = '', ...lines] = req.head.split('\r\n');
    const [method = 'GET', path = '/'] = requestLine.split(' ');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      const name = l.slice(0, i).trim().toLowerCase();
      if (['authorization', 'content-type', 'x-service-integration-token'].includes(name)) headers[name] = l.slice(i + 1).trim();
    }
    const res = await fetch(`${suite.sb.baseUrl}${path}`, { method, headers, body: req.body === '' ? undefined : req.body });
    const text = await res.text();
    const answer = raw(`${res.status} X`, res.headers.get('content-type') ?? 'application/json', text);
    if (res.status < 300) last = answer;
    if (!req.socket.destroyed) req.socket.write(answer);
  };
  const s = await rawServer((req) => {
    const hostile = mode.now === 'portal' || (mode.now !== 'honest' && ++n % mode.every === 0);
    if (!hostile || (mode.now === 'replay' && last === undefined)) {
      passOn(req).catch(() => req.socket.destroy());
      return null;
    }
    if (mode.now === 'replay') return [last as string];
    if (mode.now === 'early') return ['HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n'];
    if (mode.now === 'nested') {
      // Another order's answer that names this order in a nested field.
      const { order_id } = JSON.parse(req.body) as { order_id: string };
      return [raw('201 Created', 'application/json', JSON.stringify({ order_id: 'OTHER-1', parent: { order_id } }))];
    }
    return [raw('200 OK', 'text/html', '<html><body>Sign in to the guest Wi-Fi</body></html>')];
  }, cleanups);
  return s;
}

function ordersFile(n: number): string {
  const lines = ['order_id,total,currency,order_date,email'];
  for (let i = 1; i <= n; i++) lines.push(`T-${i},${i}.50,EUR,2024-01-01,t${i}@example.com`);
  return suite.file('orders.csv', `${lines.join('\n')}\n`);
}

describe('svc orders import: answers that cannot be tied to their row', () => {
  for (const [mode, every] of [
    ['replay', 4],
    ['early', 3],
    ['portal', 1],
    ['nested', 6],
  ] as const) {
    it(`${mode}: those rows are unmatched (exit 4, a plain count, the journal kept); --resume stores every order once`, async () => {
      const n = 24;
      const file = ordersFile(n);
      const report = join(suite.tmp.dir, 'report.csv');
      const state = { now: mode as Mode, every };
      const f = await front(state);
      // One at a time: each wrong answer is exactly one row (a mismatch drops the connections,
      // which would make other rows in flight retry and end `unconfirmed`).
      const args = ['orders', 'import', '--live', file, '--report', report, '--concurrency', '1'];
      const env = suite.env({ SVC_BASE_URL: f.origin });
      const first = await runCli([...args, '--json'], { env });
      expect(first.code, first.stderr).toBe(4);
      const s = JSON.parse(first.stdout);
      expect(s).toMatchObject({ rows: n, unmatched: n / every, created: n - n / every, unconfirmed: 0, rejected: 0, failed: 0 });
      expect(s.unmatched_lines).toHaveLength(s.unmatched);
      expect(first.stderr).toContain(`0 row(s) rejected, 0 failed and ${s.unmatched} unmatched out of ${n}`);
      expect(first.stderr).toContain('whether the service stored it is unknown');
      expect(first.stderr).toContain('--resume');
      expect(existsSync(`${report}.journal`)).toBe(true);
      const rows = readFileSync(report, 'utf8').trimEnd().split('\n').slice(1);
      const unmatched = rows.filter((l) => l.split(',')[2] === 'unmatched');
      expect(unmatched).toHaveLength(s.unmatched);
      for (const l of unmatched) expect(l).toContain('answer_mismatch');
      // Not one of them is stored: the front dropped them.
      for (const l of unmatched) expect(await suite.sb.admin.order(l.split(',')[1] as string)).toBeUndefined();

      state.now = 'honest';
      const second = await runCli([...args, '--resume', '--json'], { env });
      expect(second.code, second.stderr).toBe(0);
      const r = JSON.parse(second.stdout);
      expect(r).toMatchObject({ rows: n, unconfirmed: 0, rejected: 0, failed: 0 });
      expect(r.unmatched).toBeUndefined();
      // The resumed run sent only the unmatched rows; each was new to the service.
      expect(r.resumed).toBe(n - s.unmatched);
      expect(r.created).toBe(n);
      for (let i = 1; i <= n; i++) expect((await suite.sb.admin.order(`T-${i}`))?.total, `T-${i}`).toBe(`${i}.50`);
      expect(existsSync(`${report}.journal`)).toBe(false);
    }, 60_000);
  }

  it('on a terminal-less stderr, the summary lists the unmatched count and the rows', async () => {
    const n = 6;
    const file = ordersFile(n);
    const f = await front({ now: 'portal', every: 1 });
    const r = await runCli(['orders', 'import', '--live', file], { env: suite.env({ SVC_BASE_URL: f.origin }) });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^unmatched\t6$/m);
    expect(r.stdout).toMatch(/^unconfirmed\t0$/m);
    expect(r.stderr).toMatch(/line 2 \(T-1\): unmatched answer_mismatch: .*answered none/);
    expect(r.stderr).toContain(`6 row(s) unmatched (the answer could not be tied to the row`);
  }, 30_000);
});
