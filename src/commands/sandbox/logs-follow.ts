/**
 * svc sandbox logs --follow: each request a running sandbox answers, as it is answered, from
 * GET /_sandbox/requests/stream (server-sent events), until interrupted. One line per request
 * (NDJSON with --json). Starts after the newest request already logged.
 */
import { plainStream } from '../../client/plain.js';
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { runProxy } from '../../wiring/client.js';
import { adminCall } from './admin-client.js';
import { adminTokenHeaders } from './admin-token.js';
import { type LoggedRequest, logLine } from './request-lines.js';

export async function follow(ctx: Context, baseUrl: string, query: URLSearchParams): Promise<number> {
  const latest = (await adminCall(ctx, baseUrl, 'GET', '/requests?limit=1&kind=all')) as { latest_seq: number };
  const q = new URLSearchParams(query);
  q.set('after', String(latest.latest_seq));
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
    if (ctx.signal.aborted) return EXIT.ok;
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
  if (!ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('following the request log; Ctrl-C to stop');
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const chunk of res.body) {
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
        if (data) {
          const e = JSON.parse(data) as LoggedRequest;
          ctx.out.stdout(ctx.settings.json ? `${JSON.stringify(e)}\n` : logLine(e));
        }
        end = buffered.indexOf('\n\n');
      }
    }
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
