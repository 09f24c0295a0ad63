/**
 * A bulk job's input and outputs checked before anything is opened: the file exists and is not a
 * folder, --resume and --journal have a regular file, no output is the input or another output,
 * a file that must be UTF-8 is, and where the journal goes. Then the CSV reader on the input.
 * Every refusal is an InputError (exit 2), found before a request.
 */
import { existsSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { InputError } from '../importer/errors.js';
import { openInput } from '../util/open-input.js';
import type { JobEnv } from './job-env.js';
import { defaultJournalPath } from './journal.js';
import { checkRunPaths, inputKind, type PathUse } from './paths.js';
import { type CsvSource, openCsv } from './sources/csv-source.js';
import { describeInvalid, findInvalidUtf8, type InputEncoding, parseEncoding } from './sources/decode.js';
import { describeMixedLineEnd, findMixedLineEnd, LINE_END_NAMES, type MixedLineEnd } from './sources/line-ends.js';

/** The options every bulk verb takes that concern its input and outputs. */
export interface ImportIoOptions {
  report?: string;
  rejects?: string;
  rejectsIncludeFailed?: boolean;
  dryRun?: boolean;
  /** --plan sends nothing either: no journal, as a dry run. */
  plan?: boolean;
  resume?: boolean;
  journal?: string;
  encoding?: string;
}

export interface ImportInput {
  file: string;
  fromStdin: boolean;
  /** A regular file: it can be read twice (fingerprint, resume) and keeps a journal. */
  resumable: boolean;
  encoding?: InputEncoding;
  journalPath?: string;
  /** orders or contacts: which header an empty input's message shows. */
  kind?: string;
}

/** --rejects-include-failed needs --rejects. */
export function checkRejectsOptions(opts: { rejects?: string; rejectsIncludeFailed?: boolean }): void {
  if (opts.rejectsIncludeFailed && opts.rejects === undefined)
    throw new InputError('--rejects-include-failed goes with --rejects FILE', 'e.g. --rejects rejects.csv --rejects-include-failed');
}

/** A socket cannot be opened by its path (ENXIO): as /dev/stdin it is read as stdin; any other is refused. */
function isStdinSocket(file: string, example: string): boolean {
  const socket = file !== '-' && existsSync(file) && statSync(file).isSocket();
  if (socket && !/^\/dev\/(stdin|fd\/0)$|^\/proc\/self\/fd\/0$/.test(file))
    throw new InputError(
      `${file} is a socket: svc reads CSV from files, FIFOs and stdin`,
      'pipe it in: … | ' + example.replace(/ \S+\.csv/, ' -'),
    );
  return socket;
}

/**
 * Checks a CSV input before anything is opened: it exists and is not a folder, --resume and
 * --journal have a regular file, and the encoding is one svc reads.
 */
export function checkImportInput(
  file: string | undefined,
  opts: ImportIoOptions,
  env: Pick<JobEnv, 'dataDir'>,
  kind: string,
  example: string,
): ImportInput {
  if (!file) throw new InputError('give the CSV file to import (or - for stdin)', example);
  const fromStdin = file === '-' || isStdinSocket(file, example);
  if (!fromStdin) {
    if (!existsSync(file)) throw new InputError(`no such file: ${file}`);
    if (statSync(file).isDirectory()) throw new InputError(`${file} is a folder, not a CSV file`);
  }
  checkRejectsOptions(opts);
  const journal = journalOf(file, fromStdin, 'the input', { ...opts, dryRun: opts.dryRun || opts.plan }, env, kind);
  const encoding: InputEncoding | undefined = opts.encoding === undefined ? undefined : parseEncoding(opts.encoding);
  return { file, fromStdin, ...journal, encoding, kind };
}

/**
 * Whether a bulk verb's input can be resumed, and where its journal goes (none for stdin, a pipe
 * or device, or a dry run), after the checks of --resume and --journal every bulk verb makes.
 */
export function journalOf(
  file: string,
  fromStdin: boolean,
  what: string,
  opts: { resume?: boolean; journal?: string; dryRun?: boolean; report?: string },
  env: Pick<JobEnv, 'dataDir'>,
  kind: string,
): { resumable: boolean; journalPath?: string } {
  if (fromStdin && opts.resume)
    throw new InputError('--resume needs a file: stdin cannot be read again', 'save the data to a file and run on that');
  if (opts.dryRun && opts.resume) throw new InputError('--dry-run and --resume do not go together');
  // A pipe, FIFO or device can be read only once: it runs, but keeps no journal to resume.
  const resumable = !fromStdin && inputKind(file, what) === 'file';
  if (!fromStdin && !resumable && (opts.resume || opts.journal !== undefined)) {
    throw new InputError(
      `${opts.resume ? '--resume' : '--journal'} needs a regular file: ${file} is a pipe or device, which cannot be read a second time`,
      'save the data to a file and run on that to be able to resume',
    );
  }
  const journalPath = resumable && !opts.dryRun ? (opts.journal ?? defaultJournalPath(file, opts.report, env.dataDir, kind)) : undefined;
  return { resumable, journalPath };
}

/** The journal among a run's outputs, and the checkRunPaths options that go with it. */
export function journalOutput(journalPath: string | undefined, opts: { journal?: string }): PathUse[] {
  return journalPath === undefined ? [] : [{ what: opts.journal !== undefined ? '--journal' : 'the journal', path: journalPath }];
}

/** checkRunPaths' options for the journal: its default folder is created, it must be a regular file. */
export const JOURNAL_PATH_RULES = { createFolders: ['the journal'], regularFiles: ['the journal', '--journal'] };

/**
 * checkRunPaths for a job's input and outputs (`outputs`: the flag naming each, and its path;
 * the journal added): no output is the input, another output or svc's own stdout or stderr.
 */
export function checkJobPaths(
  env: Pick<JobEnv, 'standardFiles'>,
  input: { what: string; path: string } | undefined,
  outputs: Array<[what: string, path: string | undefined]>,
  journal: { path: string | undefined; given?: string },
): void {
  const uses: PathUse[] = outputs.flatMap(([what, path]) => (path === undefined ? [] : [{ what, path }]));
  uses.push(...journalOutput(journal.path, { journal: journal.given }));
  // The default journal's folder is created; one given with --journal must exist, as a report's must.
  checkRunPaths(input ? [input] : [], uses, { ...JOURNAL_PATH_RULES, standard: env.standardFiles?.() });
}

/** The CSV reader on the input: stdin, or the file (a FIFO read as it comes, a regular file by the thread pool). */
export async function openImportCsv(input: ImportInput, env: JobEnv, delimiter: string | undefined): Promise<CsvSource> {
  const stream: Readable = input.fromStdin ? env.stdin : await openInput(input.file, { signal: env.signal, highWaterMark: 64 * 1024 });
  const name = input.fromStdin ? 'stdin' : input.file;
  const exampleHeader = input.kind === 'contacts' ? 'email,phone,first_name,last_name,email_consent' : undefined;
  const onMixedLineEnd = (m: MixedLineEnd) =>
    env.warn(
      `${name}: line ${m.line} ends with ${LINE_END_NAMES[m.found]} where the header line ends with ${LINE_END_NAMES[m.expected]}: each line is read as its own row, as written`,
    );
  return openCsv(stream, {
    delimiter,
    name,
    encoding: input.encoding,
    signal: env.signal,
    live: !input.resumable,
    exampleHeader,
    onMixedLineEnd,
  });
}

/** checkRunPaths for an import's input, report and journal, then the UTF-8 scan of a file (before anything is sent). */
export async function checkImportOutputs(input: ImportInput, opts: ImportIoOptions, env: JobEnv): Promise<void> {
  checkJobPaths(
    env,
    input.fromStdin ? undefined : { what: 'the input', path: input.file },
    [
      ['--report', opts.report],
      ['--rejects', opts.rejects],
    ],
    { path: input.journalPath, given: opts.journal },
  );
  if (input.resumable && (input.encoding ?? 'utf-8') === 'utf-8') {
    // Before anything is sent: bytes that are not UTF-8 would otherwise turn into U+FFFD and
    // merge different keys (a Latin-1 file's Müller-1 and Möller-1).
    const bad = await findInvalidUtf8(input.file, env.signal);
    if (bad) throw new InputError(`${input.file}: ${describeInvalid(bad)}`);
  }
  if (input.resumable && !/^utf-?16/i.test(input.encoding ?? '')) {
    const mixed = await findMixedLineEnd(input.file, env.signal);
    if (mixed)
      throw new InputError(
        describeMixedLineEnd(input.file, mixed),
        'give it one kind of line end first (e.g. `dos2unix FILE`, or save it again from the spreadsheet)',
      );
  }
}
