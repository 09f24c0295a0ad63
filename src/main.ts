/**
 * The entry point: main(argv) → exit code. The only module that maps errors to exit codes and
 * the only one that touches process (signals, streams, env) — and only for real runs.
 */
import {
  ApiError,
  CredentialsError,
  IncompleteListingError,
  isWrongTokenEndpoint,
  MissingScopeError,
  NetworkError,
  RetryWaitTooLongError,
  UnsendableRequestError,
} from './client/errors.js';
import { UnknownRouteError } from './client/route-check.js';
import {
  baseUrlFrom,
  headersTooLargeHint,
  integrationTokenHint,
  missingScopeHint,
  refusedConnectionHint,
  refusedCredentialsHint,
  STORE_ERRORS,
} from './commands/error-hints.js';
import type { Context, IntegrationTokenOrigin } from './context.js';
import { messageWithDetails } from './contract/errors.js';
import { CliError, EXIT, HintedError, PromptCancelled } from './errors.js';
import { GuardError, InputError, OutputError } from './importer/errors.js';
import { escapeControls } from './io/escape.js';
import { type IOStreams, systemStreams } from './io/streams.js';
import { messageWidth, wrapMessage } from './io/wrap.js';
import { SettingsError, StoreError } from './store/errors.js';
import { Redactor } from './store/redact.js';
import type { Env, GlobalFlags } from './store/settings.js';
import type { CredentialOrigin } from './wiring/client.js';

declare const __SVC_VERSION__: string;

export interface MainOverrides {
  io?: IOStreams;
  env?: Env;
  now?: () => number;
  random?: () => number;
  signal?: AbortSignal;
}

export interface ErrorReport {
  exitCode: number;
  code: string;
  message: string;
  hint?: string;
  status?: number;
  id?: string;
  requestId?: string;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}

/**
 * The one table from errors to exit codes and messages (cli.md "Exit codes"). `origin` (where the
 * run's credentials came from) makes the hints of refused credentials say what to check.
 */
export function describeError(err: unknown, origin?: CredentialOrigin, integration?: IntegrationTokenOrigin): ErrorReport {
  if (err instanceof HintedError) return { ...describeError(err.error, origin, integration), hint: err.hint };
  for (const describe of ERROR_TABLE) {
    const report = describe(err, origin, integration);
    if (report) return report;
  }
  if (isAbort(err)) return { exitCode: EXIT.interrupted, code: 'interrupted', message: 'interrupted' };
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.failure, code: 'unexpected', message: `unexpected error: ${message}`, hint: 'rerun with --debug for details' };
}

type Describe = (err: unknown, origin?: CredentialOrigin, integration?: IntegrationTokenOrigin) => ErrorReport | undefined;

/** One row of the table: the report of an error of class `kind`, undefined for any other error. */
function row<E>(
  kind: abstract new (...args: never[]) => E,
  report: (err: E, origin?: CredentialOrigin, integration?: IntegrationTokenOrigin) => ErrorReport,
): Describe {
  return (err, origin, integration) => (err instanceof kind ? report(err, origin, integration) : undefined);
}

