/**
 * The contacts import pipeline: CSV items → contact writes (contact-mapping.ts) → scheduler (key
 * affinity on the person: the row's email and its phone) → POST /v1/contacts, and on 409 the
 * `--if-exists` answer (PATCH `error.id`, skip, or reject) → outcome → summary, report (input
 * order) and journal. Prints nothing: the command reads `progress` and the result.
 *
 * Sending a contact again is harmless (the service answers 409 to a duplicate, and a PATCH writes
 * the same values), so its requests are retried after an ambiguous answer (client `repeatable`);
 * a row whose earlier attempt may have created the contact and that then meets it (409) is
 * `unconfirmed`, never `created`.
 */

import { ApiError, statusKind } from '../../client/errors.js';
import type { ApiClient, CallOptions } from '../../client/types.js';
import type { Contact, ContactWrite } from '../../contract/types.js';
import { type ContactLayout, type ContactRowOptions, readContactRow } from '../../importer/contact-mapping.js';
import { isFatalForRun } from '../classify.js';
import { dryRunRows } from '../dry-run.js';
import type { Outcome, RowResult, Summary } from '../outcome.js';
import type { RejectsWriter } from '../rejects.js';
import type { ReportWriter } from '../report.js';
import { type BulkProgress, type BulkRunResult, createBulkRun, type RunWiring, type SendContext, type WorkItem, wiringOf } from '../run.js';
import type { CsvItem, CsvSource } from '../sources/csv-source.js';
import { classifyUpsertError } from './row-error.js';

export const CONTACT_REPORT_COLUMNS = ['email', 'phone', 'contact_id'] as const;
export const DEFAULT_CONCURRENCY = 16;

export type IfExists = 'update' | 'skip' | 'fail';

/** Marks a row can carry (RowResult.marks), counted in the summary beside the outcomes. */
export const SMS_SUBSCRIBED = 'sms_subscribed';
export const WELCOME_SMS = 'welcome_sms';
/** The row wrote SMS `subscribed` but whether the contact moved into it cannot be told. */
export const SMS_UNKNOWN = 'sms_unknown';

export interface ContactWork extends WorkItem {
  write?: ContactWrite;
  email: string;
  phone: string;
  /** Channels whose "no" wrote nothing (contact-mapping.ts): only the plan reads them. */
  noKept?: Array<'email' | 'sms'>;
  /** personKeys' answer, worked out once (the scheduler asks for a row's keys several times). */
  keys?: string | readonly string[];
}

/** The contacts summary: the outcomes, and the SMS transitions and welcome SMS the import caused. */
export interface ContactSummary extends Summary {
  smsSubscribed: number;
  welcomeSms: number;
  smsUnknown: number;
}

/** A row the source could not read: what its cells say of the person, and the source's problem. */
function unreadableWork(
  item: CsvItem & { kind: 'error' },
  seq: number,
  layout: ContactLayout,
  opts: ContactRowOptions,
  keepOriginal: boolean,
): ContactWork {
  const guess = item.cells ? readContactRow(item.cells, layout, opts) : { email: '', phone: '' };
  const work: ContactWork = {
    seq,
    line: item.line,
    lines: 1,
    id: guess.email || guess.phone,
    email: guess.email,
    phone: guess.phone,
    ids: [guess.email, guess.phone, ''],
    problem: { code: item.code, message: item.message },
  };
  if (keepOriginal && item.cells) work.original = { cells: [item.cells] };
  return work;
}

/** A read row as a contact write, or as the mapping's problem with it. */
function rowWork(
  item: CsvItem & { kind: 'row' },
  seq: number,
  layout: ContactLayout,
  opts: ContactRowOptions,
  keepOriginal: boolean,
): ContactWork {
  const row = readContactRow(item.cells, layout, opts);
  const work: ContactWork = { seq, line: item.line, lines: 1, id: row.email || row.phone, email: row.email, phone: row.phone };
  if (keepOriginal) work.original = { cells: [item.cells] };
  if (row.write) {
    work.write = row.write;
    if (row.noKept) work.noKept = row.noKept;
  } else {
    work.problem = row.problem;
    work.ids = [row.email, row.phone, ''];
  }
  return work;
}

/** The rows of a CSV source as contact writes, a batch at a time. */
export async function* readContactBatches(
  source: CsvSource,
  layout: ContactLayout,
  opts: ContactRowOptions,
  /** Keep each row's original cells (WorkItem.original) for a rejects file. */
  keepOriginal = false,
): AsyncGenerator<ContactWork[]> {
  let seq = 0;
  for await (const batch of source.batches as AsyncIterable<CsvItem[]>) {
    const out: ContactWork[] = [];
    for (const item of batch) {
      out.push(
        item.kind === 'error' ? unreadableWork(item, ++seq, layout, opts, keepOriginal) : rowWork(item, ++seq, layout, opts, keepOriginal),
      );
    }
    if (out.length > 0) yield out;
  }
}

/**
 * Affinity keys: the person's e-mail and phone (two rows sharing either never run together). One
 * key is a string, two an array; worked out once per row and kept on it.
 */
