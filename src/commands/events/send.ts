/**
 * svc events send: one event from flags, or every line of an NDJSON file (--file).
 * Events are not idempotent: nothing here ever resends an event whose fate is unknown.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import type { RetryInfo } from '../../client/types.js';
import type { Context } from '../../context.js';
import { validateEventInput } from '../../contract/events.js';
import type { EventInput } from '../../contract/types.js';
import { CliError, EXIT, Interrupted, PartialFailure, UsageError, ValidationError } from '../../errors.js';
import { type BulkSummary, sendEventLines, sendOne } from '../../events/bulk.js';
import { readLineBatches } from '../../events/ndjson.js';
import type { EventOutcome, LineResult } from '../../events/outcome.js';
import { mergeProperties, PropError, type Properties, parseProps } from '../../events/props.js';
import { openReport, type ReportWriter } from '../../bulk/report.js';
import { sizeYoungGeneration } from '../../util/heap.js';

export interface SendOptions {
  type?: string;
  email?: string;
  phone?: string;
  contactId?: string;
  prop?: string[];
  properties?: string;
  occurredAt?: string;
  eventId?: string;
  file?: string;
  concurrency?: number;
  report?: string;
  unconfirmedOut?: string;
  defaultCountry?: string;
}

export const DEFAULT_CONCURRENCY = 16;
/** The scheduler buffers up to 8 lines per slot: a ceiling keeps memory bounded (the pool has 64 connections anyway). */
export const MAX_CONCURRENCY = 256;

const FIELD_FLAGS: Record<string, string> = {
  event_type: '--type',
  email: '--email',
  phone: '--phone',
  contact_id: '--contact-id',
  properties: '--properties/--prop',
  occurred_at: '--occurred-at',
  event_id: '--event-id',
};

const ACCEPTED_NOTE = 'accepted for processing: the service took the event (HTTP 200); that does not mean a Flow or other automation ran';

