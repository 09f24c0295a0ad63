/**
 * A bulk job's outputs opened in the order that keeps what exists safe: the journal's lock, the
 * report, the journal (new or resumed), then the rejects file; when one cannot be opened, those
 * already open are closed as they were (an earlier journal kept to resume).
 */
import type { ApiClient } from '../client/types.js';
import type { JobEnv } from './job-env.js';
import { Journal, JournalBusyError, type JournalIdentity, type ResumeState } from './journal.js';
import { answeredBefore, type OutageOptions } from './outage.js';
import { RejectsWriter } from './rejects.js';
import type { ReportWriter } from './report.js';
import type { CsvSource } from './sources/csv-source.js';

export interface OpenedOutputs {
  journal?: Journal;
  resume?: ResumeState;
  report?: ReportWriter<string>;
}

/** A new journal: the lock, then the report (another import of the file keeps its report), then the journal. */
async function createJournal(
  env: JobEnv,
  journalPath: string,
  identity: JournalIdentity,
  openReport: () => ReportWriter<string> | undefined,
): Promise<{ journal: Journal; report?: ReportWriter<string> }> {
  let unlock: () => void;
  try {
    unlock = Journal.lock(journalPath);
  } catch (err) {
    // Not another run, but a folder that takes no journal: when the report beside it is the
    // real problem (--report /proc/version), its own error says so.
    if (!(err instanceof JournalBusyError)) openReport()?.close({ complete: false });
    throw err;
  }
  let report: ReportWriter<string> | undefined;
  try {
    report = openReport();
  } catch (err) {
    unlock();
    throw err;
  }
  if (Journal.exists(journalPath))
    env.warn(`starting over: the journal of an unfinished import at ${journalPath} is replaced (use --resume to continue it instead)`);
  return { journal: await Journal.create(journalPath, identity, { locked: true }), report };
}

/**
 * Opens the journal (new or resumed) and the report, in the order that keeps what exists safe:
 * the lock, then the report (a report that cannot be written leaves an earlier unfinished journal
 * to resume), then the journal.
 */
export async function openJournalAndReport(args: {
  env: JobEnv;
  journalPath: string | undefined;
  identity: () => Omit<JournalIdentity, 'service'>;
  resume: boolean;
  openReport: () => ReportWriter<string> | undefined;
}): Promise<OpenedOutputs> {
  const { env, journalPath } = args;
  let opened: OpenedOutputs = {};
  if (journalPath) {
    // The address too: a resumed run knows whether the answers recorded came from where it sends now.
    const identity: JournalIdentity = { ...args.identity(), service: await env.serviceUrl() };
    if (args.resume) {
      const { journal, state } = await Journal.resume(
        journalPath,
        identity,
        'run with the options of the interrupted import, or without --resume to start over',
      );
      opened = { journal, resume: state };
    } else opened = await createJournal(env, journalPath, identity, args.openReport);
  }
  if (!opened.report) {
    // Resuming (the journal was checked first, so a refused resume leaves the old report as it
    // was), or reading stdin (no journal).
    try {
      opened.report = args.openReport();
    } catch (err) {
      await opened.journal?.close().catch(() => undefined);
      throw err;
    }
  }
  return opened;
}

/**
 * Opens the rejects file (or another output) after the journal and report (so another run's
 * journal lock is met first); when it cannot be opened, they are closed as they were.
 */
export async function openAfter<T>(opened: OpenedOutputs, open: () => T | Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    opened.report?.close({ complete: false });
    await opened.journal?.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The outage options of a live bulk run (bulk/outage.ts): --max-outage, and whether the address
 * is known to be the service's before a row's first answer: the journal being resumed records
 * answers from this address, else any HTTP answer the client has had or gets from it (a row's
 * retried 429 or 503, the token request, the route probe).
 */
export function outageOptions(
  env: Pick<JobEnv, 'maxOutageMs'>,
  client: Pick<ApiClient, 'baseUrl' | 'serviceAnswered'>,
  resume: ResumeState | undefined,
): Pick<OutageOptions, 'maxOutageMs' | 'serviceKnown'> {
  return {
    maxOutageMs: env.maxOutageMs,
    serviceKnown: answeredBefore(resume, client.baseUrl) || client.serviceAnswered(),
  };
}

/** The rejects file of a CSV import (--rejects), in the input's format; undefined without --rejects. */
export function openCsvRejects(opts: { rejects?: string; rejectsIncludeFailed?: boolean }, source: CsvSource): RejectsWriter | undefined {
  if (opts.rejects === undefined) return undefined;
  return new RejectsWriter(
    opts.rejects,
    {
      kind: 'csv',
      header: source.headerCells,
      delimiter: source.delimiter,
      encoding: source.encoding,
      bom: source.bom,
      lineEnd: source.lineEnd,
    },
    { includeFailed: opts.rejectsIncludeFailed === true },
  );
}
