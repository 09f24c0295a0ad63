/**
 * svc orders import FILE|-: streams a CSV through the importer (src/importer/) and prints the
 * contract's summary (table on a TTY, JSON with --json), writes --report, keeps a resume journal.
 */
import { statSync } from 'node:fs';
import type { BulkProgress, CsvSource } from '../../bulk/index.js';
import {
  checkImportInput,
  checkImportOutputs,
  createOrderImport,
  ORDERS_CONCURRENCY as DEFAULT_CONCURRENCY,
  dryRunOrders,
  guardHistoricalOrders,
  type ImportIoOptions,
  openImportCsv,
  openReport,
  outageOptions,
  type ReportWriter,
  readOrderBatches,
  sizeYoungGeneration,
} from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { normalizeCountry } from '../../contract/phone.js';
import { UsageError } from '../../errors.js';
import { parseDelimiter } from '../../importer/delimiter.js';
import { describeTwin, type NormalisationTwin } from '../../importer/id-twins.js';
import type { MapFile } from '../../importer/map-file.js';
import { type MappingOptions, ORDER_MAPPING_SCHEMA, parseMaps } from '../../importer/mapping.js';
import { describePreset, mappingForHeader, presetJson } from '../../importer/presets/recognise.js';
import { shellQuote } from '../../io/shell-quote.js';
import type { RejectsNote } from '../bulk-rejects.js';
import { dryRunImport, importArgs, runCsvImport } from '../import-job.js';
import { printSummaryFields, type SummaryField } from '../import-summary.js';
import { jobEnv } from '../job-env.js';
import { runOrdersPlan } from '../plan/orders.js';
import { checkPlanFlags, type PlanFlags } from '../plan/read.js';
import {
  choiceDelimiter,
  chooseMapping,
  describeMapping,
  loadImportMapping,
  type MappingFlags,
  mappingDefaultCountry,
  mappingIdentity,
  mappingJson,
  mappingResumeArgs,
  orderLayoutAsking,
  warnIgnored,
} from './import-mapping.js';
import { printDryRun } from './import-output.js';
import { resolveIntegrationToken } from './token.js';

export interface ImportOptions extends PlanFlags, ImportIoOptions, MappingFlags {
  initialSync?: boolean;
  /** Orders dated over 30 days ago are meant to be sent live (side effects wanted): the guard lets them through. */
  live?: boolean;
  concurrency?: number;
  map?: string[];
  defaultCountry?: string;
  delimiter?: string;
  integrationTokenStdin?: boolean;
}

/**
 * The command that continues this import (`resume`), or imports another file (a fixed rejects
 * file) the same way: request-shaping options included, and the outputs only to resume.
 */
function commandFor(file: string, opts: ImportOptions, resume: boolean): string {
  const parts = ['svc', 'orders', 'import', shellQuote(file)];
  if (resume) parts.push('--resume');
  if (opts.initialSync) parts.push('--initial-sync');
  if (opts.live) parts.push('--live');
  parts.push(...mappingResumeArgs(opts, shellQuote));
  for (const m of opts.map ?? []) parts.push('--map', shellQuote(m));
  parts.push(...importArgs(opts, resume));
  if (opts.integrationTokenStdin) parts.push('--integration-token-stdin');
  return parts.join(' ');
}

/** What the flags say once checked, before the file is opened. */
interface CheckedFlags {
  env: ReturnType<typeof jobEnv>;
  input: ReturnType<typeof checkImportInput>;
  choice: Awaited<ReturnType<typeof chooseMapping>>;
  delimiter: string | undefined;
  maps: ReturnType<typeof parseMaps>;
  defaultCountry: MappingOptions['defaultCountry'];
}

/** The file opened and read as orders: its source, mapping and layout, and the token to send with. */
interface OpenedOrders {
  source: CsvSource;
  mapFile: MapFile | undefined;
  layout: Awaited<ReturnType<typeof orderLayoutAsking>>['layout'];
  constants: Awaited<ReturnType<typeof orderLayoutAsking>>['constants'];
  maps: ReturnType<typeof parseMaps>;
  dateOrder: ReturnType<typeof loadImportMapping>['dateOrder'];
  dates: ReturnType<typeof loadImportMapping>['dates'];
  mapping: MappingOptions;
  integrationToken: string | undefined;
}

