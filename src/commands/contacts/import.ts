/**
 * svc contacts import FILE|-: streams a CSV of people through the contacts importer
 * (src/bulk/adapters/contacts.ts) on the shared bulk engine, and prints the summary (table on a TTY,
 * JSON with --json) with the SMS transitions and welcome SMS it caused; writes --report, keeps a
 * resume journal. The run's input, outputs and end are orders import's (bulk/job.ts).
 */
import { statSync } from 'node:fs';
import type { BulkProgress } from '../../bulk/index.js';
import {
  CONTACT_REPORT_COLUMNS,
  type ContactDryRun,
  type ContactSummary,
  checkImportInput,
  checkImportOutputs,
  createContactImport,
  CONTACTS_CONCURRENCY as DEFAULT_CONCURRENCY,
  dryRunContacts,
  guardUnsuppress,
  type IfExists,
  type ImportIoOptions,
  openImportCsv,
  openReport,
  outageOptions,
  type ReportWriter,
  readContactBatches,
  sizeYoungGeneration,
} from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { normalizeCountry } from '../../contract/phone.js';
import { UsageError } from '../../errors.js';
import {
  CONTACT_ALIASES,
  CONTACT_MAPPING_SCHEMA,
  type ContactLayout,
  type ContactRowOptions,
  resolveContactColumns,
} from '../../importer/contact-mapping.js';
import { parseDelimiter } from '../../importer/delimiter.js';
import { type MapFile, mapFileChoices } from '../../importer/map-file.js';
import { type ColumnChoice, parseMaps } from '../../importer/mapping.js';
import { describePreset, presetJson } from '../../importer/presets/recognise.js';
import { shellQuote } from '../../io/shell-quote.js';
import type { RejectsNote } from '../bulk-rejects.js';
import { dryRunImport, importArgs, runCsvImport } from '../import-job.js';
import { printSummaryFields, type SummaryField } from '../import-summary.js';
import { jobEnv } from '../job-env.js';
import { type FieldQuestion, layoutWithQuestions } from '../mapping-questions.js';
import { runContactsPlan } from '../plan/contacts.js';
import { checkPlanFlags, type PlanFlags } from '../plan/read.js';
import {
  chooseContactMapping,
  contactConstants,
  contactMappingForHeader,
  contactMappingJson,
  describeContactMapping,
  parseContactSets,
} from './import-mapping.js';

/** What a terminal's question says about the contact fields one of which is required. */
const CONTACT_QUESTIONS: Record<string, FieldQuestion> = {
  email: { what: "the contact's e-mail address" },
  phone: { what: "the contact's phone number" },
};

export interface ContactImportOptions extends ImportIoOptions, PlanFlags {
  concurrency?: number;
  map?: string[];
  /** `--set email_consent=…` / `sms_consent=…`: the consent every row gets (over a preset's). */
  set?: string[];
  mapFile?: string;
  preset?: string;
  defaultCountry?: string;
  delimiter?: string;
  ifExists?: IfExists;
  welcomeSms?: boolean;
  /** Rows may lift merchant suppressions: the guard does not read the suppressed contacts. */
  allowUnsuppress?: boolean;
  /**
   * --no-means VALUE: commander files an option named --no-… under the name without `no-`, and
   * gives it `true` when it is absent.
   */
  means?: 'nothing' | 'unsubscribed' | boolean;
}

function noMeans(opts: ContactImportOptions): ContactRowOptions['noMeans'] {
  return opts.means === 'unsubscribed' ? 'unsubscribed' : 'nothing';
}

/**
 * The command that continues this import (`resume`), or imports another file (a fixed rejects
 * file) the same way: request-shaping options included, and the outputs only to resume.
 */
function commandFor(file: string, opts: ContactImportOptions, resume: boolean): string {
  const parts = ['svc', 'contacts', 'import', shellQuote(file)];
  if (resume) parts.push('--resume');
  if (opts.preset) parts.push('--preset', shellQuote(opts.preset));
  if (opts.mapFile) parts.push('--map-file', shellQuote(opts.mapFile));
  for (const m of opts.map ?? []) parts.push('--map', shellQuote(m));
  for (const v of opts.set ?? []) parts.push('--set', shellQuote(v));
  if (opts.ifExists && opts.ifExists !== 'update') parts.push('--if-exists', opts.ifExists);
  if (opts.welcomeSms) parts.push('--welcome-sms');
  if (opts.allowUnsuppress) parts.push('--allow-unsuppress');
  if (noMeans(opts) !== 'nothing') parts.push('--no-means', noMeans(opts));
  parts.push(...importArgs(opts, resume));
  return parts.join(' ');
}

