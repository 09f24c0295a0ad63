/**
 * svc contacts list: filters checked before sending, pages streamed to the printer one at a time
 * (never more than one page held), --limit stops after N, --all walks every page.
 */

import { once } from 'node:events';
import { CursorGuard } from '../../client/contacts.js';
import type { ContactPageResult } from '../../client/types.js';
import type { Context } from '../../context.js';
import type { ContactListFilter } from '../../contract/types.js';
import { Interrupted, UsageError } from '../../errors.js';
import { parseFields, pickFields } from '../../io/fields.js';
import type { OutputFormat } from '../../io/output.js';
import {
  CONTACT_FIELDS,
  CONTACT_TSV_COLUMNS,
  contactFieldColumns,
  contactTableColumns,
  parseEmail,
  parseEmailConsentFilter,
  parsePhone,
  parseSmsConsentFilter,
  parseUpdatedSince,
} from './shared.js';

export interface ListOptions {
  emailConsent?: string;
  smsConsent?: string;
  email?: string;
  phone?: string;
  updatedSince?: string;
  limit?: number;
  all?: boolean;
  pageSize?: number;
  format?: OutputFormat;
  defaultCountry?: string;
  fields?: string;
}

/** One page when neither --limit nor --all is given (the service's default page size). */
export const DEFAULT_LIMIT = 50;
export const MAX_PAGE_SIZE = 250;

/** Checks every filter and turns the options into the query; exits 2 on any bad value. */
export async function parseListOptions(
  ctx: Context,
  opts: ListOptions,
): Promise<{ filter: ContactListFilter; limit: number | undefined; pageSize: number }> {
  if (opts.all && opts.limit !== undefined)
    throw new UsageError('--limit and --all cannot be used together', 'use --all for every contact, or --limit N for the first N');
  if (opts.pageSize !== undefined && opts.pageSize > MAX_PAGE_SIZE)
    throw new UsageError(`--page-size must be between 1 and ${MAX_PAGE_SIZE}`);
  const filter: ContactListFilter = {};
  const email = parseEmailConsentFilter(opts.emailConsent);
  if (email) filter.email_consent = email;
  const sms = parseSmsConsentFilter(opts.smsConsent);
  if (sms) filter.sms_consent = sms;
  if (opts.email !== undefined) filter.email = parseEmail('--email', opts.email).toLowerCase();
  if (opts.phone !== undefined) filter.phone = await parsePhone(ctx, '--phone', opts.phone, opts.defaultCountry);
  const since = parseUpdatedSince(opts.updatedSince);
  if (since) filter.updated_since = since;
  const limit = opts.all ? undefined : (opts.limit ?? DEFAULT_LIMIT);
  const pageSize = opts.pageSize ?? Math.min(limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  return { filter, limit, pageSize };
}

export async function run(_args: string[], opts: ListOptions, ctx: Context): Promise<number> {
  const fields = opts.fields === undefined ? undefined : parseFields(opts.fields, CONTACT_FIELDS);
  const { filter, limit, pageSize } = await parseListOptions(ctx, opts);
  const format: OutputFormat = opts.format ?? ctx.out.defaultFormat(ctx.settings.json);
  const client = await ctx.client();
  await client.ensureScope('listContacts');

  const shown = format === 'tsv' ? (fields ? contactFieldColumns(fields) : CONTACT_TSV_COLUMNS) : contactTableColumns(ctx.now(), fields);
  const writer = await ctx.out.list(format, shown, contactFieldColumns(fields), fields ? (c) => pickFields(c, fields) : undefined);
  const more = await writePages(ctx, client, writer, filter, limit, pageSize);
  writer.end();
  // The closing notes follow the table: with a pager they would otherwise reach the terminal
  // (stderr) before the rows the pager is still showing, so they wait until it is left.
  await ctx.stopPager();

  if (format === 'table') printTableNote(ctx, writer.count, more && limit !== undefined);
  return 0;
}

type ContactWriter = Awaited<ReturnType<Context['out']['list']>>;

/**
 * Writes the pages until the limit or the last page; true when more contacts match than were shown.
 * writer.end() (the closing `]`, or the CSV header of an empty list) is left to the caller, after
 * the last page: a list that fails leaves nothing on stdout before its first page, and after it a
 * JSON array without its end, so no script mistakes a failure for a short or empty result.
 */
async function writePages(
  ctx: Context,
  client: Awaited<ReturnType<Context['client']>>,
  writer: ContactWriter,
  filter: ContactListFilter,
  limit: number | undefined,
  pageSize: number,
): Promise<boolean> {
  let cursor: string | undefined;
  let more = false;
  // A cursor given twice would list the same pages forever: an error (the listing is incomplete).
  const cursors = new CursorGuard();
  for (;;) {
    if (ctx.signal.aborted) throw new Interrupted('interrupted while listing contacts');
    const { page, rows } = await fetchRows(ctx, client, filter, cursor, pageSize, leftOf(limit, writer.count));
    if (rows.length > 0) {
      // Long output at a terminal goes through the pager, started with the first rows (so a
      // failure before them leaves the terminal as it was).
      ctx.startPager();
      writer.writePage(rows);
    }
    cursor = page.nextCursor ?? undefined;
    more = cursor !== undefined || rows.length < page.data.length || page.invalidCursor !== undefined;
    if (!hasNextPage(page, cursors, writer.count, limit)) break;
    // A slow reader (`| less`, a slow pipe) sets the pace: the next page is fetched only once
    // stdout has taken this one, so memory stays at one page however long the list.
    if (ctx.io.stdout.writableNeedDrain) await once(ctx.io.stdout, 'drain', { signal: ctx.signal });
  }
  return more;
}

function leftOf(limit: number | undefined, count: number): number | undefined {
  return limit === undefined ? undefined : limit - count;
}

/** One page, asking for no more than are left to show, and the rows of it to show. */
async function fetchRows(
  ctx: Context,
  client: Awaited<ReturnType<Context['client']>>,
  filter: ContactListFilter,
  cursor: string | undefined,
  pageSize: number,
  left: number | undefined,
) {
  const limit = left === undefined ? pageSize : Math.min(pageSize, left);
  const page = await client.listContacts({ ...filter, limit, ...(cursor ? { cursor } : {}) }, { signal: ctx.signal });
  return { page, rows: left === undefined ? page.data : page.data.slice(0, left) };
}

/** Whether to fetch another page: not at the limit, and a next cursor that is new and understood. */
function hasNextPage(page: ContactPageResult, cursors: CursorGuard, count: number, limit: number | undefined): boolean {
  if (limit !== undefined && count >= limit) return false;
  // A next page named by a cursor svc does not understand: an error, never a list cut short.
  cursors.checkPage(page, count);
  if (!page.nextCursor) return false;
  cursors.check(page.nextCursor, count);
  return true;
}

function printTableNote(ctx: Context, count: number, cutShort: boolean): void {
  if (count === 0) ctx.out.info('No contacts match.');
  else if (cutShort) {
    ctx.out.info(`Showed the first ${count} contact${count === 1 ? '' : 's'}; more match. Use --all for every one, or --limit N.`);
  }
}