/** Every flag that can be checked before the file is opened, and the outputs against the input. */
async function checkFlags(args: string[], opts: ImportOptions, ctx: Context): Promise<CheckedFlags> {
  if (args[0] === '-' && opts.integrationTokenStdin) {
    throw new UsageError('--integration-token-stdin cannot be used when the CSV comes from stdin', 'set SVC_INTEGRATION_TOKEN instead');
  }
  checkPlanFlags(opts, args[0]);
  const env = jobEnv(ctx);
  const input = checkImportInput(args[0], opts, env, 'orders', 'svc orders import orders.csv --initial-sync');
  const choice = await chooseMapping(opts, ctx.signal);
  const delimiter = opts.delimiter === undefined ? choiceDelimiter(choice) : parseDelimiter(opts.delimiter);
  const maps = parseMaps(opts.map ?? []);
  // Flags are checked before the file is opened; the mapping's own options once its header is read.
  if (!choice.family && !choice.mapFile) loadImportMapping(opts, undefined);
  let defaultCountry: MappingOptions['defaultCountry'];
  if (opts.defaultCountry !== undefined) {
    defaultCountry = normalizeCountry(opts.defaultCountry);
    if (!defaultCountry)
      throw new UsageError(
        `--default-country must be an ISO 3166 country code such as US or DE, got ${JSON.stringify(opts.defaultCountry)}`,
      );
  }
  // Nothing is opened before every output is known not to be the input or another output.
  await checkImportOutputs(input, opts, env);
  return { env, input, choice, delimiter, maps, defaultCountry };
}

/**
 * Everything that can be checked before a request: the header (a file that cannot be imported
 * says so first), its mapping and layout (asked on a terminal), the token source.
 */
async function openOrders(flags: CheckedFlags, opts: ImportOptions, ctx: Context): Promise<OpenedOrders> {
  const { input, env } = flags;
  const opened = await openImportCsv(input, env, flags.delimiter);
  const fileName = input.fromStdin ? 'stdin' : input.file;
  const mapFile = mappingForHeader(fileName, opened.header, flags.choice, ORDER_MAPPING_SCHEMA);
  // eBay's `N record(s) downloaded` and `Seller ID : …` end the file without being rows.
  const source = opened.dropFooter(mapFile?.footerPattern);
  const { dateOrder, dates, constants: givenConstants } = loadImportMapping(opts, mapFile);
  const defaultCountry = mappingDefaultCountry(flags.defaultCountry, mapFile);
  const asked = await orderLayoutAsking({
    ctx,
    input,
    name: fileName,
    header: source.header,
    delimiter: source.delimiter,
    maps: flags.maps,
    constants: givenConstants,
    mapFile,
    opts,
    command: (o) => commandFor(input.file, { ...opts, ...o }, false),
  });
  const { layout, constants } = asked;
  warnIgnored(ctx, layout, mapFile);
  const preset = describePreset(mapFile);
  if (preset && opts.plan) ctx.out.info(preset);
  const integrationToken = opts.dryRun || opts.plan ? undefined : await resolveIntegrationToken(ctx, opts.integrationTokenStdin === true);
  const mapping: MappingOptions = { delimiter: source.delimiter, defaultCountry, dateOrder, dates, initialSync: opts.initialSync === true };
  return { source, mapFile, layout, constants, maps: asked.maps, dateOrder, dates, mapping, integrationToken };
}

/** The real run: the guards that need no journal, then the bulk job. */
async function sendOrders(flags: CheckedFlags, orders: OpenedOrders, opts: ImportOptions, ctx: Context): Promise<number> {
  const { input, env } = flags;
  const { source, mapFile, layout, mapping } = orders;
  const totalBytes = input.resumable ? statSync(input.file).size : undefined;
  // Credentials and scope before the journal: a run that cannot send must not leave one behind
  // (the next run would warn about an "unfinished import" that never started).
  // Before any request: orders older than 30 days sent live need --initial-sync or --live.
  const toSend = await guardHistoricalOrders(
    ctx.now(),
    {
      resumable: input.resumable,
      reopen: async () => (await openImportCsv(input, env, source.delimiter)).dropFooter(mapFile?.footerPattern),
    },
    source,
    (s) => readOrderBatches(s, layout, mapping),
    opts,
  );
  const client = await ctx.client();
  await client.ensureScope('upsertOrder');

  return runCsvImport({
    ctx,
    input,
    opts,
    source,
    totalBytes,
    identity: {
      kind: 'orders',
      options: {
        initial_sync: opts.initialSync === true,
        map: [...orders.maps].sort(([a], [b]) => a.localeCompare(b)),
        default_country: mapping.defaultCountry ?? null,
        delimiter: source.delimiter,
        ...(input.encoding !== undefined ? { encoding: input.encoding } : {}),
        ...mappingIdentity(mapFile, orders.dateOrder, orders.dates, orders.constants),
      },
    },
    openReport: () => openReportOf(opts.report),
    start: (outputs) =>
      createOrderImport({
        source: toSend,
        layout,
        mapping,
        client,
        integrationToken: orders.integrationToken,
        concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
        signal: ctx.signal,
        outage: outageOptions(env, client, outputs.resume),
        onTwin: twinWarnings(ctx),
        ...outputs,
      }),
    counts: (s) => `${s.created} created, ${s.updated} updated, ${s.unconfirmed} unconfirmed, ${s.rejected} rejected, ${s.failed} failed`,
    command: (f, resume) => commandFor(f, opts, resume),
    printSummary: (p, reportPath, interrupted, note) => printSummary(ctx, p, reportPath, interrupted, note, mapFile),
  });
}

