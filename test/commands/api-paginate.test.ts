/**
 * svc api --paginate / --ndjson (issue 30): every page of a listing as one JSON array or one item
 * a line, as gh api --paginate; a path without the leading `/`. Against the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunOptions, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let cfg: { dir: string; cleanup: () => void };
let token: string;
const emails: string[] = [];

beforeAll(async () => {
  sb = await withSandbox();
  cfg = tempConfigDir();
  token = await sb.tokenWithAllScopes();
  for (let i = 0; i < 7; i++) {
    const email = `page${i}@example.com`;
    const r = await svc(['contacts', 'create', '--email', email, '--email-consent', i % 2 ? 'subscribed' : 'unsubscribed', '--json']);
    expect(r.code, r.stderr).toBe(0);
    emails.push(email);
  }
});
afterAll(async () => {
  cfg.cleanup();
  await sb.close();
});

function svc(argv: string[], opts: RunOptions = {}) {
  return runCli(argv, { ...opts, env: { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token, ...opts.env } });
}

describe('svc api --paginate', () => {
  it('walks every page (2 a page here) and prints one JSON array of the items', async () => {
    const r = await svc(['api', 'GET', '/v1/contacts?limit=2', '--paginate']);
    expect(r.code, r.stderr).toBe(0);
    const items = JSON.parse(r.stdout) as Array<{ email: string }>;
    expect(items.map((c) => c.email).sort()).toEqual([...emails].sort());
    // One page alone has two.
    const one = JSON.parse((await svc(['api', 'GET', '/v1/contacts?limit=2'])).stdout) as { data: unknown[] };
    expect(one.data).toHaveLength(2);
  });

  it('--ndjson: one item a line; the query of -F is kept on every page; a path without the leading /', async () => {
    const r = await svc(['api', 'GET', 'v1/contacts', '--paginate', '--ndjson', '-F', 'limit=2', '-F', 'email_consent=subscribed']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(JSON.parse(l).email_consent).toBe('subscribed');
  });

  it('at a terminal the array is indented; an empty listing is []', async () => {
    const tty = await svc(['api', 'GET', '/v1/contacts?limit=3', '--paginate'], { tty: true });
    expect(tty.stdout.startsWith('[\n  {\n    "id"')).toBe(true);
    expect(JSON.parse(tty.stdout)).toHaveLength(7);
    const none = await svc(['api', 'GET', '/v1/contacts', '--paginate', '-F', 'email=nobody@example.com']);
    expect(none.stdout).toBe('[]\n');
  });

  it('refuses what it cannot page: another method, -i, a path that is not a listing', async () => {
    const post = await svc(['api', 'POST', '/v1/contacts', '--paginate']);
    expect(post.code).toBe(2);
    const include = await svc(['api', 'GET', '/v1/contacts', '--paginate', '-i']);
    expect(include.code).toBe(2);
    const id = JSON.parse((await svc(['api', 'GET', '/v1/contacts?limit=1'])).stdout).data[0].id as string;
    const single = await svc(['api', 'GET', `/v1/contacts/${id}`, '--paginate']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('did not answer a listing');
    const url = await svc(['api', 'GET', 'https://elsewhere.example.com/v1/contacts']);
    expect(url.code).toBe(2);
  });

  it('an error page: its body on stdout, the error on stderr, the array left open', async () => {
    const r = await svc(['api', 'GET', '/v1/contacts', '--paginate', '-F', 'email_consent=bogus']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: /m);
    expect(r.stdout).not.toMatch(/\]\n$/);
  });
});
