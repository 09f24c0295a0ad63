/**
 * A text output of a bulk run written line by line as it goes (events send --unconfirmed-out):
 * each line reaches the file at once, so that what it lists survives a crash. A file that cannot
 * be opened is an InputError (before anything is sent); a failed write is an OutputError.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { InputError, OutputError } from '../importer/errors.js';

export class LineWriter {
  private fd: number | undefined;

  constructor(
    readonly path: string,
    private readonly what: string,
  ) {
    try {
      this.fd = openSync(path, 'w', 0o644);
    } catch (err) {
      throw new InputError(`cannot write ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }

  write(line: string): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, `${line}\n`);
    } catch (err) {
      throw new OutputError(this.what, this.path, err);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
