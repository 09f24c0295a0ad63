/**
 * svc sandbox logs --follow: each request a running sandbox answers, as it is answered, from
 * GET /_sandbox/requests/stream (server-sent events), until interrupted. One line per request
 * (NDJSON with --json). Starts after the newest request already logged.
 */
import { plainStream } from '../../client/plain.js';
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { runProxy } from '../../wiring/client.js';
import { adminCall } from './admin-client.js';
import { adminTokenHeaders } from './admin-token.js';
import { headerLine, layoutFor, requestLines } from './request-layout.js';
import type { LoggedRequest } from './request-lines.js';

/**
 * Prints each request as the list does: on a terminal the same layout (its header first); into a
 * pipe one TSV line per request, the list's columns; NDJSON with --json.
 */
async function printer(ctx: Context, columns: Column<LoggedRequest>[]): Promise<(e: LoggedRequest) => void> {
  if (ctx.settings.json) return (e) => ctx.out.stdout(`${JSON.stringify(e)}\n`);
  if (ctx.out.defaultFormat(false) === 'table') {
    const layout = layoutFor(ctx.io.columns ?? 80);
    ctx.out.stdout(headerLine(layout));
    return (e) => ctx.out.stdout(`${requestLines(e, layout).join('\n')}\n`);
  }
  const writer = await ctx.out.list('tsv', columns);
  return (e) => writer.writePage([e]);
}

export async function follow(ctx: Context, baseUrl: string, query: URLSearchParams, columns: Column<LoggedRequest>[]): Promise<number> {
  const latest = (await adminCall(ctx, baseUrl, 'GET', '/requests?limit=1&kind=all')) as { latest_seq: number };
  const q = new URLSearchParams(query);
  q.set('after', String(latest.latest_seq));
  const res = await openStream(ctx, baseUrl, q);
  if (res === undefined) return EXIT.ok;
  if (!ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('following the request log; Ctrl-C to stop');
  const print = await printer(ctx, columns);
  try {
    for await (const data of eventData(res.body)) print(JSON.parse(data) as LoggedRequest);
  } catch (e) {
    await res.close();
    if (ctx.signal.aborted) return EXIT.ok;
    throw new CliError(`the request stream from ${baseUrl} broke off (${(e as Error).message})`, {
      exitCode: EXIT.failure,
      code: 'stream_closed',
    });
  }
  await res.close();
  if (ctx.signal.aborted) return EXIT.ok;
  throw new CliError(`the sandbox at ${baseUrl} closed the request stream (stopped?)`, { exitCode: EXIT.failure, code: 'stream_closed' });
}

/** The request stream opened (undefined when interrupted first); no answer or a refusal is an error. */
async function openStream(ctx: Context, baseUrl: string, q: URLSearchParams) {
  let res: Awaited<ReturnType<typeof plainStream>>;
  try {
    // The client's transport (undici, the run's proxy; --sandbox direct), as every admin call.
    res = await plainStream({
      method: 'GET',
      url: `${baseUrl}/_sandbox/requests/stream?${q}`,
      headers: { ...(await adminTokenHeaders(ctx, baseUrl)), accept: 'text/event-stream' },
      signal: ctx.signal,
      proxy: ctx.settings.sandbox ? undefined : runProxy(ctx),
    });
  } catch (e) {
    if (ctx.signal.aborted) return undefined;
    throw new CliError(`no sandbox answers at ${baseUrl} (${(e as Error).message})`, {
      exitCode: EXIT.failure,
      code: 'sandbox_unreachable',
    });
  }
  if (res.status < 200 || res.status >= 300) {
    await res.close();
    throw new CliError(`the sandbox at ${baseUrl} answered ${res.status} to the request stream`, {
      exitCode: EXIT.failure,
      code: `http_${res.status}`,
    });
  }
  return res;
}

/** The `data:` of each server-sent event (its lines joined), as the events complete. */
async function* eventData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (data) yield data;
      end = buffered.indexOf('\n\n');
    }
  }
}