function openReportOf(path: string | undefined): ReportWriter<string> | undefined {
  return path ? openReport(path, { idColumn: CONTACT_REPORT_COLUMNS }) : undefined;
}

/** What the flags say once checked, before the file is opened. */
interface CheckedFlags {
  env: ReturnType<typeof jobEnv>;
  input: ReturnType<typeof checkImportInput>;
  choice: Awaited<ReturnType<typeof chooseContactMapping>>;
  delimiter: string | undefined;
  maps: ReturnType<typeof parseMaps>;
  sets: Map<string, string>;
  defaultCountry: ContactRowOptions['defaultCountry'];
  ifExists: IfExists;
}

/** The file opened and read as contacts: its source, mapping, layout and rows. */
interface OpenedContacts {
  source: Awaited<ReturnType<typeof openImportCsv>>;
  mapFile: MapFile | undefined;
  constants: Map<string, string>;
  rowOptions: ContactRowOptions;
  layout: ContactLayout;
  choices: Map<string, string | ColumnChoice>;
  rows: ReturnType<typeof readContactBatches>;
}

/** Every flag that can be checked before the file is opened, and the outputs against the input. */
async function checkFlags(args: string[], opts: ContactImportOptions, ctx: Context): Promise<CheckedFlags> {
  checkPlanFlags(opts, args[0]);
  const env = jobEnv(ctx);
  const input = checkImportInput(args[0], opts, env, 'contacts', 'svc contacts import subscribers.csv');
  const choice = await chooseContactMapping(opts, ctx.signal);
  const known = choice.mapFile ?? choice.family?.base;
  const delimiter = opts.delimiter === undefined ? known?.delimiter : parseDelimiter(opts.delimiter);
  const maps = parseMaps(opts.map ?? [], CONTACT_MAPPING_SCHEMA.fields);
  const sets = parseContactSets(opts.set ?? []);
  let defaultCountry: ContactRowOptions['defaultCountry'];
  if (opts.defaultCountry !== undefined) {
    defaultCountry = normalizeCountry(opts.defaultCountry);
    if (!defaultCountry)
      throw new UsageError(
        `--default-country must be an ISO 3166 country code such as US or DE, got ${JSON.stringify(opts.defaultCountry)}`,
      );
  }
  await checkImportOutputs(input, opts, env);
  return { env, input, choice, delimiter, maps, sets, defaultCountry, ifExists: opts.ifExists ?? 'update' };
}

/** A mapping file's choices first; --map replaces a field's. */
function choicesOf(mapFile: MapFile | undefined, maps: ReadonlyMap<string, string>): Map<string, string | ColumnChoice> {
  const choices = new Map<string, string | ColumnChoice>();
  for (const [field, choice] of mapFileChoices(mapFile)) choices.set(field, choice);
  for (const [field, column] of maps) choices.set(field, column);
  return choices;
}

/** Opens the file and works out its mapping (asked on a terminal when it lacks an e-mail or phone column). */
async function openContacts(flags: CheckedFlags, opts: ContactImportOptions, ctx: Context): Promise<OpenedContacts> {
  const { input, env } = flags;
  const file = input.file;
  const source = await openImportCsv(input, env, flags.delimiter);
  // Without --preset or --map-file, the header says which export it is (a tie stops, exit 2).
  const mapFile = contactMappingForHeader(input.fromStdin ? 'stdin' : file, source.header, flags.choice);
  const constants = contactConstants(mapFile, flags.sets);
  const defaultCountry = flags.defaultCountry ?? mapFile?.defaultCountry;
  const rowOptions: ContactRowOptions = {
    defaultCountry,
    noMeans: noMeans(opts),
    welcomeSms: opts.welcomeSms === true,
    values: mapFile?.values,
  };
  // On a terminal, a header without an e-mail or phone column is asked about (mapping-questions.ts).
  const answers = await layoutWithQuestions({
    ctx,
    input,
    kind: 'contacts',
    header: source.header,
    delimiter: source.delimiter,
    fields: CONTACT_QUESTIONS,
    aliases: CONTACT_ALIASES,
    maps: flags.maps,
    sets: new Map(),
    mapFileInUse: mapFile !== undefined,
    layout: (m) => resolveContactColumns(source.header, choicesOf(mapFile, m), source.delimiter, mapFile?.countryColumns, constants),
    reuse: (how) =>
      commandFor(
        file,
        'mapFile' in how
          ? { ...opts, map: [], preset: undefined, mapFile: how.mapFile }
          : { ...opts, map: [...(opts.map ?? []), ...how.map] },
        false,
      ),
  });
  const layout = answers.layout;
  if (answers.asked) opts.map = [...answers.maps].map(([f, c]) => `${f}=${c}`);
  if (layout.ignored.length > 0 && !mapFile?.ignoreUnmapped)
    ctx.log.warn(
      `ignoring column${layout.ignored.length > 1 ? 's' : ''} ${layout.ignored.map((c) => JSON.stringify(c)).join(', ')} (not contact fields)`,
    );
  const rows = readContactBatches(source, layout, rowOptions, opts.rejects !== undefined);
  return { source, mapFile, constants, rowOptions, layout, choices: choicesOf(mapFile, answers.maps), rows };
}

