import type { Readable } from 'node:stream';

/** Reads a stream (stdin, a file) to its end, as bytes. */
export async function readAllBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Reads a stream (stdin, a file) to its end as UTF-8. */
export async function readAll(stream: Readable): Promise<string> {
  return (await readAllBytes(stream)).toString('utf8');
}
