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
  if (err instanceof CliError) {
    return { exitCode: err.exitCode, code: err.code, message: err.message, hint: err.hint, status: err.status, requestId: err.requestId };
  }
  if (err instanceof InputError) return { exitCode: EXIT.usage, code: 'usage', message: err.message, hint: err.hint };
  if (err instanceof OutputError) return { exitCode: EXIT.failure, code: 'output_error', message: err.message };
  if (err instanceof GuardError)
    return { exitCode: err.kind === 'auth' ? EXIT.auth : EXIT.usage, code: err.code, message: err.message, hint: err.hint };
  if (err instanceof SettingsError) return { exitCode: EXIT.usage, code: 'usage', message: err.message, hint: err.hint };
  if (err instanceof StoreError) return { exitCode: EXIT.failure, message: err.message, ...STORE_ERRORS[err.kind] };
  if (err instanceof MissingScopeError) {
    return {
      exitCode: EXIT.auth,
      code: 'insufficient_scope',
      message: err.message,
      hint: missingScopeHint(err.scope, origin),
    };
  }
  if (err instanceof CredentialsError) return { exitCode: EXIT.auth, code: 'not_logged_in', message: err.message, hint: err.hint };
  if (err instanceof ApiError) {
    let hint: string | undefined;
    if (err.code === 'insufficient_scope') {
      hint = missingScopeHint(err.requiredScope ?? 'the missing scope', origin);
    } else if (err.code === 'invalid_client' || err.kind === 'unauthorized' || err.code === 'unauthorized') {
      hint = refusedCredentialsHint(err, origin);
    } else if (err.code === 'invalid_integration_token' && integration) {
      hint = integrationTokenHint(integration);
    } else if (err.code === 'invalid_scope') hint = 'request only scopes enabled on the application (--scopes)';
    else if (err.kind === 'headers_too_large') hint = headersTooLargeHint(origin);
    else if (isWrongTokenEndpoint(err)) {
      hint = `is the base URL right? It is the service's root${origin ? ` (now ${origin.baseUrl})` : ''}: svc adds /oauth/token and /v1/… to it`;
    }
    const route = err.path && err.method && !err.path.startsWith(`${err.method} `) ? `${err.method} ${err.path}` : err.path;
    const where = route ? ` (${route})` : '';
    return {
      exitCode: err.isAuthError ? EXIT.auth : EXIT.failure,
      code: err.code,
      message: `${messageWithDetails(err.message, err.details)} — HTTP ${err.status}${where}${err.requestId ? `, request id ${err.requestId}` : ''}`,
      hint,
      status: err.status,
      id: err.id,
      requestId: err.requestId,
    };
  }
  if (err instanceof UnknownRouteError) {
    return {
      exitCode: EXIT.failure,
      code: 'unknown_route',
      message: err.message,
      hint: err.doubledVersion
        ? `does the base URL end in /v1? It must not: it is the service's root (now ${baseUrlFrom(origin)}); svc adds /v1/… itself`
        : `is the base URL right? It is the service's root (now ${baseUrlFrom(origin)}); svc adds /v1/… to it`,
      status: 404,
      requestId: err.requestId,
    };
  }
  if (err instanceof IncompleteListingError) return { exitCode: EXIT.failure, code: err.code, message: err.message };
  if (err instanceof RetryWaitTooLongError)
    return { exitCode: EXIT.failure, code: 'retry_wait_too_long', message: err.message, status: err.status };
  if (err instanceof UnsendableRequestError) {
    return {
      exitCode: EXIT.usage,
      code: 'unsendable_request',
      message: err.message,
      hint: 'a credential holds a line break or control character: check SVC_TOKEN / SVC_INTEGRATION_TOKEN, or `svc auth login` again',
    };
  }
  if (err instanceof NetworkError) {
    return {
      exitCode: EXIT.failure,
      code: 'network_error',
      message: err.message,
      hint: err.kind === 'refused' ? refusedConnectionHint(origin) : undefined,
    };
  }
  if (isAbort(err)) return { exitCode: EXIT.interrupted, code: 'interrupted', message: 'interrupted' };
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: EXIT.failure, code: 'unexpected', message: `unexpected error: ${message}`, hint: 'rerun with --debug for details' };
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
    const error: Record<string, unknown> = { code: r.code, message };
    if (r.status !== undefined) error.status = r.status;
    if (r.id !== undefined) error.id = r.id;
    if (r.requestId !== undefined) error.request_id = r.requestId;
    if (r.hint !== undefined) error.hint = r.hint;
    io.stderr.write(`${JSON.stringify({ error })}\n`);
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