/** The real run: credentials, scope and the unsuppress guard before the journal, then the bulk job. */
async function sendContacts(flags: CheckedFlags, contacts: OpenedContacts, opts: ContactImportOptions, ctx: Context): Promise<number> {
  const { input, env, ifExists } = flags;
  const { source, mapFile, constants, rowOptions, layout } = contacts;
  const totalBytes = input.resumable ? statSync(input.file).size : undefined;
  // Credentials and scope before the journal: a run that cannot send must not leave one behind.
  const client = await ctx.client();
  await client.ensureScope('createContact');
  if (ifExists === 'update') await client.ensureScope('patchContact');
  // Before any write: rows that would lift a merchant suppression need --allow-unsuppress.
  const toSend = await guardUnsuppress(
    ctx.signal,
    client,
    { resumable: input.resumable, reopen: () => openImportCsv(input, env, source.delimiter) },
    source,
    (s) => readContactBatches(s, layout, rowOptions, opts.rejects !== undefined),
    opts,
  );

  return runCsvImport({
    ctx,
    input,
    opts,
    source,
    totalBytes,
    identity: {
      kind: 'contacts',
      options: {
        columns: [...contacts.choices]
          .map(([f, c]) => [f, typeof c === 'string' ? [c] : c.columns])
          .sort(([a], [b]) => String(a).localeCompare(String(b))),
        country_columns: mapFile?.countryColumns ?? [],
        ...(constants.size > 0 ? { set: [...constants].sort(([a], [b]) => a.localeCompare(b)) } : {}),
        if_exists: ifExists,
        welcome_sms: rowOptions.welcomeSms,
        no_means: rowOptions.noMeans,
        default_country: rowOptions.defaultCountry ?? null,
        delimiter: source.delimiter,
        ...(input.encoding !== undefined ? { encoding: input.encoding } : {}),
      },
    },
    openReport: () => openReportOf(opts.report),
    start: (outputs) =>
      createContactImport({
        rows: toSend,
        bytesRead: () => source.bytesRead(),
        client,
        ifExists,
        welcomeSms: rowOptions.welcomeSms,
        concurrency: opts.concurrency ?? DEFAULT_CONCURRENCY,
        signal: ctx.signal,
        outage: outageOptions(env, client, outputs.resume),
        ...outputs,
      }),
    counts: (s) =>
      `${s.created} created, ${s.updated} updated, ${s.skipped} skipped, ${s.unconfirmed} unconfirmed, ${s.rejected} rejected, ${s.failed} failed`,
    command: (f, resume) => commandFor(f, opts, resume),
    printSummary: (p, reportPath, interrupted, note) => printSummary(ctx, p, rowOptions.welcomeSms, reportPath, interrupted, note, mapFile),
  });
}