export async function run(_args: string[], opts: SendOptions, ctx: Context): Promise<number> {
  const country = await parseCountry(opts.defaultCountry);
  if (opts.concurrency !== undefined && opts.concurrency > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency must be at most ${MAX_CONCURRENCY}`, 'more requests in flight than that only queue up');
  }
  if (opts.file !== undefined) return sendFile(opts, ctx, country);
  for (const flag of ['concurrency', 'report', 'unconfirmedOut'] as const) {
    if (opts[flag] !== undefined) throw new UsageError(`--${kebab(flag)} only applies with --file`);
  }
  return sendSingle(opts, ctx, country);
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The phone helpers (libphonenumber, ~100 ms to load) are loaded only when a phone is involved. */
const phoneModule = () => import('../../util/phone.js');

async function parseCountry(value: string | undefined): Promise<CountryCode | undefined> {
  if (value === undefined) return undefined;
  const cc = (await phoneModule()).normalizeCountry(value);
  if (!cc)
    throw new UsageError(`--default-country ${JSON.stringify(value)} is not an ISO 3166 country code`, 'write two letters, e.g. US or GB');
  return cc;
}

/** Reads --properties: inline JSON, @file, or @- for stdin. Must be a JSON object. */
async function readPropertiesOption(value: string, ctx: Context): Promise<Properties> {
  let text = value;
  let where = '--properties';
  if (value.startsWith('@')) {
    const path = value.slice(1);
    where = `--properties ${value}`;
    try {
      text = path === '-' ? await readAll(ctx.io.stdin) : readFileSync(path, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${where}: ${(err as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ValidationError(`${where} is not valid JSON (${(err as Error).message})`, {
      field: 'properties',
      hint: `write a JSON object, e.g. --properties '{"plan":"pro"}', or use --prop key=value`,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError(`${where} must be a JSON object`, { field: 'properties' });
  }
  return parsed as Properties;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Builds and validates the single event from flags; every problem is exit 2 naming its flag. */
async function buildEvent(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<EventInput> {
  if (opts.type === undefined) {
    throw new UsageError(
      '--type is required (or --file to send an NDJSON file)',
      'e.g. svc events send --type signed_up --email ada@example.com',
    );
  }
  if (opts.email === undefined && opts.phone === undefined && opts.contactId === undefined) {
    throw new UsageError('say which contact the event is about: --email, --phone or --contact-id');
  }
  let properties: Properties | undefined;
  if (opts.properties !== undefined) properties = await readPropertiesOption(opts.properties, ctx);
  if (opts.prop?.length) {
    try {
      properties = mergeProperties(properties ?? {}, parseProps(opts.prop));
    } catch (err) {
      if (err instanceof PropError) {
        throw new ValidationError(err.message, {
          field: 'properties',
          hint: 'key=value types numbers, true/false and null; key:=<json> takes raw JSON (key:=\'"007"\' forces a string)',
        });
      }
      throw err;
    }
  }
  let phone = opts.phone;
  if (phone !== undefined) {
    const res = (await phoneModule()).normalizePhone(phone, country);
    if (!res.ok) throw new ValidationError(`--phone ${res.message}`, { field: 'phone' });
    phone = res.e164;
  }
  const body: Record<string, unknown> = { event_type: opts.type };
  if (opts.email !== undefined) body.email = opts.email;
  if (phone !== undefined) body.phone = phone;
  if (opts.contactId !== undefined) body.contact_id = opts.contactId;
  if (properties !== undefined) body.properties = properties;
  if (opts.occurredAt !== undefined) body.occurred_at = opts.occurredAt;
  if (opts.eventId !== undefined) body.event_id = opts.eventId;
  const result = validateEventInput(body);
  if (!result.ok) {
    const first = result.errors[0];
    const message = result.errors.map((e) => `${FIELD_FLAGS[e.field] ?? e.field} ${e.message}`).join('; ');
    throw new ValidationError(message, { field: first?.field });
  }
  return result.value;
}

async function sendSingle(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<number> {
  const event = await buildEvent(opts, ctx, country);
  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  const interrupted = () =>
    new Interrupted(
      'interrupted while sending the event: it may or may not have been accepted',
      'check before sending it again (with the sandbox: svc sandbox outbox --type flow_run)',
    );
  const result = await sendOne(client, event, 1, { signal: ctx.signal, onRetry: (info) => logRetry(ctx, info) }).catch((err) => {
    throw ctx.signal.aborted ? interrupted() : err;
  });
  // sendOne turns the aborted request into a line result; Ctrl-C is exit 130 all the same.
  if (ctx.signal.aborted && result.outcome !== 'accepted') throw interrupted();
  if (result.outcome === 'accepted') {
    if (ctx.settings.json) ctx.out.json({ status: 'accepted', id: result.id });
    else {
      ctx.out.stdout(`${result.id}\n`);
      ctx.out.info(ACCEPTED_NOTE);
    }
    return EXIT.ok;
  }
  throw singleFailure(result);
}

/** The single event did not go through: exit 1, with the HTTP status and request id when there was an answer. */
function singleFailure(result: LineResult): CliError {
  const status = result.status !== undefined ? ` (HTTP ${result.status}${result.requestId ? `, request id ${result.requestId}` : ''})` : '';
  const answer = { status: result.status, requestId: result.requestId };
  if (result.outcome === 'unconfirmed') {
    return new CliError(`the event's fate is unknown${status}: ${result.message ?? ''}`, {
      exitCode: EXIT.failure,
      code: 'unconfirmed',
      hint: 'events are not idempotent: check whether it arrived (with the sandbox: svc sandbox outbox --type flow_run) before sending it again',
      ...answer,
    });
  }
  if (result.outcome === 'failed') {
    return new CliError(`the event was not sent${status}: ${result.message ?? ''}`, {
      exitCode: EXIT.failure,
      code: result.errorCode ?? 'failed',
      hint: 'it was certainly not processed; it is safe to run the command again',
      ...answer,
    });
  }
  return new CliError(`the service rejected the event${status}: ${result.message ?? ''}`, {
    exitCode: EXIT.failure,
    code: result.errorCode ?? 'rejected',
    ...answer,
  });
}

function logRetry(ctx: Context, info: RetryInfo, line?: number): void {
  const what = info.status !== undefined ? `HTTP ${info.status}` : (info.error ?? 'error');
  ctx.log.debug(`${line !== undefined ? `line ${line}: ` : ''}retrying ${info.method} ${info.path} after ${what} in ${info.delayMs} ms`);
}

/** The report's second column: the accepted event's id (`ev_…`), empty for other outcomes. */
const REPORT_ID_COLUMN = 'id';

/** How many problem lines the human output lists on stderr before pointing at --report. */
const MAX_LISTED = 20;

