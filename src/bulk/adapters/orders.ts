/**
 * The orders import pipeline: CSV items → orders (mapping, line-item grouping, validation) →
 * scheduler (key affinity on order_id, AIMD) → one upsert each → outcome → summary, report (input
 * order) and journal. Prints nothing: the command reads `progress` and the result.
 */

import { statusKind } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { ValidOrder } from '../../contract/orders.js';
import { createValuesSummary, type ValuesSummary } from '../../importer/dry-run-summary.js';
import { cellOf } from '../../importer/field-columns.js';
import { type NormalisationTwin, NormalisationTwins, watchTwins } from '../../importer/id-twins.js';
import {
  buildOrder,
  type ColumnLayout,
  describeFieldErrors,
  type MappingOptions,
  readLineItem,
  readOrderFields,
} from '../../importer/mapping.js';
import { isFatalForRun } from '../classify.js';
import { dryRunRows } from '../dry-run.js';
import type { Outcome, RowResult, Summary } from '../outcome.js';
import type { RejectsWriter } from '../rejects.js';
import type { ReportWriter } from '../report.js';
import { type BulkProgress, type BulkRunResult, createBulkRun, type RunWiring, type WorkItem, wiringOf } from '../run.js';
import type { CsvItem, CsvSource } from '../sources/csv-source.js';
import { classifyUpsertError } from './row-error.js';

/** One order to send (or a row already known to be rejected). */
export interface OrderWork extends WorkItem {
  order?: ValidOrder;
}

export const DEFAULT_CONCURRENCY = 16;

/** The rows of one order read so far (one row, or consecutive rows sharing its key). */
interface OrderGroup {
  line: number;
  lineNumbers: number[];
  records?: string[][];
  fields: ReturnType<typeof readOrderFields>;
  id: string;
  items: Array<Record<string, unknown>>;
}

/**
 * Groups CSV items into orders, one item at a time: with line item columns, consecutive rows of
 * one order key form one order, finished when a row of another order (or the end) comes.
 */
class OrderGrouper {
  private seq = 0;
  private group: OrderGroup | undefined;

  constructor(
    private readonly layout: ColumnLayout,
    private readonly opts: MappingOptions,
    private readonly keepOriginal: boolean,
  ) {}

  /** Reads one item; the orders it finishes go to `out`. */
  add(item: CsvItem, out: OrderWork[]): void {
    if (item.kind === 'error') {
      this.flush(out);
      out.push(this.unreadable(item));
      return;
    }
    const id = this.keyOf(item.cells);
    if (!this.layout.hasLineItems) {
      out.push(this.finish(this.start(item.line, item.cells, id, false)));
      return;
    }
    const group = this.group;
    if (group && id !== '' && id === group.id) {
      group.lineNumbers.push(item.line);
      group.records?.push(item.cells);
      const f = group.fields;
      const lineItem = readLineItem(item.cells, this.layout, this.opts.delimiter, f.body.currency, f.errors, group.items.length);
      if (lineItem) group.items.push(lineItem);
      return;
    }
    this.flush(out);
    this.group = this.start(item.line, item.cells, id, true);
  }

  /** Finishes the order being read, if any, into `out`. */
  flush(out: OrderWork[]): void {
    if (this.group === undefined) return;
    out.push(this.finish(this.group));
    this.group = undefined;
  }

  /**
   * The order's key as its fields read it: the first of its columns with a value (SkyVerge's
   * order_number is empty without a numbering plugin; order_id then keys the order).
   */
  private keyOf(cells: readonly string[] | undefined): string {
    return cells === undefined ? '' : (cellOf(cells, this.layout, 'order_id')?.trim() ?? '');
  }

  private start(line: number, cells: string[], id: string, withLineItem: boolean): OrderGroup {
    const fields = readOrderFields(cells, this.layout, this.opts);
    const lineItem = withLineItem
      ? readLineItem(cells, this.layout, this.opts.delimiter, fields.body.currency, fields.errors, 0)
      : undefined;
    return {
      line,
      lineNumbers: [line],
      records: this.keepOriginal ? [cells] : undefined,
      fields,
      id,
      items: lineItem ? [lineItem] : [],
    };
  }

  private unreadable(item: CsvItem & { kind: 'error' }): OrderWork {
    const work: OrderWork = {
      seq: ++this.seq,
      line: item.line,
      lines: 1,
      id: this.keyOf(item.cells),
      problem: { code: item.code, message: item.message },
    };
    if (this.keepOriginal && item.cells) work.original = { cells: [item.cells] };
    return work;
  }

  private finish(g: OrderGroup): OrderWork {
    const built = buildOrder(g.fields, g.items.length > 0 ? g.items : undefined);
    const work: OrderWork = { seq: ++this.seq, line: g.line, lines: g.lineNumbers.length, id: g.id };
    if (g.records) work.original = { cells: g.records };
    if (built.ok) work.order = built.order;
    else {
      // line_items[2].price → the physical line of that item
      const message = describeFieldErrors(built.errors).replace(
        /line_items\[(\d+)\]/g,
        (_m, i: string) => `line item on line ${g.lineNumbers[Number(i)] ?? '?'}`,
      );
      work.problem = { code: 'invalid_row', message, field: built.errors[0]?.field };
    }
    return work;
  }
}