export async function run(args: string[], opts: ContactImportOptions, ctx: Context): Promise<number> {
  const flags = await checkFlags(args, opts, ctx);
  sizeYoungGeneration();
  const contacts = await openContacts(flags, opts, ctx);
  const preset = describePreset(contacts.mapFile);
  if (preset && opts.plan) ctx.out.info(preset);
  if (opts.plan)
    return runContactsPlan(ctx, contacts.rows, { ...opts, ifExists: flags.ifExists, welcomeSms: contacts.rowOptions.welcomeSms });
  if (opts.dryRun) {
    const { source, layout, mapFile, rows } = contacts;
    ctx.out.info(describeContactMapping(layout, mapFile, flags.sets));
    return dryRunImport({
      ctx,
      opts,
      source,
      openReport: () => openReportOf(opts.report),
      check: (report, rejects) => dryRunContacts(rows, report, rejects),
      print: (result) => printDryRun(ctx, result, opts.report, contactMappingJson(layout, mapFile)),
    });
  }
  return sendContacts(flags, contacts, opts, ctx);
}

function printSummary(
  ctx: Context,
  progress: BulkProgress & { summary: ContactSummary },
  welcomeSms: boolean,
  reportPath: string | undefined,
  interrupted: boolean,
  rejects: RejectsNote | undefined,
  mapFile?: MapFile,
): void {
  const s = progress.summary;
  const preset = presetJson(mapFile);
  printSummaryFields(
    ctx,
    [
      ['rows', s.rows],
      ['created', s.created, 'good'],
      ['updated', s.updated],
      ['skipped', s.skipped],
      ['unconfirmed', s.unconfirmed, 'warn'],
      ['rejected', s.rejected, 'bad'],
      ['failed', s.failed, 'bad'],
      ['resumed', s.resumed],
      ['sms_subscribed', s.smsSubscribed],
      ['welcome_sms', s.welcomeSms],
      ...(s.smsUnknown > 0 ? [['sms_unknown', s.smsUnknown, 'warn'] as SummaryField] : []),
    ],
    interrupted,
    progress.lines,
    rejects,
    progress,
    preset ? { preset } : undefined,
  );
  const said = describePreset(mapFile);
  if (said && !ctx.settings.json) ctx.out.info(said);
  if (s.smsSubscribed > 0 || s.smsUnknown > 0) {
    const moved = `${s.smsSubscribed} contact(s) moved to SMS subscribed`;
    ctx.out.info(
      welcomeSms
        ? `${moved}; the service sent each a welcome SMS (--welcome-sms)`
        : `${moved}; no welcome SMS was sent (send_welcome_sms false; --welcome-sms sends them)`,
    );
    if (s.smsUnknown > 0)
      ctx.out.info(
        `${s.smsUnknown} row(s) wrote SMS subscribed to a contact whose SMS state before could not be read: whether it moved is unknown`,
      );
  }
  if (s.unconfirmed > 0) {
    ctx.out.info(
      `${s.unconfirmed} contact(s) unconfirmed: an earlier attempt ended without an answer, so whether this import created each is unknown (the contact is stored either way)${reportPath ? `; they are listed in ${reportPath}` : ''}`,
    );
  }
  if (reportPath) ctx.out.info(`report written to ${reportPath}`);
}

function printDryRun(ctx: Context, r: ContactDryRun, reportPath: string | undefined, mapping: Record<string, unknown>): void {
  const { summary: s, duplicates, rejected } = r;
  if (ctx.settings.json) {
    ctx.out.json({
      dry_run: true,
      mapping,
      rows: s.rows,
      valid: s.valid,
      rejected: s.rejected,
      rejected_rows: rejected.map((x) => ({ line: x.line, email: x.ids?.[0] ?? '', phone: x.ids?.[1] ?? '', message: x.message })),
      duplicates,
    });
    return;
  }
  const out = [`dry run: ${s.rows} contact row(s), ${s.valid} valid, ${s.rejected} rejected; nothing was sent`];
  for (const x of rejected.slice(0, 50)) out.push(`  line ${x.line}${x.id ? ` (${x.id})` : ''}: ${x.message}`);
  if (rejected.length > 50)
    out.push(`  … ${rejected.length - 50} more${reportPath ? ` in ${reportPath}` : ' (use --report FILE to see all)'}`);
  if (duplicates.length > 0) {
    out.push(`${duplicates.length} email(s) or phone(s) appear on several lines (sent in file order: the last line's values win):`);
    for (const d of duplicates.slice(0, 50)) out.push(`  ${d.person}: lines ${d.lines.join(', ')}`);
    if (duplicates.length > 50) out.push(`  … ${duplicates.length - 50} more`);
  }
  ctx.out.stdout(`${out.join('\n')}\n`);
}