export function personKeys(w: ContactWork): string | readonly string[] {
  if (w.keys === undefined) {
    const email = w.write?.email ? `e:${w.write.email}` : undefined;
    const phone = w.write?.phone ? `p:${w.write.phone}` : undefined;
    w.keys = email !== undefined && phone !== undefined ? [email, phone] : (email ?? phone ?? []);
  }
  return w.keys;
}

/** The run's wiring (RunWiring: signal, outputs, journal, --max-outage) and what contacts need. */
export interface ContactImportOptions extends RunWiring {
  rows: AsyncIterable<ContactWork[]>;
  bytesRead(): number;
  client: ApiClient;
  ifExists: IfExists;
  welcomeSms: boolean;
  concurrency: number;
}

export interface ContactImportProgress extends BulkProgress {
  summary: ContactSummary;
  bytesRead(): number;
}

/** The marks of a row that moved nobody's SMS consent: one shared empty list. */
const NO_MARKS: readonly string[] = [];

function result(
  work: ContactWork,
  outcome: Outcome,
  fields: { status?: number; contactId?: string; errorCode?: string; message?: string; errorField?: string; marks?: readonly string[] },
): RowResult<Outcome> {
  const r: RowResult<Outcome> = {
    seq: work.seq,
    line: work.line,
    id: work.id,
    outcome,
    ids: [work.email, work.phone, fields.contactId ?? ''],
  };
  if (fields.status !== undefined) r.status = fields.status;
  if (fields.errorCode !== undefined) r.errorCode = fields.errorCode;
  if (fields.message !== undefined) r.message = fields.message;
  if (fields.errorField !== undefined) r.errorField = fields.errorField;
  if (fields.marks && fields.marks.length > 0) r.marks = [...fields.marks];
  return r;
}

/** What a row's send needs of the run: the client, the answers chosen, and the resumed prefix. */
interface ContactSendContext {
  client: ApiClient;
  ifExists: IfExists;
  welcomeSms: boolean;
  /** Rows up to this seq may have been sent by the interrupted run resumed. */
  maybeSentUpTo: number;
}

const MAY_HAVE_CREATED = 'an earlier attempt ended without an answer and may have created it';

/** The SMS marks of a write that moved (true), did not move (false) or may have moved (undefined) the contact into `subscribed`. */
function smsMarks(write: ContactWrite, moved: boolean | undefined, welcomeSms: boolean): readonly string[] {
  if (write.sms_consent !== 'subscribed' || moved === false) return NO_MARKS;
  if (moved === undefined) return [SMS_UNKNOWN];
  return welcomeSms ? [SMS_SUBSCRIBED, WELCOME_SMS] : [SMS_SUBSCRIBED];
}

/** `--if-exists skip` or `fail` on a contact that exists (409): nothing is written. */
function leaveExisting(work: ContactWork, err: ApiError, ifExists: 'skip' | 'fail', uncertain: boolean): RowResult<Outcome> {
  const id = err.id as string;
  if (uncertain) {
    return result(work, 'unconfirmed', {
      status: 409,
      contactId: id,
      message: `exists (${MAY_HAVE_CREATED}); not changed (--if-exists ${ifExists})`,
    });
  }
  if (ifExists === 'skip') {
    return result(work, 'skipped', { status: 409, contactId: id, message: 'already exists; not changed (--if-exists skip)' });
  }
  return result(work, 'rejected', {
    status: 409,
    contactId: id,
    errorCode: err.code,
    message: `contact ${id} already exists (--if-exists fail)`,
  });
}

/** `--if-exists update` on a contact that exists (409): PATCH it, and tell whether that moved its SMS consent. */
async function updateExisting(
  ctx: ContactSendContext,
  work: ContactWork,
  id: string,
  call: CallOptions,
  uncertain: boolean,
  reach: SendContext['reach'],
): Promise<RowResult<Outcome>> {
  const write = work.write as ContactWrite;
  // The SMS state before the PATCH tells whether it moves the contact into `subscribed`.
  let before: Contact | undefined;
  if (write.sms_consent === 'subscribed') before = await reach(() => ctx.client.getContact(id, call)).catch(() => undefined);
  const patched = await reach(() => ctx.client.patchContact(id, write, call));
  const after = patched.body;
  let moved: boolean | undefined =
    before === undefined ? undefined : before.sms_consent !== 'subscribed' && after.sms_consent === 'subscribed';
  if (uncertain && moved === false) moved = undefined; // the lost first attempt may have made the move
  const marks = smsMarks(write, moved, ctx.welcomeSms);
  if (uncertain)
    return result(work, 'unconfirmed', { status: patched.status, contactId: id, message: `updated; ${MAY_HAVE_CREATED}`, marks });
  return result(work, 'updated', { status: patched.status, contactId: id, marks });
}

