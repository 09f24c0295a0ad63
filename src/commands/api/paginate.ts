/**
 * `svc api --paginate` (and `--ndjson`): the items of a GET listing, every page followed as
 * `gh api --paginate` does, printed as one JSON array (streamed: one page in memory at a time) or
 * one item a line with --ndjson. A page's next cursor (`next_cursor`, `next`, a `Link: rel="next"`,
 * …: what the client's listings read) is sent as `cursor`, or followed when it is a URL; a cursor
 * seen before ends the walk (a service looping on its last page).
 */
import { ApiError } from '../../client/errors.js';
import { extractList, extractNextCursor, isCursorUrl, parseErrorBody } from '../../client/response.js';
import type { ApiClient, ApiResult } from '../../client/types.js';
import type { Context } from '../../context.js';
import { Interrupted, UsageError } from '../../errors.js';

export interface PaginateRequest {
  path: string;
  query: Record<string, string[]> | undefined;
  headers: Record<string, string> | undefined;
  /** Every page (--paginate); otherwise the first page only (--ndjson alone). */
  all: boolean;
  ndjson: boolean;
}

export async function paginate(ctx: Context, client: ApiClient, req: PaginateRequest): Promise<number> {
  const out = itemWriter(ctx, req.ndjson);
  const seen = new Set<string>();
  let at: PageAt = { path: req.path, query: req.query };
  for (let page = 1; ; page++) {
    if (ctx.signal.aborted) throw new Interrupted(`interrupted after ${page - 1} page(s)`);
    const res: ApiResult<unknown> = await client.request({ method: 'GET', ...at, headers: req.headers, signal: ctx.signal });
    if (res.status >= 400) {
      out.abandon();
      throw pageError(ctx, res, at.path);
    }
    const items = extractList<unknown>(res.body);
    if (items === undefined) {
      throw new UsageError(
        `${req.path.split('?')[0]} did not answer a listing (page ${page}): --paginate and --ndjson need a list path`,
        'for example: svc api GET /v1/contacts --paginate',
      );
    }
    for (const item of items) out.write(item);
    const next = extractNextCursor(res.body, res.headers);
    if (!req.all || !next || seen.has(next)) break;
    seen.add(next);
    at = nextPage(at, next);
  }
  out.end();
  ctx.log.debug(`api --paginate: ${out.count()} item(s)`);
  return 0;
}

interface PageAt {
  path: string;
  query: Record<string, string[]> | undefined;
}

/** Where the next page is: a next link followed as given, else the cursor sent as `cursor`. */
function nextPage(at: PageAt, next: string): PageAt {
  // A next link carries its own query (the filters included): follow it as given.
  if (isCursorUrl(next)) return { path: next, query: undefined };
  return { path: withoutParam(at.path, 'cursor'), query: { ...(at.query ?? {}), cursor: [next] } };
}

/** A failed page: its body printed as it came, and the error to throw. */
function pageError(ctx: Context, res: ApiResult<unknown>, path: string): ApiError {
  const text = typeof res.body === 'string' ? res.body : '';
  if (res.body !== undefined) ctx.out.stdout(`${text || JSON.stringify(res.body)}\n`);
  return new ApiError({ ...parseErrorBody(res.status, res.body, text, res.headers), method: 'GET', path: path.split('?')[0] });
}

/** Prints the items one a line (--ndjson) or as one JSON array opened with the first item. */
function itemWriter(ctx: Context, ndjson: boolean) {
  const pretty = ctx.io.stdoutIsTTY && !ndjson;
  let count = 0;
  let opened = false;
  return {
    write(item: unknown): void {
      count++;
      if (ndjson) {
        ctx.out.stdout(`${JSON.stringify(item)}\n`);
        return;
      }
      const json = pretty ? JSON.stringify(item, null, 2).replace(/\n/g, '\n  ') : JSON.stringify(item);
      ctx.out.stdout(`${opened ? ',' : '['}${pretty ? '\n  ' : ''}${json}`);
      opened = true;
    },
    /** Before a failed page's body: the array so far ends its line, still without its `]`. */
    abandon(): void {
      if (opened && !ndjson) ctx.out.stdout('\n');
    },
    // The closing `]` only after the last page: a walk that fails mid-way leaves an array without
    // its end, so no script mistakes a failure for a short list.
    end(): void {
      if (!ndjson) ctx.out.stdout(opened ? `${pretty ? '\n' : ''}]\n` : '[]\n');
    },
    count: () => count,
  };
}

/** The path without one query parameter (a cursor given in the path is replaced by the next one). */
function withoutParam(path: string, name: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const params = new URLSearchParams(path.slice(q + 1));
  params.delete(name);
  const rest = params.toString();
  return `${path.slice(0, q)}${rest ? `?${rest}` : ''}`;
}
