/**
 * The bulk engine's and the importer's own error: an input, option or file of a bulk run that
 * cannot be used, found before anything is sent. The CLI's entry maps it to exit 2.
 */
export class InputError extends Error {
  /** What to do about it. */
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'InputError';
    this.hint = hint;
  }
}

/**
 * An output of a bulk run (the report, the journal, the unconfirmed lines) could not be written
 * while the run was going (a full disk, a device error). The run stops sending; the CLI prints
 * the summary of what was done and how to continue, then exits 1.
 */
export class OutputError extends Error {
  readonly path: string;
  constructor(what: string, path: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ENOSPC' ? 'no space left on the device (ENOSPC)' : (code ?? (cause as Error).message);
    super(`cannot write ${what} ${path}: ${reason}`, { cause });
    this.name = 'OutputError';
    this.path = path;
  }
}

/**
 * A guard of a real import stopped it before anything was sent (bulk/plan/guards-read.ts): too
 * many historical orders sent live, rows that would lift a suppression (exit 2), or credentials
 * that cannot read what the guard must (`auth`: exit 3). `code` is the error's machine code.
 */
export class GuardError extends Error {
  readonly code: string;
  readonly hint?: string;
  readonly kind: 'usage' | 'auth';
  constructor(message: string, opts: { code: string; hint?: string; kind?: 'usage' | 'auth' }) {
    super(message);
    this.name = 'GuardError';
    this.code = opts.code;
    this.hint = opts.hint;
    this.kind = opts.kind ?? 'usage';
  }
}