/**
 * Turns CSV items into orders, a batch of rows at a time: with line item columns, consecutive
 * rows of one order_id form one order (an order can span batches).
 */
export async function* readOrderBatches(
  source: CsvSource,
  layout: ColumnLayout,
  opts: MappingOptions,
  /** Keep each order's original cells (WorkItem.original) for a rejects file. */
  keepOriginal = false,
): AsyncGenerator<OrderWork[]> {
  const grouper = new OrderGrouper(layout, opts, keepOriginal);
  for await (const batch of source.batches as AsyncIterable<CsvItem[]>) {
    const out: OrderWork[] = [];
    for (const item of batch) grouper.add(item, out);
    if (out.length > 0) yield out;
  }
  const last: OrderWork[] = [];
  grouper.flush(last);
  if (last.length > 0) yield last;
}

export interface ImportProgress extends BulkProgress {
  bytesRead(): number;
}

/** The run's wiring (RunWiring: signal, outputs, journal, --max-outage) and what orders need. */
export interface OrderImportOptions extends RunWiring {
  source: CsvSource;
  layout: ColumnLayout;
  mapping: MappingOptions;
  client: ApiClient;
  integrationToken?: string;
  concurrency: number;
  /** Two order ids that differ only in Unicode normalisation (id-twins.ts): sent as two, warned about. */
  onTwin?: (twin: NormalisationTwin) => void;
}

/** Creates an import run on the bulk engine (key affinity on order_id); `progress` can be read while `run()` works. */
export function createOrderImport(opts: OrderImportOptions): { progress: ImportProgress; run(): Promise<BulkRunResult> } {
  const maybeSentUpTo = opts.resume?.maybeSentUpTo ?? 0;
  const job = createBulkRun<OrderWork>({
    ...wiringOf(opts),
    rows: watchTwins(readOrderBatches(opts.source, opts.layout, opts.mapping, opts.rejects !== undefined), (t) => opts.onTwin?.(t)),
    keyOf: (w) => w.id,
    concurrency: opts.concurrency,
    countLines: opts.layout.hasLineItems,
    async send(work, ctx): Promise<RowResult<Outcome>> {
      try {
        const res = await ctx.reach(() =>
          opts.client.upsertOrder(work.order as ValidOrder, {
            integrationToken: opts.integrationToken,
            signal: ctx.signal,
            onRetry: ctx.onRetry,
            onRateHeaders: ctx.onRateHeaders,
            patienceMs: Number.POSITIVE_INFINITY,
          }),
        );
        // Only the status matters here: the answer's body is never parsed (client LazyResult).
        if (statusKind(res.status) === 'created') return { seq: work.seq, line: work.line, id: work.id, outcome: 'created', status: 201 };
        const uncertain = res.uncertain || ctx.mayHaveApplied();
        if (uncertain || work.seq <= maybeSentUpTo) {
          const why = uncertain
            ? 'an earlier attempt ended without an answer and may have created it'
            : 'sent again after an interrupted run, which may have created it';
          return {
            seq: work.seq,
            line: work.line,
            id: work.id,
            outcome: 'unconfirmed',
            status: res.status,
            message: `answered ${res.status}: ${why}`,
          };
        }
        return { seq: work.seq, line: work.line, id: work.id, outcome: 'updated', status: res.status };
      } catch (err) {
        if (ctx.signal.aborted || isFatalForRun(err)) throw err;
        return { seq: work.seq, line: work.line, id: work.id, ...classifyUpsertError(err) };
      }
    },
  });
  // The same object the run updates (a copy would freeze its counters).
  const progress: ImportProgress = Object.assign(job.progress, { bytesRead: () => opts.source.bytesRead() });
  return { progress, run: job.run };
}

export interface DryRunResult {
  summary: Summary & { valid: number };
  /** order_ids that appear on more than one line (not counting the lines of one grouped order). */
  duplicates: Array<{ order_id: string; lines: number[] }>;
  rejected: RowResult<Outcome>[];
  /** The first requests, totals per currency, date range, share with a phone. */
  values: ValuesSummary;
}

/**
 * Validates every row without sending (bulk/dry-run.ts); collects duplicate order_ids with their
 * lines. Memory grows with the number of distinct order_ids (one small entry each).
 */
export async function dryRunOrders(
  source: CsvSource,
  layout: ColumnLayout,
  mapping: MappingOptions,
  report?: ReportWriter<string>,
  rejects?: RejectsWriter,
  onTwin?: (twin: NormalisationTwin) => void,
): Promise<DryRunResult> {
  const values = createValuesSummary();
  const twins = new NormalisationTwins();
  const r = await dryRunRows(readOrderBatches(source, layout, mapping, rejects !== undefined), {
    report,
    rejects,
    countLines: layout.hasLineItems,
    keyOf: (w) => w.id,
    each: (w) => {
      if (w.order) values.add(w.order);
      const twin = w.id ? twins.check(w.id, w.line) : undefined;
      if (twin) onTwin?.(twin);
    },
  });
  const duplicates = r.duplicates.map(({ key, lines }) => ({ order_id: key, lines }));
  return { summary: r.summary, duplicates, rejected: r.rejected, values: values.result() };
}
