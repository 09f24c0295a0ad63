/**
 * A service mounted under a path prefix (https://host/marketing), as a real deployment behind a
 * gateway may be: the client talks to the real sandbox through a small prefix-stripping proxy
 * that, like many real APIs, gives the next page only as a Link header with an absolute path.
 */
import { createServer, type Server } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../../src/client/client.js';
import type { Contact } from '../../src/contract/types.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const PREFIX = '/marketing';
let sb: TestSandbox;
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  sb = await withSandbox();
  proxy = createServer(async (req, res) => {
    seen.push(req.url ?? '');
    if (!req.url?.startsWith(`${PREFIX}/`)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no such route"}}');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = { ...req.headers };
    delete headers.host;
    const up = await request(`${sb.baseUrl}${req.url.slice(PREFIX.length)}`, {
      method: req.method as 'GET',
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    let text = await up.body.text();
    const out: Record<string, string> = { 'content-type': String(up.headers['content-type'] ?? 'application/json') };
    if (req.url.startsWith(`${PREFIX}/v1/contacts?`) && up.statusCode === 200) {
      const page = JSON.parse(text) as { data: unknown[]; next_cursor: string | null };
      if (page.next_cursor) out.link = `<${PREFIX}/v1/contacts?limit=2&cursor=${encodeURIComponent(page.next_cursor)}>; rel="next"`;
      text = JSON.stringify({ data: page.data });
    }
    res.writeHead(up.statusCode, out).end(text);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}${PREFIX}`;
});
afterAll(async () => {
  await new Promise((r) => proxy.close(r));
  await sb.close();
});

describe('a base URL with a path prefix', () => {
  it('follows Link rel="next" absolute paths without doubling the prefix', async () => {
    const token = await sb.tokenWithAllScopes();
    const client = new ServiceClient({ baseUrl: proxyUrl, credentials: { kind: 'api_token', token }, logger: { debug() {}, warn() {} } });
    try {
      for (let i = 0; i < 5; i++) await client.createContact({ email: `prefix${i}@example.com` });
      const pages: Contact[][] = [];
      for await (const page of client.paginateContacts({}, { pageSize: 2 })) pages.push(page);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(new Set(pages.flat().map((c) => c.email)).size).toBe(5);
      expect(seen.filter((u) => u.startsWith(`${PREFIX}${PREFIX}`))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
