/**
 * Proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) against a real forward proxy started here: plain
 * HTTP through it (absolute-form), HTTPS through a CONNECT tunnel to a TLS server trusted with
 * NODE_EXTRA_CA_CERTS (a spawned svc), NO_PROXY bypass, credentials from the URL's user info sent
 * to the proxy and never printed, `svc auth status` naming the proxy, and a proxy that cannot be
 * reached: its own error, at once, naming it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxyFor, proxySettings } from '../../src/client/proxy.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { type Cleanup, forwardProxy, hasOpenssl, rawServer, removeDir, selfSignedCert } from '../helpers/raw-server.js';
import { runCli } from '../helpers/run-cli.js';
import { ensureBuilt, spawnSvc } from '../helpers/spawn-cli.js';

const cleanups: Cleanup[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('which proxy a URL goes through (the rules of undici and curl)', () => {
  it('reads the variables, lower-case first, HTTP_PROXY for https: when no HTTPS proxy is set', () => {
    expect(proxySettings({})).toBeUndefined();
    expect(proxySettings({ NO_PROXY: 'x' })).toBeUndefined();
    const s = proxySettings({
      HTTPS_PROXY: 'http://A:1',
      https_proxy: 'http://a:1',
      HTTP_PROXY: 'http://b:2',
      no_proxy: 'n',
      NO_PROXY: 'N',
    });
    expect(s).toEqual({ httpsProxy: 'http://a:1', httpProxy: 'http://b:2', noProxy: 'n' });
    expect(proxyFor('https://api.example.com', s)).toBe('http://a:1');
    expect(proxyFor('http://api.example.com', s)).toBe('http://b:2');
    expect(proxyFor('https://api.example.com', proxySettings({ HTTP_PROXY: 'http://b:2' }))).toBe('http://b:2');
    expect(proxyFor('http://api.example.com', proxySettings({ HTTPS_PROXY: 'http://a:1' }))).toBeUndefined();
  });

  it('NO_PROXY: a host and its subdomains, a leading dot or *., a port, *, and loopback only when listed', () => {
    const s = (noProxy: string) => ({ httpsProxy: 'http://p:1', noProxy });
    expect(proxyFor('https://example.com', s('example.com'))).toBeUndefined();
    expect(proxyFor('https://api.example.com', s('example.com'))).toBeUndefined();
    expect(proxyFor('https://api.example.com', s('.example.com'))).toBeUndefined();
    expect(proxyFor('https://api.example.com', s('*.example.com'))).toBeUndefined();
    expect(proxyFor('https://notexample.com', s('example.com'))).toBe('http://p:1');
    expect(proxyFor('https://example.com:8443', s('example.com:443'))).toBe('http://p:1');
    expect(proxyFor('https://example.com', s('example.com:443'))).toBeUndefined();
    expect(proxyFor('https://EXAMPLE.com', s('other.org, Example.COM'))).toBeUndefined();
    expect(proxyFor('https://anything', s('*'))).toBeUndefined();
    expect(proxyFor('https://127.0.0.1:9', s(''))).toBe('http://p:1');
    expect(proxyFor('https://127.0.0.1:9', s('localhost,127.0.0.1'))).toBeUndefined();
  });
});

describe('svc through a forward proxy', () => {
  const suite = cliSuite();
  beforeAll(ensureBuilt);

  it('plain HTTP goes through the proxy (absolute-form), credentials sent to it and never printed, even with --debug', async () => {
    const proxy = await forwardProxy(cleanups, `Basic ${Buffer.from('alice:pr0xy-s3cret').toString('base64')}`);
    const proxyUrl = proxy.url.replace('http://', 'http://alice:pr0xy-s3cret@');
    const r = await runCli(['contacts', 'list', '--json', '--debug'], { env: suite.env({ HTTP_PROXY: proxyUrl }) });
    expect(r.stderr).not.toContain('pr0xy-s3cret');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(proxy.seen).toEqual([`GET ${suite.sb.baseUrl}/v1/contacts?limit=50`]);
    expect(proxy.auth.every((a) => a === `Basic ${Buffer.from('alice:pr0xy-s3cret').toString('base64')}`)).toBe(true);

    const status = await runCli(['auth', 'status', '--json'], { env: suite.env({ HTTP_PROXY: proxyUrl }) });
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain('pr0xy-s3cret');
    expect(status.stdout).not.toContain('alice');
    expect(JSON.parse(status.stdout)).toMatchObject({ proxy: proxy.url, proxy_from: 'HTTP_PROXY' });
    const human = await runCli(['auth', 'status'], { env: suite.env({ http_proxy: proxyUrl }) });
    expect(human.stdout).toMatch(new RegExp(`proxy +${proxy.url.replace(/[.]/g, '\\.')} \\(from http_proxy\\)`));
    expect(human.stdout).not.toContain('pr0xy-s3cret');
  });

  it('a proxy refusing the credentials is its own error naming the proxy (no password), exit 1', async () => {
    const proxy = await forwardProxy(cleanups, 'Basic nobody');
    const r = await runCli(['contacts', 'list'], {
      env: suite.env({ HTTP_PROXY: proxy.url.replace('http://', 'http://bob:wr0ng-pass@') }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the proxy ${proxy.url} asks for credentials (HTTP 407)`);
    expect(r.stderr).not.toContain('wr0ng-pass');
  });

  it('NO_PROXY listing the host: straight to the service, the proxy untouched; auth status says so', async () => {
    const proxy = await forwardProxy(cleanups);
    const env = suite.env({ HTTP_PROXY: proxy.url, NO_PROXY: 'example.org,127.0.0.1' });
    const r = await runCli(['contacts', 'list', '--json'], { env });
    expect(r.code).toBe(0);
    expect(proxy.seen).toEqual([]);
    const status = await runCli(['auth', 'status', '--json'], { env: { ...env, NO_PROXY: '', no_proxy: '127.0.0.1' } });
    expect(JSON.parse(status.stdout)).toMatchObject({ proxy: null, proxy_from: 'NO_PROXY' });
  });

  it('an unreachable proxy at the start of a command: its own error, naming it without credentials, exit 1, no retries', async () => {
    const closed = await rawServer(() => null, cleanups);
    await closed.close();
    const started = Date.now();
    const r = await runCli(['contacts', 'list'], {
      env: suite.env({
        HTTPS_PROXY: `http://carol:c4rol-pw@127.0.0.1:${closed.port}`,
        HTTP_PROXY: `http://carol:c4rol-pw@127.0.0.1:${closed.port}`,
      }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the proxy http://127.0.0.1:${closed.port} (connection refused)`);
    expect(r.stderr).not.toContain('c4rol-pw');
    expect(r.stderr).not.toContain('host name not found');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a proxy variable that is not a URL is a usage error naming the variable, not its value', async () => {
    const r = await runCli(['contacts', 'list'], { env: suite.env({ HTTPS_PROXY: 'proxy.corp:3128' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/HTTPS_PROXY must be an http:\/\/ or https:\/\/ address|HTTPS_PROXY is not a URL/);
  });

  it('a proxy variable without a scheme never shows its user name or password', async () => {
    const r = await runCli(['contacts', 'list'], { env: suite.env({ HTTP_PROXY: 'dave:d4ve-pw@proxy.corp:3128', HTTPS_PROXY: '' }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HTTP_PROXY must be an http:// or https:// address');
    expect(r.stderr).not.toContain('dave');
    expect(r.stderr).not.toContain('d4ve-pw');
  });

  it('the sandbox admin commands go through the same transport: the proxy applies to them too', async () => {
    const proxy = await forwardProxy(cleanups);
    const r = await runCli(['sandbox', 'outbox', '--json', '--base-url', suite.sb.baseUrl], {
      env: { SVC_CONFIG_DIR: suite.tmp.dir, HTTP_PROXY: proxy.url },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.seen).toEqual([`GET ${suite.sb.baseUrl}/_sandbox/outbox`]);
  });

  it("one HTTP stack: no source file outside the browser dashboard calls Node's global fetch", () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.startsWith('dashboard'));
    expect(files.filter((f) => /\bfetch\(/.test(readFileSync(join(root, f), 'utf8')))).toEqual([]);
  });

  it('--sandbox is always reached directly, whatever the proxy variables say', async () => {
    const proxy = await forwardProxy(cleanups);
    const r = await runCli(['contacts', 'list', '--sandbox', '--json'], {
      env: { SVC_CONFIG_DIR: suite.tmp.dir, SVC_DATA_DIR: suite.tmp.dir, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(proxy.seen).toEqual([]);
  });
});

describe.skipIf(!hasOpenssl)('HTTPS through a CONNECT tunnel', () => {
  const tls = { dir: '', key: '', cert: '' };
  beforeAll(async () => {
    Object.assign(tls, selfSignedCert());
    await ensureBuilt();
  });
  afterAll(() => removeDir(tls.dir));

  it('reaches a TLS service trusted through NODE_EXTRA_CA_CERTS, the proxy seeing only CONNECT host:port', async () => {
    const server = createHttpsServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          data: [{ id: 'ct_1', email: 'a@example.com', path: req.url, auth: req.headers.authorization ? 'yes' : 'no' }],
          next_cursor: null,
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    server.on('connection', (sock) => cleanups.push(() => void sock.destroy()));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const port = (server.address() as { port: number }).port;
    const proxy = await forwardProxy(cleanups);
    const r = await spawnSvc(['api', 'GET', '/v1/contacts'], {
      SVC_CONFIG_DIR: tls.dir,
      SVC_BASE_URL: `https://localhost:${port}`,
      SVC_TOKEN: 'tok_through_the_tunnel',
      HTTPS_PROXY: proxy.url,
      NODE_EXTRA_CA_CERTS: tls.cert,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ data: [{ id: 'ct_1', path: '/v1/contacts', auth: 'yes' }] });
    expect(proxy.seen).toEqual([`CONNECT localhost:${port}`]);
  });
});
