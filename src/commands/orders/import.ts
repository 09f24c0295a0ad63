/**
 * svc orders import FILE|-: streams a CSV through the importer (src/importer/) and prints the
 * contract's summary (table on a TTY, JSON with --json), writes --report, keeps a resume journal.
 */
import { existsSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { describeInvalid, findInvalidUtf8, type InputEncoding, parseEncoding } from '../../bulk/decode.js';
import { InputError } from '../../bulk/errors.js';
import { openInput } from '../../bulk/input.js';
import {
  defaultJournalPath,
  fileFingerprint,
  Journal,
  JournalBusyError,
  type JournalIdentity,
  type ResumeState,
} from '../../bulk/journal.js';
import { checkRunPaths, inputKind, type PathUse } from '../../bulk/paths.js';
import { openReport, type ReportWriter } from '../../bulk/report.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, Interrupted, PartialFailure, UsageError } from '../../errors.js';
import { openCsv } from '../../importer/csv-source.js';
import { type MappingOptions, parseMaps } from '../../importer/mapping.js';
import { createOrderImport, DEFAULT_CONCURRENCY, dryRunOrders } from '../../importer/orders.js';
import { parseDelimiter } from '../../importer/sniff.js';
import { shellQuote } from '../../io/shell-quote.js';
import { sizeYoungGeneration } from '../../util/heap.js';
import { normalizeCountry } from '../../util/phone.js';
import {
  describeMapping,
  importLayout,
  loadImportMapping,
  mappingDefaultCountry,
  mappingIdentity,
  mappingResumeArgs,
  warnIgnored,
} from './import-mapping.js';
import { printDryRun, printSummary, showProgress } from './import-output.js';
import { resolveIntegrationToken } from './token.js';

export interface ImportOptions {
  initialSync?: boolean;
  concurrency?: number;
  report?: string;
  dryRun?: boolean;
  resume?: boolean;
  map?: string[];
  defaultCountry?: string;
  delimiter?: string;
  integrationTokenStdin?: boolean;
  journal?: string;
  encoding?: string;
  preset?: string;
  mapFile?: string;
  dateOrder?: string;
}

/** The command that continues this import (request-shaping options included). */
function resumeCommand(file: string, opts: ImportOptions): string {
  const parts = ['svc', 'orders', 'import', shellQuote(file), '--resume'];
  if (opts.initialSync) parts.push('--initial-sync');
  parts.push(...mappingResumeArgs(opts, shellQuote));
  for (const m of opts.map ?? []) parts.push('--map', shellQuote(m));
  if (opts.defaultCountry) parts.push('--default-country', opts.defaultCountry);
  if (opts.delimiter) parts.push('--delimiter', shellQuote(opts.delimiter));
  if (opts.encoding) parts.push('--encoding', shellQuote(opts.encoding));
  if (opts.concurrency) parts.push('--concurrency', String(opts.concurrency));
  if (opts.report) parts.push('--report', shellQuote(opts.report));
  if (opts.journal) parts.push('--journal', shellQuote(opts.journal));
  if (opts.integrationTokenStdin) parts.push('--integration-token-stdin');
  return parts.join(' ');
}

export async function run(args: string[], opts: ImportOptions, ctx: Context): Promise<number> {
  const file = args[0];
  if (!file) throw new UsageError('give the CSV file to import (or - for stdin)', 'svc orders import orders.csv --initial-sync');
  const fromStdin = file === '-';
  if (fromStdin && opts.resume)
    throw new UsageError('--resume needs a file: stdin cannot be read again', 'save the data to a file and import that');
  if (fromStdin && opts.integrationTokenStdin) {
    throw new UsageError('--integration-token-stdin cannot be used when the CSV comes from stdin', 'set SVC_INTEGRATION_TOKEN instead');
  }
  if (!fromStdin) {
    if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
    if (statSync(file).isDirectory()) throw new UsageError(`${file} is a folder, not a CSV file`);
  }
  if (opts.dryRun && opts.resume) throw new UsageError('--dry-run and --resume do not go together');
  // A pipe, FIFO or device can be read only once: it imports, but keeps no journal to resume.
  const resumable = !fromStdin && inputKind(file, 'the input') === 'file';
  if (!fromStdin && !resumable && (opts.resume || opts.journal !== undefined)) {
    throw new UsageError(
      `${opts.resume ? '--resume' : '--journal'} needs a regular file: ${file} is a pipe or device, which cannot be read a second time`,
      'save the data to a file and import that to be able to resume',
    );
  }
  const { mapFile, dateOrder } = loadImportMapping(opts);
  const delimiter = opts.delimiter === undefined ? mapFile?.delimiter : parseDelimiter(opts.delimiter);
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  const maps = parseMaps(opts.map ?? []);
  let defaultCountry: MappingOptions['defaultCountry'];
  if (opts.defaultCountry !== undefined) {
    defaultCountry = normalizeCountry(opts.defaultCountry);
    if (!defaultCountry)
      throw new UsageError(
        `--default-country must be an ISO 3166 country code such as US or DE, got ${JSON.stringify(opts.defaultCountry)}`,
      );
  }
  defaultCountry = mappingDefaultCountry(defaultCountry, mapFile);
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const journalPath =
    resumable && !opts.dryRun ? (opts.journal ?? defaultJournalPath(file, opts.report, ctx.dataDir, 'orders')) : undefined;
  // Nothing is opened before every output is known not to be the input or another output.
  const outputs: PathUse[] = [];
  if (opts.report !== undefined) outputs.push({ what: '--report', path: opts.report });
  if (journalPath !== undefined) outputs.push({ what: opts.journal !== undefined ? '--journal' : 'the journal', path: journalPath });
  checkRunPaths(fromStdin ? [] : [{ what: 'the input', path: file }], outputs, { createFolders: ['the journal', '--journal'] });
  if (resumable && (encoding ?? 'utf-8') === 'utf-8') {
    // Before anything is sent: bytes that are not UTF-8 would otherwise turn into U+FFFD and
    // merge different order ids (a Latin-1 file's Müller-1 and Möller-1).
    const bad = await findInvalidUtf8(file, ctx.signal);
    if (bad) throw new InputError(`${file}: ${describeInvalid(bad)}`);
  }
  // A long import allocates fast and keeps little: a new space of 8 MiB (V8 starts at 1 MiB and
  // may grow it to 16) halves the scavenges and lowers the peak RSS (util/heap.ts).
  sizeYoungGeneration();

  // Everything that can be checked before a request: the token source, the header, the journal.
  const integrationToken = opts.dryRun ? undefined : await resolveIntegrationToken(ctx, opts.integrationTokenStdin === true);
  const input: Readable = fromStdin ? ctx.io.stdin : await openInput(file, { signal: ctx.signal, highWaterMark: 64 * 1024 });
  const name = fromStdin ? 'stdin' : file;
  const source = await openCsv(input, { delimiter, name, encoding, signal: ctx.signal, live: !resumable });
  const layout = importLayout(name, source.header, maps, mapFile, source.delimiter);
  warnIgnored(ctx, layout, mapFile);
  const mapping: MappingOptions = { delimiter: source.delimiter, defaultCountry, dateOrder, initialSync: opts.initialSync === true };
  const totalBytes = resumable ? statSync(file).size : undefined;

  let report: ReportWriter<string> | undefined;
  if (opts.dryRun) {
    report = opts.report ? openReport(opts.report, { idColumn: 'order_id' }) : undefined;
    ctx.out.info(describeMapping(layout, mapFile, dateOrder));
    const result = await dryRunOrders(source, layout, mapping, report);
    report?.close();
    printDryRun(ctx, result.summary, result.duplicates, result.rejected, opts.report);
    return result.summary.rejected > 0 ? EXIT.partial : EXIT.ok;
  }

  // Credentials and scope before the journal: a run that cannot send must not leave one behind
  // (the next run would warn about an "unfinished import" that never started).
  const client = await ctx.client();
  await client.ensureScope('upsertOrder');

  let journal: Journal | undefined;
  let resume: ResumeState | undefined;
  if (journalPath) {
    const identity: JournalIdentity = {
      kind: 'orders',
      file: fileFingerprint(file),
      options: {
        initial_sync: opts.initialSync === true,
        map: [...maps].sort(([a], [b]) => a.localeCompare(b)),
        default_country: defaultCountry ?? null,
        delimiter: source.delimiter,
        ...(encoding !== undefined ? { encoding } : {}),
        ...mappingIdentity(mapFile, dateOrder),
      },
    };
    if (opts.resume) {
      const opened = await Journal.resume(
        journalPath,
        identity,
        'run with the options of the interrupted import, or without --resume to start over',
      );
      journal = opened.journal;
      resume = opened.state;
    } else {
      // The lock, then the report: another import of the file keeps its report; and if the
      // report cannot be written, the journal of an earlier unfinished run is still there to resume.
      let unlock: () => void;
      try {
        unlock = Journal.lock(journalPath);
      } catch (err) {
        // Not another run, but a folder that takes no journal: when the report beside it is the
        // real problem (--report /proc/version), its own error says so.
        if (!(err instanceof JournalBusyError)) openReportOf(opts.report)?.close({ complete: false });
        throw err;
      }
      try {
        report = openReportOf(opts.report);
      } catch (err) {
        unlock();
        throw err;
      }
      if (Journal.exists(journalPath))
        ctx.log.warn(
          `starting over: the journal of an unfinished import at ${journalPath} is replaced (use --resume to continue it instead)`,
        );
      journal = await Journal.create(journalPath, identity, { locked: true });
    }
  }

  if (!report && opts.report) {
    // Resuming (the journal was checked first, so a refused resume leaves the old report as it
    // was), or reading stdin (no journal).
    try {
      report = openReportOf(opts.report);
    } catch (err) {
      await journal?.close().catch(() => undefined);
      throw err;
    }
  }
  const job = createOrderImport({
    source,
    layout,
    mapping,
    client,
    integrationToken,
    concurrency,
    signal: ctx.signal,
    report,
    journal,
    resume,
  });
  const stopProgress = await showProgress(ctx, job.progress, totalBytes);
  let result: Awaited<ReturnType<typeof job.run>>;
  try {
    result = await job.run();
  } catch (err) {
    stopProgress();
    await journal?.close().catch(() => undefined);
    report?.close({ complete: false });
    throw err;
  }
  stopProgress();
  const complete = !result.interrupted && result.fatal === undefined && result.failure === undefined;
  let failure = result.failure;
  try {
    report?.close({ complete });
  } catch (err) {
    failure ??= err;
  }
  if (complete && failure === undefined) await journal?.remove();
  else
    await journal?.close().catch((err: unknown) => {
      failure ??= err;
    });

  if (result.fatal !== undefined) {
    ctx.out.info(`stopped after ${result.summary.rows} row(s): every further row would fail the same way`);
    if (journalPath) ctx.out.info(`progress saved; once fixed, continue with: ${resumeCommand(file, opts)}`);
    throw result.fatal;
  }
  if (failure !== undefined && !result.interrupted) {
    // The run itself failed (a full disk for the report or journal, an unreadable input): what
    // was done is counted and saved; say so, then how to go on.
    printSummary(ctx, result.summary, undefined, false);
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new CliError(`the import stopped after ${result.summary.rows} finished row(s): ${reason}`, {
      exitCode: EXIT.failure,
      code: (failure as { name?: string }).name === 'OutputError' ? 'output_error' : 'run_failed',
      hint: journalPath
        ? `progress saved in ${journalPath}; once fixed, continue with: ${resumeCommand(file, opts)}`
        : 'the rows above were sent; a piped input cannot be resumed: import a file to be able to continue',
      cause: failure,
    });
  }
  printSummary(ctx, result.summary, opts.report, result.interrupted);
  if (result.interrupted) {
    throw new Interrupted(
      `interrupted after ${result.summary.rows} finished row(s)${journalPath ? `; progress saved in ${journalPath}` : ''}`,
      journalPath
        ? `continue with: ${resumeCommand(file, opts)}`
        : `${fromStdin ? 'stdin' : 'a pipe or device'} cannot be resumed: import a file to be able to continue an interrupted run`,
    );
  }
  const s = result.summary;
  if ((s.rejected > 0 || s.failed > 0) && !ctx.settings.json) {
    for (const p of result.problems)
      ctx.out.info(
        `  line ${p.line}${p.id ? ` (${p.id})` : ''}: ${p.outcome}${p.status ? ` ${p.status}` : ''}${p.errorCode ? ` ${p.errorCode}` : ''}: ${p.message ?? ''}`,
      );
    const more = s.rejected + s.failed - result.problems.length;
    if (more > 0) ctx.out.info(`  … and ${more} more`);
  }
  if (s.rejected > 0 || s.failed > 0) {
    throw new PartialFailure(
      `${s.rejected} row(s) rejected and ${s.failed} failed out of ${s.rows}${opts.report ? `; see ${opts.report}` : ' (rerun with --report FILE to see each row)'}`,
    );
  }
  return EXIT.ok;
}

function openReportOf(path: string | undefined): ReportWriter<string> | undefined {
  return path ? openReport(path, { idColumn: 'order_id' }) : undefined;
}
