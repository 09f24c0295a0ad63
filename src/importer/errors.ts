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
