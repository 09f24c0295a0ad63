/**
 * svc sandbox logs: the request log of a running sandbox (GET /_sandbox/requests), found as
 * `svc sandbox outbox` finds it. Lists the most recent requests (oldest first, like a log tail),
 * one request in full with --request-id (bodies and the refusal explained), or each request as it
 * is answered with --follow (GET /_sandbox/requests/stream).
 */
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { parseSeconds } from '../../store/settings.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';
import { printDetail } from './logs-detail.js';
import { headerLine, layoutFor, requestLines } from './request-layout.js';
import { credentialText, type LoggedRequest } from './request-lines.js';

export interface LogsOptions {
  follow?: boolean;
  status?: string;
  path?: string;
  method?: string;
  credential?: string;
  requestId?: string;
  since?: string;
  kind?: string;
  businessId?: string;
  limit?: string;
  search?: string;
  har?: string;
  ndjson?: boolean;
  curl?: boolean;
}

const KINDS = ['api', 'service', 'token', 'admin', 'all'];
const MAX_LIMIT = 1000;

const pathOf = (e: LoggedRequest) => (e.query ? `${e.path}?${e.query}` : e.path);
const errorText = (e: LoggedRequest) =>
  e.error ? `${e.error.code}: ${e.error.message}` : e.deprecations.length > 0 ? 'deprecated usage' : '';

const COLUMNS: Column<LoggedRequest>[] = [
  { header: 'TIME', get: (e) => e.time, noTruncate: true, priority: 60 },
  { header: 'STATUS', get: (e) => e.status, priority: 100 },
  { header: 'METHOD', get: (e) => e.method, priority: 95 },
  { header: 'PATH', get: (e) => pathOf(e), maxWidth: 48, priority: 90 },
  { header: 'CREDENTIAL', get: (e) => credentialText(e.credential), maxWidth: 32, priority: 50 },
  { header: 'ERROR', get: (e) => errorText(e), maxWidth: 60, priority: 70 },
  { header: 'MS', get: (e) => e.duration_ms, priority: 30 },
  { header: 'REQUEST ID', get: (e) => e.request_id, noTruncate: true, priority: 80 },
];

/** Each filter option: its name in the admin API's query, and its value checked (a usage error when wrong). */
const QUERY_PARAMS: [keyof LogsOptions, string, (value: string, now: number) => string][] = [
  ['status', 'status', statusParam],
  ['path', 'path', pathParam],
  ['method', 'method', (v) => v.toUpperCase()],
  ['credential', 'credential', (v) => v],
  ['requestId', 'request_id', (v) => v],
  ['businessId', 'business_id', (v) => v],
  ['search', 'search', searchParam],
  ['kind', 'kind', kindParam],
  ['since', 'since', sinceParam],
];

/** The admin API's query for the options (validated here so mistakes are usage errors, exit 2). */
export function logQuery(opts: LogsOptions, now: number): URLSearchParams {
  const q = new URLSearchParams();
  for (const [option, param, check] of QUERY_PARAMS) {
    const value = opts[option];
    if (typeof value === 'string') q.set(param, check(value, now));
  }
  return q;
}

function statusParam(status: string): string {
  if (!/^([1-5]xx|[1-5]\d\d)$/i.test(status))
    throw new UsageError(`--status must be a status (401) or a class (4xx), got ${JSON.stringify(status)}`);
  return status.toLowerCase();
}

function pathParam(path: string): string {
  if (!path.startsWith('/')) throw new UsageError(`--path must start with / (a prefix such as /v1/orders), got ${JSON.stringify(path)}`);
  return path;
}

function searchParam(search: string): string {
  if (search.trim() === '') throw new UsageError('--search needs some text: an e-mail, a phone, an id or words of a body');
  return search;
}

function kindParam(kind: string): string {
  if (!KINDS.includes(kind)) throw new UsageError(`--kind must be one of: ${KINDS.join(', ')}; got ${JSON.stringify(kind)}`);
  return kind;
}

/** A duration back from now (10m, 30s) or a date-time, as an ISO time. */
function sinceParam(since: string, now: number): string {
  const relative = /^\d+(\.\d+)?(ms|s|m)?$/i.test(since);
  const ms = relative ? now - parseSeconds(since, '--since') : Date.parse(since);
  if (!Number.isFinite(ms))
    throw new UsageError(`--since must be a duration (10m, 30s) or a date-time (2026-11-26T09:30:00Z), got ${JSON.stringify(since)}`);
  return new Date(ms).toISOString();
}

