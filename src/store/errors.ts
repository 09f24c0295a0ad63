/**
 * The store's own errors. They know nothing of exit codes: main.ts maps them (a SettingsError is
 * a usage error, a StoreError a failure).
 */

/** A flag, environment variable or setting value that cannot be used (a bad base URL, duration, …). */
export class SettingsError extends Error {
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(message);
    this.name = 'SettingsError';
    this.hint = hint;
  }
}

/** What is wrong with the credential store itself. */
export type StoreErrorKind = 'invalid_file' | 'locked';

/** The credential store cannot be used (a hand-edited or truncated file, a lock never released). */
export class StoreError extends Error {
  readonly kind: StoreErrorKind;
  /** The file concerned. */
  readonly path: string;
  constructor(kind: StoreErrorKind, path: string, message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'StoreError';
    this.kind = kind;
    this.path = path;
  }
}
