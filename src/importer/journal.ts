/**
 * The resume journal of a bulk import: an append-only text file that records, durably, which rows
 * finished and how, so `--resume` can skip them and merge their outcomes into one summary.
 * STABLE EXPORTS: Journal, JournalIdentity, ResumeState, fileFingerprint, defaultJournalPath.
 *
 * Format (one record per line):
 *   {"svc_journal":1,"kind":…,"file":{…},"options":{…}}   the identity it was made for
 *   S <seq>                                                 every row up to seq may have been sent
 *   D [seq,line,id,outcome,status,error_code,message]      a finished row
 * Durability: `S` marks are written and fsynced *before* the rows they cover are sent, a window of
 * 256 rows at a time; `D` records are fsynced in batches (256 rows or 200 ms), so a killed process
 * loses at most the rows in flight plus one batch — all of them sent again by the resumed run,
 * which reports them `unconfirmed` when they answer 200 (their first attempt may have applied).
 * A torn last line (killed mid-write) is ignored.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import type { RowResult } from './report.js';

export interface JournalIdentity {
  kind: string;
  /** What identifies the input: size and hashes of its first and last 64 KiB. */
  file: { size: number; head: string; tail: string };
  /** The options that shape requests (an output option such as --json is not one of them). */
  options: Record<string, unknown>;
}

export interface ResumeState {
  /** Finished rows by seq. */
  done: Map<number, RowResult<string>>;
  /** Rows up to this seq may have been sent by the earlier run. */
  maybeSentUpTo: number;
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
  private fd: number;
  private pending: string[] = [];
  private lastFlush = Date.now();
  private startedUpTo: number;

  private constructor(
    readonly path: string,
    fd: number,
    startedUpTo: number,
  ) {
    this.fd = fd;
    this.startedUpTo = startedUpTo;
  }

  /** A new journal (replacing any earlier one at that path). */
  static create(path: string, identity: JournalIdentity): Journal {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(path, 'w', 0o600);
    writeSync(fd, `${JSON.stringify({ svc_journal: 1, ...identity })}\n`);
    fsyncSync(fd);
    return new Journal(path, fd, 0);
  }

  /** Whether a journal exists at the path (an unfinished earlier run). */
  static exists(path: string): boolean {
    return existsSync(path);
  }

  /**
   * Opens an existing journal to continue it. Refuses (UsageError, exit 2) when there is none or it
   * was made from another file or with other request-shaping options.
   */
  static resume(path: string, identity: JournalIdentity, resumeHint: string): { journal: Journal; state: ResumeState } {
    if (!existsSync(path)) {
      throw new UsageError(`nothing to resume: no journal at ${path}`, 'the earlier run finished (or never started); run without --resume');
    }
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n');
    let header: JournalIdentity;
    try {
      header = JSON.parse(lines[0] ?? '') as JournalIdentity;
    } catch {
      throw new UsageError(`the journal at ${path} is unreadable`, 'delete it and run without --resume to start over');
    }
    const mismatch = describeMismatch(header, identity);
    if (mismatch) throw new UsageError(`cannot resume with the journal at ${path}: ${mismatch}`, resumeHint);
    const done = new Map<number, RowResult<string>>();
    let maybeSentUpTo = 0;
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i] as string;
      if (l.startsWith('S ')) {
        const n = Number(l.slice(2));
        if (Number.isInteger(n)) maybeSentUpTo = Math.max(maybeSentUpTo, n);
      } else if (l.startsWith('D ')) {
        try {
          const [seq, line, id, outcome, status, errorCode, message] = JSON.parse(l.slice(2)) as [
            number,
            number,
            string,
            string,
            number | null,
            string | null,
            string | null,
          ];
          done.set(seq, {
            seq,
            line,
            id,
            outcome,
            ...(status === null ? {} : { status }),
            ...(errorCode === null ? {} : { errorCode }),
            ...(message === null ? {} : { message }),
          });
        } catch {
          /* a torn last line: that row is sent again */
        }
      }
    }
    const fd = openSync(path, 'a', 0o600);
    return { journal: new Journal(path, fd, maybeSentUpTo), state: { done, maybeSentUpTo } };
  }

  /** Before sending row `seq`: makes sure a durable mark covers it (one fsync per 256 rows). */
  markStarted(seq: number): void {
    if (seq <= this.startedUpTo) return;
    this.startedUpTo = seq + START_WINDOW - 1;
    this.pending.push(`S ${this.startedUpTo}\n`);
    this.flush();
  }

  /** Records a finished row; durable within a batch. */
  markDone(r: RowResult<string>): void {
    this.pending.push(`D ${JSON.stringify([r.seq, r.line, r.id, r.outcome, r.status ?? null, r.errorCode ?? null, r.message ?? null])}\n`);
    if (this.pending.length >= DONE_BATCH || Date.now() - this.lastFlush >= DONE_INTERVAL_MS) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    fsyncSync(this.fd);
    this.lastFlush = Date.now();
  }

  close(): void {
    if (this.fd < 0) return;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
  }

  /** The import finished: the journal is no longer needed. */
  remove(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}