function checkCombinations(opts: LogsOptions): void {
  if (opts.follow && opts.requestId !== undefined) throw new UsageError('--request-id shows one request; it does not go with --follow');
  if (opts.curl && (opts.requestId === undefined || opts.follow))
    throw new UsageError('--curl prints the curl command of one request: give it with --request-id REQUEST_ID');
  if ((opts.har !== undefined || opts.ndjson) && (opts.follow || opts.requestId !== undefined))
    throw new UsageError('--har and --ndjson export the log (with the filters); they do not go with --follow or --request-id');
  if (opts.har !== undefined && opts.ndjson) throw new UsageError('give --har FILE or --ndjson, not both');
}

interface CurlText {
  curl: string;
  variables: { name: string; for: string }[];
  truncated: boolean;
}

/** The command on stdout (to copy or pipe to sh); which variables to set on stderr. */
function printCurl(ctx: Context, c: CurlText): number {
  ctx.out.stdout(`${c.curl}\n`);
  if (ctx.policy.humanStdout || ctx.io.stderrIsTTY) {
    for (const v of c.variables) ctx.out.info(`set ${v.name} to ${v.for}`);
    if (c.truncated) ctx.out.warn('the logged body was cut at 16 KiB: the command sends the cut body');
  }
  return EXIT.ok;
}

export async function run(_args: string[], opts: LogsOptions, ctx: Context): Promise<number> {
  const limit = parseLimit(opts.limit);
  checkCombinations(opts);
  const query = logQuery(opts, ctx.now());
  const baseUrl = await sandboxBaseUrl(ctx);

  if (opts.har !== undefined || opts.ndjson) {
    const { exportLog } = await import('./logs-export.js');
    return exportLog(ctx, baseUrl, query, opts.har);
  }
  if (opts.requestId !== undefined && [...query.keys()].length === 1) return showOne(ctx, baseUrl, opts.requestId, opts.curl === true);
  if (opts.follow) {
    const { follow } = await import('./logs-follow.js');
    return follow(ctx, baseUrl, query, COLUMNS);
  }
  const rows = await recentRequests(ctx, baseUrl, query, limit);
  if (opts.requestId !== undefined) {
    // --request-id with other filters: the one request if it matches them.
    const e = rows[0];
    if (!e)
      throw new CliError(`request ${opts.requestId} is not in the request log, or does not match the filters`, {
        exitCode: EXIT.failure,
        code: 'not_found',
      });
    printRequest(ctx, e);
    return EXIT.ok;
  }
  await printList(ctx, rows);
  return EXIT.ok;
}

/** --limit: a whole number from 1 to MAX_LIMIT (default 20). */
function parseLimit(limit: string | undefined): number {
  if (limit === undefined) return 20;
  if (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limit)}`);
  return Number(limit);
}

/** --request-id alone: that request in full, or its curl command with --curl. */
async function showOne(ctx: Context, baseUrl: string, requestId: string, curl: boolean): Promise<number> {
  const id = encodeURIComponent(requestId);
  if (curl) return printCurl(ctx, (await adminCall(ctx, baseUrl, 'GET', `/requests/${id}/curl`)) as CurlText);
  printRequest(ctx, (await adminCall(ctx, baseUrl, 'GET', `/requests/${id}`)) as LoggedRequest);
  return EXIT.ok;
}

function printRequest(ctx: Context, e: LoggedRequest): void {
  if (ctx.settings.json) ctx.out.json(e);
  else printDetail(ctx, e);
}

/** The `limit` most recent requests matching the query, oldest first (pages of at most 100). */
async function recentRequests(ctx: Context, baseUrl: string, query: URLSearchParams, limit: number): Promise<LoggedRequest[]> {
  const rows: LoggedRequest[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams(query);
    q.set('limit', String(Math.min(100, limit - rows.length)));
    if (cursor) q.set('cursor', cursor);
    const page = (await adminCall(ctx, baseUrl, 'GET', `/requests?${q}`)) as { data: LoggedRequest[]; next_cursor: string | null };
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor && rows.length < limit);
  return rows.reverse();
}

async function printList(ctx: Context, rows: LoggedRequest[]): Promise<void> {
  const json = ctx.settings.json;
  const format = ctx.out.defaultFormat(json);
  if (rows.length > 0) ctx.startPager();
  if (format === 'table') {
    // A terminal: the layout that keeps each refused request's status, whole path and reason.
    const layout = layoutFor(ctx.io.columns ?? 80);
    if (rows.length > 0) ctx.out.stdout(headerLine(layout));
    for (const e of rows) ctx.out.stdout(`${requestLines(e, layout).join('\n')}\n`);
  } else {
    const writer = await ctx.out.list(format, COLUMNS);
    writer.writePage(rows);
    writer.end();
  }
  if (rows.length === 0 && !json && ctx.policy.humanStdout) ctx.out.info('no requests logged that match');
}