/** In order: the first class an error is an instance of decides its report. */
const ERROR_TABLE: Describe[] = [
  row(CliError, (err) => ({
    exitCode: err.exitCode,
    code: err.code,
    message: err.message,
    hint: err.hint,
    status: err.status,
    requestId: err.requestId,
  })),
  row(InputError, (err) => ({ exitCode: EXIT.usage, code: 'usage', message: err.message, hint: err.hint })),
  row(OutputError, (err) => ({ exitCode: EXIT.failure, code: 'output_error', message: err.message })),
  row(GuardError, (err) => ({
    exitCode: err.kind === 'auth' ? EXIT.auth : EXIT.usage,
    code: err.code,
    message: err.message,
    hint: err.hint,
  })),
  row(SettingsError, (err) => ({ exitCode: EXIT.usage, code: 'usage', message: err.message, hint: err.hint })),
  row(StoreError, (err) => ({ exitCode: EXIT.failure, message: err.message, ...STORE_ERRORS[err.kind] })),
  row(MissingScopeError, (err, origin) => ({
    exitCode: EXIT.auth,
    code: 'insufficient_scope',
    message: err.message,
    hint: missingScopeHint(err.scope, origin),
  })),
  row(CredentialsError, (err) => ({ exitCode: EXIT.auth, code: 'not_logged_in', message: err.message, hint: err.hint })),
  row(ApiError, describeApiError),
  row(UnknownRouteError, (err, origin) => ({
    exitCode: EXIT.failure,
    code: 'unknown_route',
    message: err.message,
    hint: err.doubledVersion
      ? `does the base URL end in /v1? It must not: it is the service's root (now ${baseUrlFrom(origin)}); svc adds /v1/… itself`
      : `is the base URL right? It is the service's root (now ${baseUrlFrom(origin)}); svc adds /v1/… to it`,
    status: 404,
    requestId: err.requestId,
  })),
  row(IncompleteListingError, (err) => ({ exitCode: EXIT.failure, code: err.code, message: err.message })),
  row(RetryWaitTooLongError, (err) => ({ exitCode: EXIT.failure, code: 'retry_wait_too_long', message: err.message, status: err.status })),
  row(UnsendableRequestError, (err) => ({
    exitCode: EXIT.usage,
    code: 'unsendable_request',
    message: err.message,
    hint: 'a credential holds a line break or control character: check SVC_TOKEN / SVC_INTEGRATION_TOKEN, or `svc auth login` again',
  })),
  row(NetworkError, (err, origin) => ({
    exitCode: EXIT.failure,
    code: 'network_error',
    message: err.message,
    hint: err.kind === 'refused' ? refusedConnectionHint(origin) : undefined,
  })),
];

/** The service's error: its message and details, the status, route and request id, and the hint for its kind. */
function describeApiError(err: ApiError, origin?: CredentialOrigin, integration?: IntegrationTokenOrigin): ErrorReport {
  const route = err.path && err.method && !err.path.startsWith(`${err.method} `) ? `${err.method} ${err.path}` : err.path;
  const where = route ? ` (${route})` : '';
  return {
    exitCode: err.isAuthError ? EXIT.auth : EXIT.failure,
    code: err.code,
    message: `${messageWithDetails(err.message, err.details)} — HTTP ${err.status}${where}${err.requestId ? `, request id ${err.requestId}` : ''}`,
    hint: apiErrorHint(err, origin, integration),
    status: err.status,
    id: err.id,
    requestId: err.requestId,
  };
}

function apiErrorHint(err: ApiError, origin?: CredentialOrigin, integration?: IntegrationTokenOrigin): string | undefined {
  if (err.code === 'insufficient_scope') return missingScopeHint(err.requiredScope ?? 'the missing scope', origin);
  if (err.code === 'invalid_client' || err.kind === 'unauthorized' || err.code === 'unauthorized')
    return refusedCredentialsHint(err, origin);
  if (err.code === 'invalid_integration_token' && integration) return integrationTokenHint(integration);
  if (err.code === 'invalid_scope') return 'request only scopes enabled on the application (--scopes)';
  if (err.kind === 'headers_too_large') return headersTooLargeHint(origin);
  if (isWrongTokenEndpoint(err)) {
    return `is the base URL right? It is the service's root${origin ? ` (now ${origin.baseUrl})` : ''}: svc adds /oauth/token and /v1/… to it`;
  }
  return undefined;
}

/**
 * Prints an error the contract's way: `error: …` (+ hint) or one JSON object with --json, through
 * the run's redactor (without one, as before a run exists, the well-known patterns are still masked).
 */
