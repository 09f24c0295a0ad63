/**
 * The bulk room's one door. The job (job.ts) runs every bulk verb's life cycle; the commands
 * name from here the adapters they start on it, the checks made before it, the plan helpers
 * (plan/), and the types of its results. Nothing outside bulk/ imports another of its files
 * (.dependency-cruiser.cjs, "only-bulk-entry").
 */

// The adapters, one per verb: how a row becomes a request and an answer an outcome.
export {
  CONTACT_REPORT_COLUMNS,
  type ContactDryRun,
  type ContactSummary,
  type ContactWork,
  createContactImport,
  DEFAULT_CONCURRENCY as CONTACTS_CONCURRENCY,
  dryRunContacts,
  type IfExists,
  readContactBatches,
} from './adapters/contacts.js';
export type { EventOutcome, LineResult } from './adapters/event-outcome.js';
export { createEventSend, dryRunEvents, type EventDryRun, type EventSendSummary, sendOne } from './adapters/events.js';
export { createIdsRun, type DoneWord, dryRunIds, type IdCall, type IdOutcome } from './adapters/ids.js';
export {
  createOrderImport,
  DEFAULT_CONCURRENCY as ORDERS_CONCURRENCY,
  dryRunOrders,
  type OrderWork,
  readOrderBatches,
} from './adapters/orders.js';
// The engine's vocabulary the commands print.
export { sizeYoungGeneration } from './heap.js';
export * from './job.js';
// The job: its life cycle, its input and output checks, and the outputs it opens.
export type { JobEnv } from './job-env.js';
export * from './job-input.js';
export * from './job-outputs.js';
export { fileFingerprint } from './journal.js';
export { LineWriter } from './line-writer.js';
export type { OutageState } from './outage.js';
export type { Outcome, RowResult, Summary } from './outcome.js';
export { checkRunPaths } from './paths.js';
// Planning (--plan, the guards): what a run would do, worked out before it is sent.
export {
  type AccountIndex,
  type AccountRead,
  type FileIdentities,
  type ReadMethod,
  readAccount,
  readContactsById,
  readSuppressed,
} from './plan/account.js';
export { type PlanCell, sampleText } from './plan/cells.js';
export { type ContactPlan, planContacts } from './plan/contacts-plan.js';
export { countHistorical, countUnsuppressing, holdUnsuppressing, tooHistorical } from './plan/guards.js';
export { type GuardInput, guardHistoricalOrders, guardUnsuppress } from './plan/guards-read.js';
export { ID_OK, type IdsPlan, type IdsVerb, type PlannedIdRow, planIds } from './plan/ids-plan.js';
export { HISTORICAL_DAYS, type OrderPlan, planOrders } from './plan/orders-plan.js';
export { GUARD_STREAM_ROWS, peekCsv } from './plan/peek.js';
export { CONTACT_PLAN_COLUMNS, contactPlanRecord, ORDER_PLAN_COLUMNS, orderPlanRecord, PlanOutBuffer } from './plan/plan-out.js';
export { RejectsWriter } from './rejects.js';
export { openReport, type ReportWriter } from './report.js';
export { type BulkProgress, type BulkRunResult, type OutcomeLines, rowsPerSecond } from './run.js';
// The sources.
export { type CsvSource, openCsv } from './sources/csv-source.js';
export { describeInvalid, findInvalidUtf8, InputDecoder, type InputEncoding, parseEncoding } from './sources/decode.js';
export { type IdLine, lineEndOf, parseIdLines } from './sources/id-source.js';
export { countDataLines } from './sources/line-count.js';
export { readLineBatches } from './sources/ndjson-source.js';