async function openInput(path: string, ctx: Context): Promise<Readable> {
  if (path === '-') {
    if (ctx.io.stdinIsTTY) ctx.out.info('reading NDJSON events from the terminal, one per line; end with Ctrl-D');
    return ctx.io.stdin;
  }
  try {
    const handle = await open(path, 'r');
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      await handle.close();
      throw new UsageError(`--file ${path} is a folder, not an NDJSON file`);
    }
    return handle.createReadStream({ autoClose: true, highWaterMark: 256 * 1024 });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read --file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function openOutput(path: string, flag: string): Promise<WriteStream> {
  return new Promise((resolve, reject) => {
    const stream = createWriteStream(path, { flags: 'w' });
    stream.once('open', () => resolve(stream));
    stream.once('error', (err) =>
      reject(new UsageError(`cannot write ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? err.message}`)),
    );
  });
}

function closeOutput(stream: WriteStream | undefined): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

async function sendFile(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<number> {
  const conflicting = (['type', 'email', 'phone', 'contactId', 'prop', 'properties', 'occurredAt', 'eventId'] as const).filter(
    (k) => opts[k] !== undefined,
  );
  if (conflicting.length > 0) {
    throw new UsageError(
      `--file cannot be combined with ${conflicting.map((k) => `--${kebab(k)}`).join(', ')}`,
      'each NDJSON line carries its own event_type, contact and properties',
    );
  }
  const file = opts.file as string;
  const input = await openInput(file, ctx);
  const unconfirmedOut = opts.unconfirmedOut ? await openOutput(opts.unconfirmedOut, '--unconfirmed-out') : undefined;
  let report: ReportWriter<EventOutcome> | undefined;
  if (opts.report) {
    try {
      report = openReport<EventOutcome>(opts.report, { idColumn: REPORT_ID_COLUMN });
    } catch (err) {
      throw new UsageError(`cannot write --report ${opts.report}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }

  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  // A bulk run allocates fast and keeps little: fewer scavenges with a larger new space (util/heap.ts).
  sizeYoungGeneration();
  const spinner = await ctx.spinner('Sending events…');
  const human = !ctx.settings.json;
  let listed = 0;
  let unlisted = 0;
  let done = 0;
  let summary: BulkSummary | undefined;
  try {
    summary = await sendEventLines({
      client,
      lines: readLineBatches(input),
      concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
      defaultCountry: country,
      signal: ctx.signal,
      onRetry: (info, line) => logRetry(ctx, info, line),
      onResult(result, raw, seq) {
        done++;
        if (done % 100 === 0) spinner.update(`Sending events… ${done} done`);
        report?.add({
          seq,
          line: result.line,
          id: result.id ?? '',
          outcome: result.outcome,
          status: result.status,
          errorCode: result.errorCode,
          message: result.message,
        });
        if (result.outcome === 'unconfirmed') unconfirmedOut?.write(`${raw.text}\n`);
        if (human && result.outcome !== 'accepted') {
          if (listed < MAX_LISTED) {
            listed++;
            const status = result.status !== undefined ? ` (HTTP ${result.status})` : '';
            ctx.out.warn(`line ${result.line}: ${result.outcome}${status}: ${result.message ?? result.errorCode ?? ''}`);
          } else unlisted++;
        }
      },
    });
  } finally {
    // After Ctrl-C or a stop, a read may still wait for input (a terminal, a slow pipe): release it,
    // or the process would not exit.
    if (!input.readableEnded) input.destroy();
    spinner.stop();
    report?.close({ complete: summary !== undefined && !summary.interrupted });
    await closeOutput(unconfirmedOut);
  }

  // Stopped by the credentials before anything could have been stored: a plain credential error
  // (the whole input can be sent again as it is once they are fixed).
  if (summary.stoppedBy !== undefined && summary.accepted + summary.unconfirmed === 0) throw summary.stoppedBy;
  printSummary(ctx, summary, opts, file, unlisted);
  if (summary.stoppedBy !== undefined) {
    // The credentials stopped working mid-run: the summary above says what was sent; say how to
    // send the rest once they are fixed, then fail with the credential error itself (exit 3).
    if (!ctx.settings.json) ctx.out.warn(`stopped after line ${summary.lastLine}: ${restHint(summary, file)}`);
    throw summary.stoppedBy;
  }
  if (summary.interrupted) {
    throw new Interrupted(
      `interrupted after line ${summary.lastLine}: the events up to it are settled (see the summary); later lines were not sent`,
      file !== '-' ? `to send the rest: tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -` : undefined,
    );
  }
  if (summary.rejected > 0 || summary.failed > 0) {
    throw new PartialFailure(
      `${summary.rejected} line(s) rejected and ${summary.failed} failed out of ${summary.rows}${opts.report ? `; see ${opts.report}` : ' (rerun with --report FILE for every line)'}`,
    );
  }
  return EXIT.ok;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** After a stop for bad credentials: the lines to send again once they are fixed. */
function restHint(summary: BulkSummary, file: string): string {
  const failed = summary.failedLines.length;
  const what = `lines after ${summary.lastLine} were not sent${failed > 0 ? `, and ${failed} line(s) failed unprocessed (listed as failed)` : ''}`;
  if (file === '-')
    return `${what}; once the credentials are fixed, send those again (not the whole input: the accepted events would be stored twice)`;
  const script = [...summary.failedLines.slice(0, 50).map((n) => `${n}p`), `${summary.lastLine + 1},$p`].join(';');
  const exact = summary.failedLines.length <= 50;
  return exact
    ? `${what}; once the credentials are fixed, send just those: sed -n '${script}' ${shellQuote(file)} | svc events send --file -`
    : `${what}; once the credentials are fixed, send the failed lines of the report and the rest: tail -n +${summary.lastLine + 1} ${shellQuote(file)} | svc events send --file -`;
}

/** How to resend just the unconfirmed lines, once the user has checked they did not arrive. */
function resendHint(summary: BulkSummary, opts: SendOptions, file: string): string {
  if (opts.unconfirmedOut) {
    return `they are in ${opts.unconfirmedOut}; once you have checked they were not stored, resend just those: svc events send --file ${shellQuote(opts.unconfirmedOut)}`;
  }
  if (file !== '-' && summary.unconfirmedLines.length <= 50) {
    const script = summary.unconfirmedLines.map((n) => `${n}p`).join(';');
    return `once you have checked they were not stored, resend just those: sed -n '${script}' ${shellQuote(file)} | svc events send --file -`;
  }
  return 'rerun with --unconfirmed-out FILE next time to collect them; the --report lists them with outcome "unconfirmed"';
}

function printSummary(ctx: Context, summary: BulkSummary, opts: SendOptions, file: string, unlisted: number): void {
  const counts = {
    rows: summary.rows,
    accepted: summary.accepted,
    rejected: summary.rejected,
    failed: summary.failed,
    unconfirmed: summary.unconfirmed,
  };
  if (ctx.settings.json) {
    const doc: Record<string, unknown> = {
      ...counts,
      unconfirmed_lines: summary.unconfirmedLines,
      rejected_lines: summary.rejectedLines,
      failed_lines: summary.failedLines,
    };
    if (summary.unconfirmed > 0) doc.resend_hint = resendHint(summary, opts, file);
    if (opts.report) doc.report = opts.report;
    if (opts.unconfirmedOut) doc.unconfirmed_out = opts.unconfirmedOut;
    if (summary.interrupted) doc.interrupted_after_line = summary.lastLine;
    if (summary.stoppedBy !== undefined) {
      doc.stopped_after_line = summary.lastLine;
      doc.rest_hint = restHint(summary, file);
    }
    ctx.out.json(doc);
    return;
  }
  if (unlisted > 0) ctx.out.warn(`… and ${unlisted} more line(s) not accepted${opts.report ? `: see ${opts.report}` : ''}`);
  const entries = Object.entries(counts) as Array<[string, number]>;
  if (ctx.policy.humanStdout) ctx.out.record(entries);
  else ctx.out.stdout(entries.map(([k, v]) => `${k}\t${v}`).join('\n') + '\n');
  if (summary.unconfirmed > 0) {
    const shown = summary.unconfirmedLines.slice(0, 50).join(', ');
    const more = summary.unconfirmedLines.length > 50 ? `, … (${summary.unconfirmedLines.length - 50} more)` : '';
    ctx.out.warn(
      `${summary.unconfirmed} event(s) unconfirmed (lines ${shown}${more}): the connection ended or the service answered 5xx after they were sent, so they may or may not have been stored. They were NOT resent.`,
    );
    ctx.out.info(`hint: ${resendHint(summary, opts, file)}`);
  }
  if (summary.accepted > 0) ctx.out.info(`note: ${ACCEPTED_NOTE}`);
}
