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
