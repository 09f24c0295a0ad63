/**
 * The CLI's own error types. Each carries its exit code; main.ts maps these and the client's
 * errors (client/errors.ts) to exit codes and messages in one table.
 */

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  partial: 4,
  interrupted: 130,
} as const;

export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string;
  readonly hint?: string;
  /** The HTTP status and request id, when the error is about an answer of the service. */
  readonly status?: number;
  readonly requestId?: string;
  constructor(
    message: string,
    opts: { exitCode: number; code: string; hint?: string; cause?: unknown; status?: number; requestId?: string },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'CliError';
    this.exitCode = opts.exitCode;
    this.code = opts.code;
    this.hint = opts.hint;
    this.status = opts.status;
    this.requestId = opts.requestId;
  }
}

/**
 * Another error with a command's own hint (what its flags can do about it), printed on the hint
 * line instead of the generic one; everything else (exit code, code, status) is the error's.
 */
export class HintedError extends Error {
  constructor(
    readonly error: Error,
    readonly hint: string,
  ) {
    super(error.message, { cause: error });
    this.name = 'HintedError';
  }
}

/** Bad flags or arguments, found before any request (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT.usage, code: 'usage', hint });
    this.name = 'UsageError';
  }
}

/** Invalid input data (a field, a line of a file), found before any request (exit 2). */
export class ValidationError extends CliError {
  readonly field?: string;
  constructor(message: string, opts: { field?: string; hint?: string } = {}) {
    super(message, { exitCode: EXIT.usage, code: 'validation', hint: opts.hint });
    this.name = 'ValidationError';
    this.field = opts.field;
  }
}

/** Not logged in, or the credentials cannot do what the command needs (exit 3). */
export class AuthError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT.auth, code: 'auth', hint });
    this.name = 'AuthError';
  }
}

/** A bulk command finished with rejected or failed rows (exit 4); its summary is already printed. */
export class PartialFailure extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT.partial, code: 'partial_failure', hint });
    this.name = 'PartialFailure';
  }
}

/** Interrupted by the user (exit 130); progress has been saved. */
export class Interrupted extends CliError {
  constructor(message = 'interrupted', hint?: string) {
    super(message, { exitCode: EXIT.interrupted, code: 'interrupted', hint });
    this.name = 'Interrupted';
  }
}

/**
 * Ctrl-C (or Ctrl-D) at a prompt: exit 130 and nothing printed, as the person at the keyboard
 * already knows what happened.
 */
export class PromptCancelled extends Interrupted {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'PromptCancelled';
  }
}

/** A command exists in the contract but its implementation has not landed (exit 1). */
export class NotImplementedError extends CliError {
  constructor(command: string) {
    super(`\`svc ${command}\` is not available in this build yet`, { exitCode: EXIT.failure, code: 'not_implemented' });
    this.name = 'NotImplementedError';
  }
}