export function printError(
  err: unknown,
  io: IOStreams,
  opts: {
    json: boolean;
    debug: boolean;
    redactor?: Redactor;
    credentials?: CredentialOrigin;
    integrationToken?: IntegrationTokenOrigin;
    /** The width to wrap the message and the hint to (io/wrap.ts messageWidth); none: not wrapped. */
    width?: number;
  },
): number {
  const redactor = opts.redactor ?? new Redactor();
  const r = describeError(err, opts.credentials, opts.integrationToken);
  // Ctrl-C at a prompt: the person who pressed it needs no error line (JSON callers still get one).
  if (err instanceof PromptCancelled && !opts.json) return r.exitCode;
  const message = redactor.redact(r.message);
  if (opts.json) {
    io.stderr.write(`${JSON.stringify({ error: errorJson(r, message) })}\n`);
  } else {
    // The message may carry the service's words or a file's bytes: shown, never obeyed by the terminal.
    io.stderr.write(`${wrapMessage(`error: ${escapeControls(message)}`, opts.width)}\n`);
    if (r.hint) io.stderr.write(`${wrapMessage(`hint: ${escapeControls(r.hint)}`, opts.width)}\n`);
  }
  if (opts.debug && r.code === 'unexpected' && err instanceof Error && err.stack) {
    io.stderr.write(`${escapeControls(redactor.redact(err.stack))}\n`);
  }
  return r.exitCode;
}

/** The error object of --json: code and message, then what is known of status, id, request id and hint. */
function errorJson(r: ErrorReport, message: string): Record<string, unknown> {
  const error: Record<string, unknown> = { code: r.code, message };
  if (r.status !== undefined) error.status = r.status;
  if (r.id !== undefined) error.id = r.id;
  if (r.requestId !== undefined) error.request_id = r.requestId;
  if (r.hint !== undefined) error.hint = r.hint;
  return error;
}

/** Runs the CLI with argv (without node and script) and returns the exit code. */
export async function main(argv: string[], overrides: MainOverrides = {}): Promise<number> {
  const real = overrides.io === undefined;
  const io = overrides.io ?? systemStreams(process);
  const env = overrides.env ?? process.env;
  let ctx: Context | undefined;
  const { signal, detach } =
    real && !overrides.signal ? watchSignals(() => ctx?.paging === true) : { signal: overrides.signal, detach: () => {} };
  if (real) stopQuietlyOnEpipe();

  // `svc --version` is the start-up path scripts hit most: answer it before loading commander.
  // (bin/svc.js answers the same flags even before this module loads; this serves direct callers.)
  if (argv.length === 1 && ['--version', '-v', '-V', 'version'].includes(argv[0] as string)) {
    io.stdout.write(`${__SVC_VERSION__}\n`);
    detach();
    return 0;
  }

  // The person left the pager before the output ended (q in less): the rest is wanted by nobody,
  // so stop quietly with 0, as after EPIPE on a pipe. A pager that failed says so (exit 1).
  const pagerGone = (status: number | null) => {
    if (status) io.stderr.write(`error: the pager exited with status ${status}\n`);
    process.exit(status ? EXIT.failure : 0);
  };

  const wantsJson = argv.includes('--json');
  const wantsDebug = argv.includes('--debug');
  let exitCode = 0;
  const { buildProgram, CommanderError } = await import('./program.js');
  const program = buildProgram({
    io,
    // With --json, commander's usage errors (unknown option, bad choice) are the error JSON too.
    outputError: usageErrorWriter(wantsJson, () => messageWidth(io, env)),
    async run(load, args, opts, flags: GlobalFlags) {
      const { createContext } = await import('./context.js');
      ctx = createContext({
        io,
        env,
        flags,
        now: overrides.now,
        random: overrides.random,
        signal,
        onPagerGone: real ? pagerGone : undefined,
      });
      const mod = await load();
      const code = await mod.run(args, opts, ctx);
      exitCode = typeof code === 'number' ? code : 0;
    },
  });

  const helped = argv[0] === 'help' ? await answerHelp(program, argv, io, env) : argv;
  if (typeof helped === 'number') {
    detach();
    return helped;
  }
  // `svc` or a group alone (`svc contacts`): its help on stdout, exit 0, like gh.
  const { isGroupPath } = await import('./help-topics.js');
  const args = isGroupPath(program, helped) ? [...helped, '--help'] : helped;

  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    exitCode =
      err instanceof CommanderError
        ? commanderExitCode(err.code, args)
        : await reportError(err, ctx, io, { json: wantsJson, debug: wantsDebug, width: messageWidth(io, env) });
  } finally {
    await ctx?.close();
    detach();
  }
  return exitCode;
}

