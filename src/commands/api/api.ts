/**
 * svc api METHOD PATH: a raw authenticated request, like `gh api`. Prints the response body on
 * stdout (pretty JSON on a terminal), with -i the status line and headers first. Exit 0 on 2xx/3xx;
 * on 4xx/5xx the body is still printed, the error goes to stderr like every command's (one line, or
 * the error JSON with --json), and the exit code is 3 for authentication failures (401,
 * insufficient_scope) and 1 otherwise.
 */

import { ApiError } from '../../client/errors.js';
import { parseErrorBody } from '../../client/response.js';
import type { ApiResult } from '../../client/types.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatLimit, isAbortError, ReadLimitError, readOptionInput, SERVICE_BODY_LIMIT } from '../../util/read-capped.js';
import { PropError, parseProps } from '../props.js';
import { paginate } from './paginate.js';

export interface ApiOptions {
  field?: string[];
  rawField?: string[];
  header?: string[];
  input?: string;
  include?: boolean;
  paginate?: boolean;
  ndjson?: boolean;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const QUERY_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

export async function run(args: string[], opts: ApiOptions, ctx: Context): Promise<number> {
  const { method, path } = parseTarget(args, opts);
  const headers = parseHeaders(opts.header ?? []);
  const { query, body } = fieldsRequest(method, opts);
  const rawBody = opts.input !== undefined ? await readInput(ctx, opts.input) : undefined;

  const client = await ctx.client();
  if (opts.paginate || opts.ndjson) {
    return paginate(ctx, client, {
      path,
      query,
      headers: Object.keys(headers).length ? headers : undefined,
      all: opts.paginate === true,
      ndjson: opts.ndjson === true,
    });
  }
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
  // The body is on stdout as it came; the error goes to stderr the contract's way (JSON with
  // --json), with the exit code of the one table in main.ts (3 for authentication, else 1).
  const text = typeof res.body === 'string' ? res.body : '';
  throw new ApiError({ ...parseErrorBody(res.status, res.body, text, res.headers), method, path: path.split('?')[0] });
}

/** METHOD and PATH checked (a known method, a path relative to the base URL) and against --paginate/-i. */
function parseTarget(args: string[], opts: ApiOptions): { method: string; path: string } {
  const method = (args[0] ?? '').toUpperCase();
  // `v1/contacts` as gh takes `repos/…`: the path is relative to the base URL either way.
  const given = args[1] ?? '';
  const path = given.startsWith('/') ? given : `/${given}`;
  if (!METHODS.has(method)) throw new UsageError(`unknown HTTP method ${JSON.stringify(args[0])}`, `use one of ${[...METHODS].join(', ')}`);
  if (given === '' || /^[a-z][a-z0-9+.-]*:/i.test(given) || given.startsWith('//'))
    throw new UsageError(
      `the path must be relative to the base URL, got ${JSON.stringify(given)}`,
      'for example: svc api GET /v1/contacts?limit=5',
    );
  if (opts.paginate && method !== 'GET') throw new UsageError('--paginate follows the pages of a GET listing', `not ${method}`);
  if (opts.paginate && opts.include)
    throw new UsageError('--include cannot be combined with --paginate', 'each page has its own headers: request one page with -i');
  return { method, path };
}

/** -H "Name: value" lines → headers by lower-case name. */
function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of lines) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`-H ${JSON.stringify(h)} is not "Name: value"`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  return headers;
}

/** -F/-f fields: the query of a GET, HEAD, DELETE or OPTIONS; the JSON body of the others. */
function fieldsRequest(method: string, opts: ApiOptions): { query?: Record<string, string[]>; body?: unknown } {
  const fields = [...(opts.field ?? []), ...(opts.rawField ?? [])];
  if (opts.input !== undefined && fields.length && !QUERY_METHODS.has(method)) {
    throw new UsageError('--input and -F/-f fields both give a body; use one of them');
  }
  if (!fields.length) return {};
  if (QUERY_METHODS.has(method)) return { query: fieldsQuery(fields) };
  try {
    // -f key=value (gh's --raw-field) is always a string: key:="value" for the typed parser.
    return { body: parseProps([...(opts.field ?? []), ...(opts.rawField ?? []).map(rawFieldAsTyped)]) };
  } catch (e) {
    if (e instanceof PropError) throw new UsageError(e.message.replace(/--prop/g, '-F/-f'));
    throw e;
  }
}

function fieldsQuery(fields: string[]): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const f of fields) {
    const i = f.indexOf('=');
    if (i <= 0) throw new UsageError(`-F/-f ${JSON.stringify(f)} is not key=value`);
    const k = f.slice(0, i);
    query[k] = [...(query[k] ?? []), f.slice(i + 1)];
  }
  return query;
}

/** The --input body (a file, or - for stdin), refused when over the service's body limit. */
async function readInput(ctx: Context, input: string): Promise<string> {
  try {
    const bytes = await readOptionInput(input, ctx.io.stdin, SERVICE_BODY_LIMIT, ctx.signal);
    return bytes.toString('utf8');
  } catch (e) {
    if (isAbortError(e)) throw e;
    if (e instanceof ReadLimitError)
      throw new UsageError(
        `--input ${input} is larger than ${formatLimit(e.limit)}, the service's body limit: it would be refused (413 payload_too_large)`,
      );
    throw new UsageError(`cannot read --input ${input}: ${(e as Error).message}`);
  }
}

/** `key=value` → `key:="value"` (the key keeps its escapes; the first unescaped `=` ends it). */
function rawFieldAsTyped(field: string): string {
  for (let i = 0; i < field.length; i++) {
    if (field[i] === '\\') i++;
    else if (field[i] === '=') {
      if (i === 0) break;
      return `${field.slice(0, i)}:=${JSON.stringify(field.slice(i + 1))}`;
    }
  }
  throw new UsageError(`-f ${JSON.stringify(field)} is not key=value`);
}

function printResponse(ctx: Context, res: ApiResult<unknown>, include: boolean): void {
  if (include) ctx.out.stdout(`${statusAndHeaders(res)}\n`);
  if (res.body === undefined) return;
  if (typeof res.body === 'string') ctx.out.stdout(res.body.endsWith('\n') ? res.body : `${res.body}\n`);
  else ctx.out.stdout(`${ctx.io.stdoutIsTTY ? JSON.stringify(res.body, null, 2) : JSON.stringify(res.body)}\n`);
}

/** -i: the status line and one line per header value. */
function statusAndHeaders(res: ApiResult<unknown>): string {
  let head = `HTTP/1.1 ${res.status}\n`;
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) head += `${k}: ${one}\n`;
  }
  return head;
}
