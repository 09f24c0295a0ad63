/**
 * The resume journal of a bulk import: an append-only text file that records, durably, which rows
 * finished and how, so `--resume` can skip them and merge their outcomes into one summary.
 *
 * Format (one record per line):
 *   {"svc_journal":1,"kind":…,"file":{…},"options":{…}}   the identity it was made for
 *   B <boot id> [exact]                                     a run (this one or a resumed one) starts
 *                                                           writing, on that boot of the machine
 *   S <seq>                                                 every row up to seq may have been sent
 *   X <seq>                                                 (exact verbs) likewise, written before
 *                                                           each row's request, not fsynced
 *   D [seq,line,id,outcome,status,error_code,message]      a finished row (then, when the row has
 *                                                           them, its report id cells and marks)
 * Durability: `S` marks are written and fsynced *before* the rows they cover are sent, a window of
 * 256 rows at a time (the next written ahead); `D` records are fsynced in batches (256 rows or
 * 200 ms); these writes go through the thread pool, never blocking the event loop. A killed process
 * loses at most the rows in flight plus one batch — all of them sent again by the resumed run,
 * which reports them `unconfirmed` when they answer 200 (their first attempt may have applied).
 * A torn last line (killed mid-write) is ignored.
 *
 * Verbs that must never send a row twice (events) also write `X <seq>` before each request, a
 * small synchronous write without fsync: a killed process leaves it in the page cache, so a run
 * resumed on the same boot knows exactly which rows may have been sent (the ones in flight); after
 * a crash or power cut of the machine (another boot id) only the fsynced `S` marks count, so up to
 * a window of rows never sent is reported `unconfirmed` rather than ever sent twice.
 * (An fsync before every group of requests instead cost a third of `events send --file`'s
 * throughput: docs/performance.md.)
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { InputError, OutputError } from '../importer/errors.js';
import { acquireLock } from './journal-lock.js';
import { bootId, readMarks } from './start-marks.js';

export { JournalBusyError } from './journal-lock.js';

import type { RowResult } from './outcome.js';

export interface JournalIdentity {
  kind: string;
  /** What identifies the input: size and hashes of its first and last 64 KiB. */
  file: { size: number; head: string; tail: string };
  /** The options that shape requests (an output option such as --json is not one of them). */
  options: Record<string, unknown>;
  /**
   * The service's address the run sends to (its base URL). Not compared on --resume (a run may
   * continue against another address); it tells a resumed run whether the answers the journal
   * records came from the address it sends to now (bulk/outage.ts answeredBefore).
   */
  service?: string;
}

export interface ResumeState {
  /** Finished rows by seq. */
  done: Map<number, RowResult<string>>;
  /** Rows up to this seq may have been sent by the earlier run. */
  maybeSentUpTo: number;
  /** The address the journal was made against (JournalIdentity.service), when it says. */
  service?: string;
}

const START_WINDOW = 256;
const DONE_BATCH = 256;
const DONE_INTERVAL_MS = 200;

/** Size and head/tail hashes of a file (cheap even for a huge file; a changed file fails to match). */
export function fileFingerprint(path: string): JournalIdentity['file'] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const read = (position: number) => {
      const buf = Buffer.alloc(Math.min(64 * 1024, size));
      const n = readSync(fd, buf, 0, buf.length, position);
      return createHash('sha256').update(buf.subarray(0, n)).digest('hex').slice(0, 32);
    };
    return { size, head: read(0), tail: read(Math.max(0, size - 64 * 1024)) };
  } finally {
    closeSync(fd);
  }
}

/** `<report>.journal` next to the report, else one per input file in the data folder. */
export function defaultJournalPath(input: string, reportPath: string | undefined, dataDir: string, kind: string): string {
  if (reportPath) return `${reportPath}.journal`;
  const id = createHash('sha256').update(resolve(input)).digest('hex').slice(0, 16);
  return join(dataDir, 'journals', `${kind}-${id}.journal`);
}

function describeMismatch(a: JournalIdentity, b: JournalIdentity): string | undefined {
  if (a.kind !== b.kind) return `it records a ${a.kind} import`;
  if (a.file.size !== b.file.size || a.file.head !== b.file.head || a.file.tail !== b.file.tail)
    return 'it was made from a different file (or the file changed since)';
  const keys = new Set([...Object.keys(a.options), ...Object.keys(b.options)]);
  const diffs = [...keys].filter((k) => JSON.stringify(a.options[k] ?? null) !== JSON.stringify(b.options[k] ?? null));
  if (diffs.length > 0) {
    const show = (o: Record<string, unknown>, k: string) => JSON.stringify(o[k] ?? null);
    return `it was made with different options: ${diffs.map((k) => `${k} was ${show(a.options, k)}, now ${show(b.options, k)}`).join('; ')}`;
  }
  return undefined;
}