/** Commander's usage errors (unknown option, bad choice): wrapped, or with --json the error JSON too. */
function usageErrorWriter(json: boolean, width: () => number | undefined) {
  return (message: string, write: (text: string) => void): void => {
    if (json) {
      const text = message.replace(/^error: /, '').trim();
      write(`${JSON.stringify({ error: { code: 'usage', message: text } })}\n`);
    } else write(message.endsWith('\n') ? `${wrapMessage(message.slice(0, -1), width())}\n` : message);
  };
}

/** A command's error printed (once the pager is left, not across the page being read); its exit code. */
async function reportError(
  err: unknown,
  ctx: Context | undefined,
  io: IOStreams,
  given: { json: boolean; debug: boolean; width: number | undefined },
): Promise<number> {
  await ctx?.stopPager().catch(() => undefined);
  return printError(err, io, {
    json: ctx?.settings.json ?? given.json,
    debug: ctx?.settings.debug ?? given.debug,
    redactor: ctx?.redactor,
    credentials: ctx?.credentials,
    integrationToken: ctx?.integrationToken,
    width: given.width,
  });
}

/** Help and version are successes; a missing subcommand shows help and is a usage error (but `svc` alone is not). */
function commanderExitCode(code: string, argv: string[]): number {
  if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
  if (code === 'commander.help') return argv.length === 0 ? 0 : EXIT.usage;
  return EXIT.usage;
}

/**
 * SIGINT and SIGTERM abort the run's signal (exit 130 once the command has stopped); a second
 * Ctrl-C while it saves its progress exits at once. `detach` removes the handlers after a run
 * that was not interrupted.
 */
function watchSignals(paging: () => boolean): { signal: AbortSignal; detach: () => void } {
  const controller = new AbortController();
  let interrupts = 0;
  let firstAt = 0;
  const onSignal = (name: NodeJS.Signals) => {
    interrupts++;
    const now = Date.now();
    if (interrupts === 1) firstAt = now;
    // While a pager shows the output, Ctrl-C is the pager's (less uses it to stop a search):
    // the run stops producing, and svc waits for the person to leave the pager, as git does,
    // so the shell never gets the terminal back while less still has it.
    else if (paging()) return;
    // A second Ctrl-C while a command is saving its progress means "now". A repeat within
    // 500 ms is not a person: conf's atomic writer (when-exit) re-raises the signal it caught.
    else if (now - firstAt > 500) process.exit(130);
    controller.abort(new DOMException(`received ${name}`, 'AbortError'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const detach = () => {
    // After an interrupt the handler stays: conf's atomic writer (when-exit) re-raises the
    // signal it caught, and should that copy arrive once no handler is left, the default
    // action would kill the process by the signal instead of its exit code (130) — a race a
    // loaded CI machine on Node 24 lost. With the handler kept, the copy is absorbed (< 500 ms).
    if (interrupts > 0) return;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return { signal: controller.signal, detach };
}

/**
 * `svc contacts list --all | head`: the reader closed the pipe. Stop quietly like any Unix
 * filter (no stack trace), with exit 0: the reader took what it wanted.
 */
function stopQuietlyOnEpipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** `svc help …`: a topic printed (exit 0), an unknown name refused (exit 2), or the argv of the command's help. */
async function answerHelp(
  program: Parameters<typeof import('./help-topics.js').resolveHelp>[0],
  argv: string[],
  io: IOStreams,
  env: Env,
): Promise<number | string[]> {
  const { HELP_TOPICS, resolveHelp } = await import('./help-topics.js');
  const asked = resolveHelp(program, argv.slice(1));
  if ('topic' in asked) {
    io.stdout.write(HELP_TOPICS[asked.topic] as string);
    return 0;
  }
  if ('unknown' in asked) {
    const width = messageWidth(io, env);
    io.stderr.write(
      `${wrapMessage(`error: unknown command "${escapeControls(asked.unknown)}"`, width)}\n${wrapMessage('hint: `svc --help` lists the commands; `svc help environment` and `svc help exit-codes` are the topics', width)}\n`,
    );
    return EXIT.usage;
  }
  return asked.argv;
}
