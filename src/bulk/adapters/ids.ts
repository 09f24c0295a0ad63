/**
 * The --ids-file adapter of the bulk engine (`contacts delete|unsubscribe --ids-file`): each id
 * (bulk/sources/id-source.ts) → one request (the verb's `op`) on the one run (bulk/run.ts) → the verb's
 * success word (`deleted`, `unsubscribed`), `not_found`, `rejected` or `failed`. An id that cannot
 * be a contact id is rejected before sending. Prints nothing.
 */

import { ApiError, NetworkError, RetryWaitTooLongError } from '../../client/errors.js';
import type { CallOptions } from '../../client/types.js';
import { classifyError, isFatalForRun } from '../classify.js';
import { dryRunRows } from '../dry-run.js';
import type { Outcome, RowResult } from '../outcome.js';
import type { RejectsWriter } from '../rejects.js';
import type { ReportWriter } from '../report.js';
import { type BulkProgress, type BulkRunResult, createBulkRun, type RunWiring, type WorkItem, wiringOf } from '../run.js';
import type { IdLine } from '../sources/id-source.js';

export type DoneWord = 'deleted' | 'unsubscribed';

/** What an id's request is given: the run's abort signal and its retry and rate-header callbacks (the client's CallOptions). */
export type IdCall = Required<Pick<CallOptions, 'signal' | 'onRetry' | 'onRateHeaders' | 'patienceMs'>>;
export type IdOutcome<D extends DoneWord = DoneWord> = D | 'not_found' | 'rejected' | 'failed';

/** How many requests run at once: enough to be quick, few enough to stay polite. */
export const IDS_CONCURRENCY = 4;

const ID_OK = /^[^\s/?#]+$/;

/** A failed request's row (a fatal error stops the run instead). */
function rowOfError<D extends DoneWord>(w: WorkItem, err: unknown): RowResult<IdOutcome<D>> {
  const base = { seq: w.seq, line: w.line, id: w.id };
  const { scope, status, maybeApplied } = classifyError(err);
  const row = rowOfClass<D>(base, err, scope, status);
  return row.outcome === 'failed' && maybeApplied ? { ...row, maybeApplied } : row;
}

function rowOfClass<D extends DoneWord>(
  base: { seq: number; line: number; id: string },
  err: unknown,
  scope: string,
  status: number | undefined,
): RowResult<IdOutcome<D>> {
  if (err instanceof ApiError) {
    if (err.kind === 'not_found') return { ...base, outcome: 'not_found', status: 404, errorCode: err.code, message: 'no such contact' };
    if (scope === 'row') {
      const message = err.kind === 'suppressed' ? 'suppressed by the system (compliance_suppressed); cannot be changed' : err.message;
      return { ...base, outcome: 'rejected', status, errorCode: err.code, message };
    }
    return { ...base, outcome: 'failed', status, errorCode: err.code, message: err.message };
  }
  if (err instanceof NetworkError) return { ...base, outcome: 'failed', errorCode: 'network_error', message: err.message };
  if (err instanceof RetryWaitTooLongError)
    return { ...base, outcome: 'failed', status, errorCode: 'retry_wait_too_long', message: err.message };
  return { ...base, outcome: 'failed', errorCode: 'unexpected', message: err instanceof Error ? err.message : String(err) };
}

/** The run's wiring (RunWiring: signal, outputs, journal, --max-outage) and the verb's part. */
export interface IdsRunOptions<D extends DoneWord> extends RunWiring {
  ids: IdLine[];
  doneWord: D;
  /** The verb's request for one id; `sentBefore`: an interrupted run may have sent it (--resume). */
  op: (id: string, call: IdCall, sentBefore: boolean) => Promise<unknown>;
}

/** The ids as the engine's rows: an id that cannot be a contact id is rejected before sending. */
function idRows(ids: IdLine[], keepOriginal: boolean): WorkItem[] {
  return ids.map((item, i) => {
    const w: WorkItem = { seq: i + 1, line: item.line, lines: 1, id: item.id };
    if (keepOriginal) w.original = { text: item.id };
    if (!ID_OK.test(item.id)) w.problem = { code: 'invalid_id', message: `invalid id ${JSON.stringify(item.id)}`, field: 'id' };
    return w;
  });
}

/** Checks every id without sending: the rows that would be rejected (the report lists the others as `valid`). */
export async function dryRunIds(
  ids: IdLine[],
  out: { report?: ReportWriter<string>; rejects?: RejectsWriter },
): Promise<RowResult<Outcome>[]> {
  return (await dryRunRows([idRows(ids, out.rejects !== undefined)], out)).rejected;
}

/** Creates the run over the ids (bounded concurrency); `progress` can be read while `run()` works. */
export function createIdsRun<D extends DoneWord>(
  opts: IdsRunOptions<D>,
): { progress: BulkProgress<IdOutcome<D>>; run(): Promise<BulkRunResult<IdOutcome<D>>>; notDone(): RowResult<IdOutcome<D>>[] } {
  const rows = idRows(opts.ids, opts.rejects !== undefined);
  const notDone: RowResult<IdOutcome<D>>[] = [];
  const maybeSentUpTo = opts.resume?.maybeSentUpTo ?? 0;
  const job = createBulkRun<WorkItem, IdOutcome<D>>({
    ...wiringOf(opts),
    outcomes: [opts.doneWord, 'not_found', 'rejected', 'failed'],
    rows: (async function* () {
      yield rows;
    })(),
    concurrency: IDS_CONCURRENCY,
    // Exact marks: after a crash, only the ids really sent count a 404 as their own delete.
    exactMarks: true,
    async send(w, ctx) {
      try {
        // The run's retry and rate-header callbacks: a 429 slows the run, a refused connection is an outage.
        const call = { signal: ctx.signal, onRetry: ctx.onRetry, onRateHeaders: ctx.onRateHeaders, patienceMs: Number.POSITIVE_INFINITY };
        await ctx.reach(() => opts.op(w.id, call, w.seq <= maybeSentUpTo));
        return { seq: w.seq, line: w.line, id: w.id, outcome: opts.doneWord };
      } catch (err) {
        // A fatal error stops the run; a request cut by Ctrl-C has no outcome.
        if (isFatalForRun(err) || (ctx.signal.aborted && !(err instanceof ApiError))) throw err;
        return rowOfError<D>(w, err);
      }
    },
    tally(r) {
      if (r.outcome !== opts.doneWord) notDone.push(r);
    },
  });
  return {
    progress: job.progress,
    run: job.run,
    /** The rows that were not done (resumed ones included), input order. */
    notDone: () => notDone.sort((a, b) => a.seq - b.seq),
  };
}