export class Journal {
  private fh: FileHandle | undefined;
  private pending: string[] = [];
  private lastFlush = Date.now();
  /** Rows up to this seq are covered by an `S` mark on disk. */
  private durableUpTo: number;
  /** The highest seq covered by an `S` mark written or being written. */
  private announcedUpTo: number;
  private markInFlight: Promise<void> | undefined;
  /** Writes happen one after the other, off the event loop (fsync on the thread pool). */
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** The highest seq of an `X` record written by this run. */
  private exactUpTo = 0;
  /** Whether this run wrote its `B` record. */
  private segmentOpened = false;

  private constructor(
    readonly path: string,
    fh: FileHandle,
    startedUpTo: number,
    private readonly lockPath: string,
  ) {
    this.fh = fh;
    this.durableUpTo = startedUpTo;
    this.announcedUpTo = startedUpTo;
  }

  /**
   * Takes the journal's lock without touching the journal (an earlier unfinished one stays until
   * `create`): returns its release. Refuses (InputError) while another run holds it.
   */
  static lock(path: string): () => void {
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new InputError(`cannot write the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const lockPath = acquireLock(path);
    return () => rmSync(lockPath, { force: true });
  }

  /** A new journal (replacing any earlier one at that path); takes the lock unless `locked` (from `lock`). */
  static async create(path: string, identity: JournalIdentity, opts: { locked?: boolean } = {}): Promise<Journal> {
    if (!opts.locked) Journal.lock(path);
    const lockPath = `${path}.lock`;
    let fh: FileHandle | undefined;
    try {
      fh = await open(path, 'w', 0o600);
      await fh.write(`${JSON.stringify({ svc_journal: 1, ...identity })}\n`);
      await fh.sync();
      return new Journal(path, fh, 0, lockPath);
    } catch (err) {
      await fh?.close().catch(() => undefined);
      rmSync(lockPath, { force: true });
      throw new InputError(`cannot write the journal ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }

  /** Whether a journal exists at the path (an unfinished earlier run). */
  static exists(path: string): boolean {
    return existsSync(path);
  }

  /**
   * Opens an existing journal to continue it. Refuses (InputError) when there is none or it
   * was made from another file or with other request-shaping options.
   */
  static async resume(path: string, identity: JournalIdentity, resumeHint: string): Promise<{ journal: Journal; state: ResumeState }> {
    if (!existsSync(path)) {
      throw new InputError(`nothing to resume: no journal at ${path}`, 'the earlier run finished (or never started); run without --resume');
    }
    const lockPath = acquireLock(path);
    try {
      return await Journal.continue(path, identity, resumeHint, lockPath);
    } catch (err) {
      rmSync(lockPath, { force: true });
      throw err;
    }
  }

  private static async continue(
    path: string,
    identity: JournalIdentity,
    resumeHint: string,
    lockPath: string,
  ): Promise<{ journal: Journal; state: ResumeState }> {
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n');
    let header: JournalIdentity;
    try {
      header = JSON.parse(lines[0] ?? '') as JournalIdentity;
    } catch {
      throw new InputError(`the journal at ${path} is unreadable`, 'delete it and run without --resume to start over');
    }
    const mismatch = describeMismatch(header, identity);
    if (mismatch) throw new InputError(`cannot resume with the journal at ${path}: ${mismatch}`, resumeHint);
    const done = readDone(lines);
    const starts = readMarks(lines);
    // A torn last line would glue onto the next record: start on a fresh line.
    const fh = await open(path, 'a', 0o600);
    if (text.length > 0 && !text.endsWith('\n')) await fh.write('\n');
    return {
      journal: new Journal(path, fh, starts.coveredUpTo, lockPath),
      state: { done, maybeSentUpTo: starts.maybeSentUpTo, service: header.service },
    };
  }

  private check(): void {
    if (this.failure !== undefined) {
      throw new OutputError('the resume journal', this.path, this.failure);
    }
  }

  /** Queues a write of everything pending, then fsync; resolves when it is on disk. */
  private write(): Promise<void> {
    const chunk = this.pending.join('');
    this.pending = [];
    this.lastFlush = Date.now();
    const fh = this.fh;
    if (!fh || chunk === '') return this.tail;
    this.tail = this.tail.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await fh.write(chunk);
        await fh.sync();
      } catch (err) {
        this.failure ??= err;
      }
    });
    return this.tail;
  }

  private announce(upTo: number): Promise<void> {
    this.announcedUpTo = upTo;
    this.pending.push(`S ${upTo}\n`);
    const written = this.write().then(() => {
      this.durableUpTo = Math.max(this.durableUpTo, upTo);
      if (this.markInFlight === written) this.markInFlight = undefined;
    });
    this.markInFlight = written;
    return written;
  }

  /**
   * Before sending row `seq`: makes sure a durable mark covers it. Marks cover 256 rows and the
   * next one is written ahead, in the background, so sending rarely waits for the disk.
   */
  markStarted(seq: number): void | Promise<void> {
    this.check();
    this.openSegment(false);
    if (seq <= this.durableUpTo) {
      if (seq > this.durableUpTo - START_WINDOW / 2 && this.announcedUpTo <= this.durableUpTo)
        this.announce(this.durableUpTo + START_WINDOW);
      return;
    }
    if (seq <= this.announcedUpTo && this.markInFlight) return this.markInFlight.then(() => this.markStarted(seq));
    return this.announce(seq + START_WINDOW - 1).then(() => this.markStarted(seq));
  }

  /**
   * Before sending row `seq` of a verb that must never send a row twice (events): a durable window
   * mark covers it (as markStarted), then an `X` record names it, written synchronously (no fsync)
   * so that it is in the file before the request leaves. Returns a promise only while the window
   * mark is being written.
   */
  markStartedExact(seq: number): void | Promise<void> {
    this.check();
    this.openSegment(true);
    const covered = this.markStarted(seq);
    if (covered) return covered.then(() => this.writeExact(seq));
    this.writeExact(seq);
  }

  private writeExact(seq: number): void {
    if (seq <= this.exactUpTo) return;
    this.exactUpTo = seq;
    this.writeNow(`X ${seq}\n`);
  }

  /** The `B` record of this run, before its first mark. */
  private openSegment(exact: boolean): void {
    if (this.segmentOpened) return;
    this.segmentOpened = true;
    this.writeNow(`B ${bootId()}${exact ? ' exact' : ''}\n`);
  }

  /** One small record written at once (one write call, so never torn by the thread pool's writes). */
  private writeNow(record: string): void {
    const fh = this.fh;
    if (!fh) return;
    try {
      writeSync(fh.fd, record);
    } catch (err) {
      this.failure ??= err;
      this.check();
    }
  }

  /** Records a finished row; on disk within a batch (256 rows or 200 ms). */
  markDone(r: RowResult<string>): void {
    this.check();
    this.pending.push(doneLine(r));
    if (this.pending.length >= DONE_BATCH || Date.now() - this.lastFlush >= DONE_INTERVAL_MS) void this.write();
  }

  /** Writes and fsyncs everything recorded so far. */
  async flush(): Promise<void> {
    await this.write();
    this.check();
  }

  /** Writes what is pending, closes the file and releases the lock (the journal stays for --resume). */
  async close(): Promise<void> {
    if (!this.fh) return;
    try {
      await this.flush();
    } finally {
      const fh = this.fh;
      this.fh = undefined;
      await fh.close().catch(() => undefined);
      rmSync(this.lockPath, { force: true });
    }
  }

  /** The import finished: the journal is no longer needed. */
  async remove(): Promise<void> {
    await this.close().catch(() => undefined);
    rmSync(this.path, { force: true });
  }
}

