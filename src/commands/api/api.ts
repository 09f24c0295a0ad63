/**
 * svc api METHOD PATH: a raw authenticated request, like `gh api`. Prints the response body on
 * stdout (pretty JSON on a terminal), with -i the status line and headers first. Exit 0 on 2xx/3xx;
 * on 4xx/5xx the body is still printed, a one-line error goes to stderr, and the exit code is 3 for
 * authentication failures (401, insufficient_scope) and 1 otherwise.
 */
import { readFileSync } from 'node:fs';
import type { ApiResult } from '../../client/types.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { PropError, parseProps } from '../../events/props.js';
import { readAll } from '../auth/shared.js';

export interface ApiOptions {
  field?: string[];
  header?: string[];
  input?: string;
  include?: boolean;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export async function run(args: string[], opts: ApiOptions, ctx: Context): Promise<number> {
  const method = (args[0] ?? '').toUpperCase();
  const path = args[1] ?? '';
  if (!METHODS.has(method)) throw new UsageError(`unknown HTTP method ${JSON.stringify(args[0])}`, `use one of ${[...METHODS].join(', ')}`);
  if (!path.startsWith('/'))
    throw new UsageError(`the path must start with "/", got ${JSON.stringify(path)}`, 'for example: svc api GET /v1/contacts?limit=5');

  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`-H ${JSON.stringify(h)} is not "Name: value"`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }

  const fields = opts.field ?? [];
  if (opts.input !== undefined && fields.length && !QUERY_METHODS.has(method)) {
    throw new UsageError('--input and -F/--field both give a body; use one of them');
  }
  let query: Record<string, string[]> | undefined;
  let body: unknown;
  let rawBody: string | undefined;
  if (fields.length) {
    if (QUERY_METHODS.has(method)) {
      query = {};
      for (const f of fields) {
        const i = f.indexOf('=');
        if (i <= 0) throw new UsageError(`-F ${JSON.stringify(f)} is not key=value`);
        const k = f.slice(0, i);
        query[k] = [...(query[k] ?? []), f.slice(i + 1)];
      }
    } else {
      try {
        body = parseProps(fields);
      } catch (e) {
        if (e instanceof PropError) throw new UsageError(e.message.replace(/--prop/g, '-F'));
        throw e;
      }
    }
  }
  if (opts.input !== undefined) {
    try {
      rawBody = opts.input === '-' ? await readAll(ctx.io.stdin) : readFileSync(opts.input, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read --input ${opts.input}: ${(e as Error).message}`);
    }
  }

  const client = await ctx.client();
  const res = await client.request({
    method,
    path,
    query,
    body,
    rawBody,
    contentType: rawBody !== undefined ? (headers['content-type'] ?? 'application/json') : undefined,
    headers: Object.keys(headers).length ? headers : undefined,
    signal: ctx.signal,
  });
  printResponse(ctx, res, opts.include === true);
  if (res.status < 400) return 0;
  const err = (res.body as { error?: unknown } | undefined)?.error;
  const code = typeof err === 'string' ? err : typeof err === 'object' && err ? (err as { code?: string }).code : undefined;
  const message = typeof err === 'object' && err ? (err as { message?: string }).message : undefined;
  ctx.io.stderr.write(`error: ${method} ${path} answered HTTP ${res.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}\n`);
  return res.status === 401 || code === 'insufficient_scope' ? 3 : 1;
}

function printResponse(ctx: Context, res: ApiResult<unknown>, include: boolean): void {
  if (include) {
    let head = `HTTP/1.1 ${res.status}\n`;
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) head += `${k}: ${one}\n`;
    }
    ctx.out.stdout(`${head}\n`);
  }
  if (res.body === undefined) return;
  if (typeof res.body === 'string') ctx.out.stdout(res.body.endsWith('\n') ? res.body : `${res.body}\n`);
  else ctx.out.stdout(`${ctx.io.stdoutIsTTY ? JSON.stringify(res.body, null, 2) : JSON.stringify(res.body)}\n`);
}