/** Runs the CLI with argv (without node and script) and returns the exit code. */
export async function main(argv: string[], overrides: MainOverrides = {}): Promise<number> {
  const real = overrides.io === undefined;
  const io = overrides.io ?? systemStreams(process);
  const env = overrides.env ?? process.env;
  let signal = overrides.signal;
  let detach = () => {};
  if (real && !signal) {
    const controller = new AbortController();
    signal = controller.signal;
    let interrupts = 0;
    let firstAt = 0;
    const onSignal = (name: NodeJS.Signals) => {
      interrupts++;
      const now = Date.now();
      if (interrupts === 1) firstAt = now;
      // While a pager shows the output, Ctrl-C is the pager's (less uses it to stop a search):
      // the run stops producing, and svc waits for the person to leave the pager, as git does,
      // so the shell never gets the terminal back while less still has it.
      else if (ctx?.paging) return;
      // A second Ctrl-C while a command is saving its progress means "now". A repeat within
      // 500 ms is not a person: conf's atomic writer (when-exit) re-raises the signal it caught.
      else if (now - firstAt > 500) process.exit(130);
      controller.abort(new DOMException(`received ${name}`, 'AbortError'));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    detach = () => {
      // After an interrupt the handler stays: conf's atomic writer (when-exit) re-raises the
      // signal it caught, and should that copy arrive once no handler is left, the default
      // action would kill the process by the signal instead of its exit code (130) — a race a
      // loaded CI machine on Node 24 lost. With the handler kept, the copy is absorbed (< 500 ms).
      if (interrupts > 0) return;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
  }
  if (real) {
    // `svc contacts list --all | head`: the reader closed the pipe. Stop quietly like any Unix
    // filter (no stack trace), with exit 0: the reader took what it wanted.
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }

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
  let ctx: Context | undefined;
  let exitCode = 0;
  const { buildProgram, CommanderError } = await import('./program.js');
  const program = buildProgram({
    io,
    // With --json, commander's usage errors (unknown option, bad choice) are the error JSON too.
    outputError: (message, write) => {
      if (!wantsJson) return write(message.endsWith('\n') ? `${wrapMessage(message.slice(0, -1), messageWidth(io, env))}\n` : message);
      const text = message.replace(/^error: /, '').trim();
      write(`${JSON.stringify({ error: { code: 'usage', message: text } })}\n`);
    },
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

  if (argv[0] === 'help') {
    const { HELP_TOPICS, resolveHelp } = await import('./help-topics.js');
    const asked = resolveHelp(program, argv.slice(1));
    if ('topic' in asked) {
      io.stdout.write(HELP_TOPICS[asked.topic] as string);
      detach();
      return 0;
    }
    if ('unknown' in asked) {
      const width = messageWidth(io, env);
      io.stderr.write(
        `${wrapMessage(`error: unknown command "${escapeControls(asked.unknown)}"`, width)}\n${wrapMessage('hint: `svc --help` lists the commands; `svc help environment` and `svc help exit-codes` are the topics', width)}\n`,
      );
      detach();
      return EXIT.usage;
    }
    argv = asked.argv;
  }

  // `svc` or a group alone (`svc contacts`): its help on stdout, exit 0, like gh.
  const { isGroupPath } = await import('./help-topics.js');
  if (isGroupPath(program, argv)) argv = [...argv, '--help'];

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; a missing subcommand shows help and is a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') exitCode = 0;
      else if (err.code === 'commander.help') exitCode = argv.length === 0 ? 0 : EXIT.usage;
      else exitCode = EXIT.usage;
    } else {
      // An error is printed once the pager is left, not across the page being read.
      await ctx?.stopPager().catch(() => undefined);
      exitCode = printError(err, io, {
        json: ctx?.settings.json ?? wantsJson,
        debug: ctx?.settings.debug ?? wantsDebug,
        redactor: ctx?.redactor,
        credentials: ctx?.credentials,
        integrationToken: ctx?.integrationToken,
        width: messageWidth(io, env),
      });
    }
  } finally {
    await ctx?.close();
    detach();
  }
  return exitCode;
}