/** The `D` records of a journal: each row done, by its sequence number (a torn line is skipped: that row is sent again). */
function readDone(lines: string[]): Map<number, RowResult<string>> {
  const done = new Map<number, RowResult<string>>();
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!l.startsWith('D ')) continue;
    const row = doneRecord(l);
    if (row !== undefined) done.set(row.seq, row);
  }
  return done;
}

type DoneFields = [
  number,
  number,
  string,
  string,
  number | null,
  string | null,
  string | null,
  string[] | null | undefined,
  string[] | undefined,
];

function doneRecord(l: string): RowResult<string> | undefined {
  try {
    // Taken apart inside the try too: a record that is no array is a torn line as well.
    const [seq, line, id, outcome, status, errorCode, message, ids, marks] = JSON.parse(l.slice(2)) as DoneFields;
    return {
      seq,
      line,
      id,
      outcome,
      ...(status === null ? {} : { status }),
      ...(errorCode === null ? {} : { errorCode }),
      ...(message === null ? {} : { message }),
      ...(Array.isArray(ids) ? { ids } : {}),
      ...(Array.isArray(marks) ? { marks } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * A finished row's `D` record. The same JSON array either way; most rows carry no error code,
 * message or marks (a contact's report ids at most) and skip the general (slower) JSON.stringify
 * of the whole array.
 */
function doneLine(r: RowResult<string>): string {
  if (r.marks === undefined && r.errorCode === undefined && r.message === undefined && /^[a-z_]+$/.test(r.outcome)) {
    const ids = r.ids === undefined ? '' : `,${JSON.stringify(r.ids)}`;
    return `D [${r.seq},${r.line},${JSON.stringify(r.id)},"${r.outcome}",${r.status ?? 'null'},null,null${ids}]\n`;
  }
  const record: unknown[] = [r.seq, r.line, r.id, r.outcome, r.status ?? null, r.errorCode ?? null, r.message ?? null];
  if (r.ids !== undefined || r.marks !== undefined) record.push(r.ids ?? null);
  if (r.marks !== undefined) record.push(r.marks);
  return `D ${JSON.stringify(record)}\n`;
}