/** The dry run: every row read and checked, nothing sent. */
function dryRunOrdersFile(orders: OpenedOrders, opts: ImportOptions, ctx: Context): Promise<number> {
  const { source, mapFile, layout, mapping, dates } = orders;
  ctx.out.info(describeMapping(layout, mapFile, orders.dateOrder, dates));
  return dryRunImport({
    ctx,
    opts,
    source,
    openReport: () => openReportOf(opts.report),
    check: (report, rejects) => dryRunOrders(source, layout, mapping, report, rejects, twinWarnings(ctx)),
    print: (result) =>
      printDryRun(ctx, result.summary, result.duplicates, result.rejected, opts.report, {
        values: result.values,
        mapping: mappingJson(layout, mapFile, dates),
      }),
  });
}

export async function run(args: string[], opts: ImportOptions, ctx: Context): Promise<number> {
  const flags = await checkFlags(args, opts, ctx);
  // A long import allocates fast and keeps little: a new space of 8 MiB (V8 starts at 1 MiB and
  // may grow it to 16) halves the scavenges and lowers the peak RSS (bulk/heap.ts).
  sizeYoungGeneration();
  const orders = await openOrders(flags, opts, ctx);
  if (opts.plan)
    return runOrdersPlan(ctx, readOrderBatches(orders.source, orders.layout, orders.mapping), {
      ...opts,
      initialSync: orders.mapping.initialSync === true,
    });
  return opts.dryRun ? dryRunOrdersFile(orders, opts, ctx) : sendOrders(flags, orders, opts, ctx);
}

function printSummary(
  ctx: Context,
  progress: BulkProgress,
  reportPath: string | undefined,
  interrupted: boolean,
  rejects: RejectsNote | undefined,
  mapFile: MapFile | undefined,
): void {
  const s = progress.summary;
  const fields: SummaryField[] = [
    ['rows', s.rows],
    ['created', s.created, 'good'],
    ['updated', s.updated],
    ['unconfirmed', s.unconfirmed, 'warn'],
    ['rejected', s.rejected, 'bad'],
    ['failed', s.failed, 'bad'],
    ['resumed', s.resumed],
  ];
  // Orders with line items: `lines` comes second on a terminal, last in JSON and TSV.
  if (s.lines !== undefined) fields.push(['lines', s.lines, undefined, 1]);
  const preset = presetJson(mapFile);
  printSummaryFields(ctx, fields, interrupted, progress.lines, rejects, progress, preset ? { preset } : undefined);
  const said = describePreset(mapFile);
  if (said && !ctx.settings.json) ctx.out.info(said);
  if (s.unconfirmed > 0) {
    ctx.out.info(
      `${s.unconfirmed} order(s) unconfirmed: an earlier attempt ended without an answer, so whether each was created or updated is unknown (the order is stored either way)${reportPath ? `; they are listed in ${reportPath}` : ''}`,
    );
  }
  if (reportPath) ctx.out.info(`report written to ${reportPath}`);
}

/** Order ids differing only in normalisation: a warning for each of the first 20 pairs, then one saying more are not listed. */
function twinWarnings(ctx: Context): (twin: NormalisationTwin) => void {
  let n = 0;
  return (twin) => {
    n++;
    if (n <= MAX_TWIN_WARNINGS) ctx.log.warn(describeTwin(twin));
    else if (n === MAX_TWIN_WARNINGS + 1) ctx.log.warn('more order ids differ only in Unicode normalisation; they are not listed');
  };
}
const MAX_TWIN_WARNINGS = 20;

function openReportOf(path: string | undefined): ReportWriter<string> | undefined {
  return path ? openReport(path, { idColumn: 'order_id' }) : undefined;
}