/** The service's 2xx to a create: 201 created it; 200 lifted a merchant suppression and applied the values. */
function createdResult(
  ctx: ContactSendContext,
  work: ContactWork,
  created: Awaited<ReturnType<ApiClient['createContact']>>,
  sentBefore: boolean,
  run: SendContext,
): RowResult<Outcome> {
  const write = work.write as ContactWrite;
  // Read from the answer's bytes when it can be (no parse of every answer).
  const contactId = created.stringField?.('id') ?? created.body.id;
  // 201 proves this request created it (a contact created earlier would answer 409).
  if (statusKind(created.status) === 'created')
    return result(work, 'created', { status: 201, contactId, marks: smsMarks(write, true, ctx.welcomeSms) });
  // 200: a merchant-suppressed contact, unsuppressed and updated (open-points), whatever --if-exists says.
  const marks = smsMarks(write, undefined, ctx.welcomeSms);
  if (created.uncertain || sentBefore || run.mayHaveApplied())
    return result(work, 'unconfirmed', {
      status: created.status,
      contactId,
      message: 'answered 200 (a merchant suppression lifted) after an attempt that may have created it',
      marks,
    });
  return result(work, 'updated', {
    status: created.status,
    contactId,
    message: 'merchant suppression lifted and values applied',
    marks,
  });
}

/** Creates one contact, answering a 409 as `--if-exists` says; a row's error becomes its outcome. */
async function sendContact(ctx: ContactSendContext, work: ContactWork, run: SendContext): Promise<RowResult<Outcome>> {
  const call: CallOptions = {
    signal: run.signal,
    onRetry: run.onRetry,
    onRateHeaders: run.onRateHeaders,
    repeatable: true,
    patienceMs: Number.POSITIVE_INFINITY,
  };
  const sentBefore = work.seq <= ctx.maybeSentUpTo;
  try {
    let created: Awaited<ReturnType<ApiClient['createContact']>>;
    try {
      created = await run.reach(() => ctx.client.createContact(work.write as ContactWrite, call));
    } catch (err) {
      if (!(err instanceof ApiError && err.kind === 'conflict' && err.id)) throw err;
      const uncertain = err.uncertain || sentBefore || run.mayHaveApplied();
      if (ctx.ifExists !== 'update') return leaveExisting(work, err, ctx.ifExists, uncertain);
      return await updateExisting(ctx, work, err.id, call, uncertain, run.reach);
    }
    return createdResult(ctx, work, created, sentBefore, run);
  } catch (err) {
    if (run.signal.aborted || isFatalForRun(err)) throw err;
    const { outcome, ...rest } = classifyUpsertError(err);
    return result(work, outcome, { ...rest, contactId: err instanceof ApiError ? err.id : undefined });
  }
}

/** Creates an import run on the bulk engine; `progress` can be read while `run()` works. */
export function createContactImport(opts: ContactImportOptions): { progress: ContactImportProgress; run(): Promise<BulkRunResult> } {
  const ctx: ContactSendContext = {
    client: opts.client,
    ifExists: opts.ifExists,
    welcomeSms: opts.welcomeSms,
    maybeSentUpTo: opts.resume?.maybeSentUpTo ?? 0,
  };
  const counts = { smsSubscribed: 0, welcomeSms: 0, smsUnknown: 0 };
  const send = (work: ContactWork, run: SendContext) => sendContact(ctx, work, run);

  const job = createBulkRun<ContactWork>({
    ...wiringOf(opts),
    rows: opts.rows,
    keyOf: personKeys,
    concurrency: opts.concurrency,
    send,
    tally(r) {
      for (const m of r.marks ?? []) {
        if (m === SMS_SUBSCRIBED) counts.smsSubscribed++;
        else if (m === WELCOME_SMS) counts.welcomeSms++;
        else if (m === SMS_UNKNOWN) counts.smsUnknown++;
      }
    },
  });
  const summary = job.progress.summary as ContactSummary;
  Object.defineProperties(summary, {
    smsSubscribed: { get: () => counts.smsSubscribed, enumerable: true },
    welcomeSms: { get: () => counts.welcomeSms, enumerable: true },
    smsUnknown: { get: () => counts.smsUnknown, enumerable: true },
  });
  const progress = Object.assign(job.progress, { bytesRead: opts.bytesRead }) as ContactImportProgress;
  return { progress, run: job.run };
}

/** The rows of a dry run, and people (e-mail or phone) on more than one line. */
export interface ContactDryRun {
  summary: Summary & { valid: number };
  duplicates: Array<{ person: string; lines: number[] }>;
  rejected: RowResult<Outcome>[];
}

/** Validates every row without sending (bulk/dry-run.ts). Memory grows with the number of distinct people. */
export async function dryRunContacts(
  rows: AsyncIterable<ContactWork[]>,
  report?: ReportWriter<string>,
  rejects?: RejectsWriter,
): Promise<ContactDryRun> {
  const r = await dryRunRows(rows, {
    report,
    rejects,
    keyOf: personKeys,
    wouldSend: (work) => result(work, 'valid' as Outcome, { message: 'would be sent' }),
  });
  const duplicates = r.duplicates.map(({ key, lines }) => ({ person: key.slice(2), lines }));
  return { summary: r.summary, duplicates, rejected: r.rejected };
}
