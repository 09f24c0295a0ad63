/**
 * Context: everything a command depends on, built lazily. Real runs get the default wiring
 * from main.ts; tests build their own IO and env and run commands in-process.
 */
import type { ApiClient } from './client/types.js';
import { type Colors, makeColors } from './io/color.js';
import { escapeControls } from './io/escape.js';
import { Output } from './io/output.js';
import { findExecutable, type Pager, pagerCommand, startPager } from './io/pager.js';
import type { Prompter } from './io/prompter.js';
import type { Spinner } from './io/spinner.js';
import { type IOStreams, isCI, type TerminalPolicy, terminalPolicy } from './io/streams.js';
import { messageWidth, stdoutWidth } from './io/wrap.js';
import { configDir, dataDir, readDefaultProfile } from './store/paths.js';
import { Redactor } from './store/redact.js';
import { type Env, type GlobalFlags, resolveSettings, type Settings } from './store/settings.js';
import type { CredentialStore } from './store/store.js';
import type { CredentialOrigin } from './wiring/client.js';

export interface Logger {
  /** A --debug line on stderr (redacted); nothing without --debug. */
  debug(message: string): void;
  /** A warning on stderr (hidden by --quiet). */
  warn(message: string): void;
  /** What is happening while the user waits (a retried connection): stderr, hidden by --quiet and --json. */
  notice(message: string): void;
}

/** Where an order request's integration token came from: --integration-token-stdin, SVC_INTEGRATION_TOKEN or a profile. */
export interface IntegrationTokenOrigin {
  source: 'flag' | 'env' | 'profile';
  profile: string;
}

export interface Context {
  io: IOStreams;
  env: Env;
  /** Global flags as given on the command line (for per-profile precedence). */
  flags: GlobalFlags;
  settings: Settings;
  policy: TerminalPolicy;
  colors: Colors;
  out: Output;
  log: Logger;
  now: () => number;
  random: () => number;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
  /** Folder for data files (embedded sandbox db, import journals). */
  dataDir: string;
  /** The run's redactor: every secret the run learns is registered here; logs and errors pass through it. */
  redactor: Redactor;
  store(): Promise<CredentialStore>;
  /** Where the credentials of the run's client came from, once a client was opened (for error hints). */
  credentials?: CredentialOrigin;
  noteCredentials(origin: CredentialOrigin): void;
  /** Where the integration token sent on order requests came from (a 403 on it names that place). */
  integrationToken?: IntegrationTokenOrigin;
  /** The API client for this run (credentials resolved, --sandbox started), created once. */
  client(): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  spinner(text: string): Promise<Spinner>;
  /**
   * From now on, stdout goes through the pager ($SVC_PAGER, $PAGER, `less -FRX`) — only in a real
   * run (main.ts), when stdout is a terminal, not in CI and without --no-pager; otherwise nothing.
   * Call it just before the first rows of a long listing are written.
   */
  startPager(): void;
  /** True while a pager shows stdout. */
  readonly paging: boolean;
  /** Ends the pager's input and waits until the person has left it (close() does it too). */
  stopPager(): Promise<void>;
  /** Releases what the run opened (HTTP pools, the embedded sandbox, the pager). */
  close(): Promise<void>;
}

export interface ContextInit {
  io: IOStreams;
  env: Env;
  flags: GlobalFlags;
  now?: () => number;
  random?: () => number;
  signal?: AbortSignal;
  /**
   * Given by real runs only (in-process tests never start a pager): called when the pager ends
   * before the run is done with it (the person quit it), with its exit status.
   */
  onPagerGone?: (status: number | null) => void;
}

export function createContext(init: ContextInit): Context {
  const settings = resolveSettings(init.flags, init.env, () => readDefaultProfile(configDir(init.env)));
  const policy = terminalPolicy(init.io, init.env, settings);
  const colors = makeColors(policy.color);
  const out = new Output(init.io, policy, colors, settings.quiet, settings.json, {
    stderr: messageWidth(init.io, init.env),
    stdout: stdoutWidth(init.io, init.env),
  });
  const closers: Array<() => Promise<void>> = [];
  const redactor = new Redactor();
  let storePromise: Promise<CredentialStore> | undefined;
  let clientPromise: Promise<ApiClient> | undefined;
  let pager: Pager | undefined;
  let pagerTried = false;

  const ctx: Context = {
    io: init.io,
    env: init.env,
    flags: init.flags,
    settings,
    policy,
    colors,
    out,
    log: {
      debug(message) {
        if (settings.debug) init.io.stderr.write(`${colors.dim(`[debug] ${escapeControls(redactor.redact(message))}`)}\n`);
      },
      warn(message) {
        out.warn(redactor.redact(message));
      },
      notice(message) {
        out.info(redactor.redact(message));
      },
    },
    now: init.now ?? Date.now,
    random: init.random ?? Math.random,
    signal: init.signal ?? new AbortController().signal,
    dataDir: dataDir(init.env),
    redactor,
    noteCredentials(origin) {
      ctx.credentials = origin;
    },
    store() {
      storePromise ??= import('./store/store.js').then(
        ({ CredentialStore }) => new CredentialStore(configDir(init.env), { onSecret: (s) => redactor.add(s) }),
      );
      return storePromise;
    },
    client() {
      clientPromise ??= import('./wiring/client.js').then(async ({ openClient }) => {
        const { client, close } = await openClient(ctx);
        closers.push(close);
        return client;
      });
      return clientPromise;
    },
    async prompter() {
      const { createPrompter } = await import('./io/prompter.js');
      return createPrompter(init.io, ctx.signal);
    },
    async spinner(text) {
      const { startSpinner } = await import('./io/spinner.js');
      return startSpinner(init.io, policy.canAnimate, text, policy.color);
    },
    startPager() {
      if (pagerTried) return;
      pagerTried = true;
      const onGone = init.onPagerGone;
      if (!onGone || !settings.pager || !init.io.stdoutIsTTY || isCI(init.env)) return;
      const cmd = pagerCommand(init.env);
      if (!cmd) return;
      if (!findExecutable(cmd.argv[0] as string, init.env)) {
        if (cmd.chosen) out.warn(`pager ${JSON.stringify(cmd.argv[0])} not found; printing without one (set PAGER, or --no-pager)`);
        return;
      }
      pager = startPager(cmd.argv, init.env, onGone);
      init.io.stdout = pager.stdin;
    },
    get paging() {
      return pager !== undefined;
    },
    async stopPager() {
      const p = pager;
      if (!p) return;
      await p.end();
      pager = undefined;
    },
    async close() {
      for (const c of closers.reverse()) await c().catch(() => undefined);
      closers.length = 0;
      await ctx.stopPager();
    },
  };
  return ctx;
}
