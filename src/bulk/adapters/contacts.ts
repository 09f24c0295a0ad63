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
      if (item.kind === 'error') {
        const guess = item.cells ? readContactRow(item.cells, layout, opts) : { email: '', phone: '' };
        out.push({
          seq: ++seq,
          line: item.line,
          lines: 1,
          id: guess.email || guess.phone,
          email: guess.email,
          phone: guess.phone,
          ids: [guess.email, guess.phone, ''],
          problem: { code: item.code, message: item.message },
          ...(keepOriginal && item.cells ? { original: { cells: [item.cells] } } : {}),
        });
        continue;
      }
      const row = readContactRow(item.cells, layout, opts);
      const work: ContactWork = { seq: ++seq, line: item.line, lines: 1, id: row.email || row.phone, email: row.email, phone: row.phone };
      if (keepOriginal) work.original = { cells: [item.cells] };
      if (row.write) {
        work.write = row.write;
        if (row.noKept) work.noKept = row.noKept;
      } else {
        work.problem = row.problem;
        work.ids = [row.email, row.phone, ''];
      }
      out.push(work);
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

/** Creates an import run on the bulk engine; `progress` can be read while `run()` works. */
export function createContactImport(opts: ContactImportOptions): { progress: ContactImportProgress; run(): Promise<BulkRunResult> } {
  const maybeSentUpTo = opts.resume?.maybeSentUpTo ?? 0;
  const counts = { smsSubscribed: 0, welcomeSms: 0, smsUnknown: 0 };

  /** The SMS marks of a write that moved (true), did not move (false) or may have moved (undefined) the contact into `subscribed`. */
  const smsMarks = (write: ContactWrite, moved: boolean | undefined): readonly string[] => {
    if (write.sms_consent !== 'subscribed' || moved === false) return NO_MARKS;
    if (moved === undefined) return [SMS_UNKNOWN];
    return opts.welcomeSms ? [SMS_SUBSCRIBED, WELCOME_SMS] : [SMS_SUBSCRIBED];
  };

  async function existing(
    work: ContactWork,
    err: ApiError,
    call: CallOptions,
    uncertain: boolean,
    reach: SendContext['reach'],
  ): Promise<RowResult<Outcome>> {
    const id = err.id as string;
    const write = work.write as ContactWrite;
    const why = 'an earlier attempt ended without an answer and may have created it';
    if (opts.ifExists === 'skip') {
      return uncertain
        ? result(work, 'unconfirmed', { status: 409, contactId: id, message: `exists (${why}); not changed (--if-exists skip)` })
        : result(work, 'skipped', { status: 409, contactId: id, message: 'already exists; not changed (--if-exists skip)' });
    }
    if (opts.ifExists === 'fail') {
      return uncertain
        ? result(work, 'unconfirmed', { status: 409, contactId: id, message: `exists (${why}); not changed (--if-exists fail)` })
        : result(work, 'rejected', {
            status: 409,
            contactId: id,
            errorCode: err.code,
            message: `contact ${id} already exists (--if-exists fail)`,
          });
    }
    // The SMS state before the PATCH tells whether it moves the contact into `subscribed`.
    let before: Contact | undefined;
    if (write.sms_consent === 'subscribed') before = await reach(() => opts.client.getContact(id, call)).catch(() => undefined);
    const patched = await reach(() => opts.client.patchContact(id, write, call));
    const after = patched.body;
    let moved: boolean | undefined =
      before === undefined ? undefined : before.sms_consent !== 'subscribed' && after.sms_consent === 'subscribed';
    if (uncertain && moved === false) moved = undefined; // the lost first attempt may have made the move
    const marks = smsMarks(write, moved);
    if (uncertain) return result(work, 'unconfirmed', { status: patched.status, contactId: id, message: `updated; ${why}`, marks });
    return result(work, 'updated', { status: patched.status, contactId: id, marks });
  }

  async function send(work: ContactWork, ctx: SendContext): Promise<RowResult<Outcome>> {
    const call: CallOptions = {
      signal: ctx.signal,
      onRetry: ctx.onRetry,
      onRateHeaders: ctx.onRateHeaders,
      repeatable: true,
      patienceMs: Number.POSITIVE_INFINITY,
    };
    const write = work.write as ContactWrite;
    const sentBefore = work.seq <= maybeSentUpTo;
    try {
      let created: Awaited<ReturnType<ApiClient['createContact']>>;
      try {
        created = await ctx.reach(() => opts.client.createContact(write, call));
      } catch (err) {
        if (err instanceof ApiError && err.kind === 'conflict' && err.id)
          return await existing(work, err, call, err.uncertain || sentBefore || ctx.mayHaveApplied(), ctx.reach);
        throw err;
      }
      // Read from the answer's bytes when it can be (no parse of every answer).
      const contactId = created.stringField?.('id') ?? created.body.id;
      // 201 proves this request created it (a contact created earlier would answer 409).
      if (statusKind(created.status) === 'created')
        return result(work, 'created', { status: 201, contactId, marks: smsMarks(write, true) });
      // 200: a merchant-suppressed contact, unsuppressed and updated (open-points), whatever --if-exists says.
      const marks = smsMarks(write, undefined);
      if (created.uncertain || sentBefore || ctx.mayHaveApplied())
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
    } catch (err) {
      if (ctx.signal.aborted || isFatalForRun(err)) throw err;
      const { outcome, ...rest } = classifyUpsertError(err);
      return result(work, outcome, { ...rest, contactId: err instanceof ApiError ? err.id : undefined });
    }
  }

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
