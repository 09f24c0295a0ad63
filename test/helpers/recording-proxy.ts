/**
 * A pass-through HTTP proxy in front of the sandbox that records the bodies of POST /v1/events as
 * the bytes the CLI really put on the wire (text; parse them where a test wants the values).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  baseUrl: string;
  /** The raw text of each POST /v1/events body, in order. */
  bodies: string[];
  close: () => Promise<void>;
}

export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: string[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === 'POST' && req.url === '/v1/events') bodies.push(body.toString('utf8'));
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection')) as Record<
      string,
      string
    >;
    const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}
